/**
 * The hardware class on the scenario page: the real `tunelab run vacuum-index-cleanup`
 * run on this machine against PostgreSQL 17 (tests/fixtures/real-runs/versions), ingested as it was
 * made and with the same measurements labelled as the like-article run's envelope (emulated), plus
 * a vacuum-full-rewrite run on one class alone, in a PGlite results database → the real `astro
 * build` → Chromium. The class table, chart and interaction table appear where a major has a pair
 * on two classes, one sentence where it has one.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { RunSubmission } from '@tunelab/contracts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { openTestResultsDb } from './fresh-db.ts';
import { buildSite } from './build.ts';
import { REPO_ROOT, SCENARIOS_DIR } from './seed.ts';
import { serveStatic } from './static-server.ts';

const fixture = (file: string) =>
  RunSubmission.parse(
    (JSON.parse(readFileSync(join(REPO_ROOT, 'tests/fixtures', file), 'utf8')) as { submission: unknown }).submission,
  );
const PG17 = fixture('real-runs/versions/vacuum-index-cleanup-pg17.json');
const LIKE = fixture('vacuum-index-cleanup-like-article-1GB.json');
const RUNS = [
  PG17,
  { ...PG17, hardware: { ...PG17.hardware, measured: LIKE.hardware.measured, envelope: LIKE.hardware.envelope } },
  fixture('real-runs/vacuum-full-rewrite.json'),
];
const HERE = '2 cores / 24 GB / virtual or unknown disk';
const EMULATED = '2 cores / 2.7 GB of 24 GB / SSD-like (emulated)';

const work = await mkdtemp(join(tmpdir(), 'tl-classes-site-'));
let out: string;
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser | undefined;

beforeAll(async () => {
  const dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    await db.importPublished(SCENARIOS_DIR);
    for (const [i, submission] of RUNS.entries()) await ingestDocument(db, submission, `classes-${i}`);
  } finally {
    await db.close();
  }
  out = join(work, 'dist');
  const built = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
  expect(built.code, built.output).toBe(0);
  server = await serveStatic(out);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

const sectionOf = (html: string) =>
  html.slice(html.indexOf('<section class="classes"'), html.indexOf('<details class="rule"'));

describe('the scenario page per hardware class', () => {
  it('shows the class table, chart and interaction tests, the emulated class said as such', async () => {
    const section = sectionOf(await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8'));
    expect(section).toContain('The answer per hardware class');
    expect(section).toContain(
      `Measured: PostgreSQL 17 on ${HERE} and ${EMULATED}; the same pairs under equal conditions side by side: ${HERE} and ${EMULATED} on PostgreSQL 17.`,
    );
    const tables = section.match(/<table class="version-table class-table stack"[\s\S]*?<\/table>/g) ?? [];
    expect(tables).toHaveLength(2);
    for (const t of tables) {
      expect([...t.matchAll(/data-emulated="(\w+)"/g)].map((m) => m[1])).toEqual(['false', 'true']);
      expect(t).toContain(`>${HERE}</th>`);
      expect(t).toContain(`>${EMULATED}</th>`);
      expect(t).toMatch(/3 \+ 3/);
      expect(t).toMatch(/-?\d+\.\d% \(-?\d+\.\d% to -?\d+\.\d%\)/);
    }
    // The same measurements on both classes: a ratio of ratios of exactly 1, no evidence.
    const tests = section.match(/<table class="version-table class-interactions stack"[\s\S]*?<\/table>/g) ?? [];
    expect(tests).toHaveLength(2);
    for (const t of tests) {
      expect(t).toContain(`${HERE} vs ${EMULATED}`);
      expect(t).toMatch(/>1× \(95% CI 0\.\d+–1\.\d+\)</);
      expect(t).toContain('data-differs="false"');
      expect(t).toContain('>no evidence<');
      expect(t).toMatch(/data-label="Holm-adjusted p">\s*1\.0\s*</);
    }
    expect(section.match(/<p class="class-summary">No evidence that the hardware changes the answer \(/g)).toHaveLength(
      2,
    );
    const figures = section.match(/<figure class="chart">[\s\S]*?<\/figure>/g) ?? [];
    expect(figures).toHaveLength(2);
    for (const f of figures) {
      expect(f).toContain('<svg');
      expect(f).toContain('(emulated)');
    }
  });

  it('says in one sentence which classes are measured where no major has two', async () => {
    const section = sectionOf(await readFile(join(out, 'scenarios/vacuum-full-rewrite/index.html'), 'utf8'));
    expect(section).toMatch(
      /^<section class="classes"[\s\S]*Measured: PostgreSQL 15 on 2 cores \/ 24 GB \/ virtual or unknown disk; no server has the same pair under equal conditions on two hardware classes yet\./,
    );
    expect(section).not.toContain('<table');
    expect(section).not.toContain('<svg');
  });

  it('the page with the class tables and charts passes axe-core and fits at 1366 and 390 px', async () => {
    browser = await launchChromium();
    const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const violations: string[] = [];
    for (const width of [1366, 390]) {
      const p = await browser.newPage({ viewport: { width, height: 900 }, javaScriptEnabled: true });
      await p.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
      await p.addScriptTag({ content: axeSource });
      expect(await p.locator('section.classes table.class-table').count()).toBe(2);
      // The table says what it holds, words spaced (a formatter once glued them: "1-2vs1-1per…").
      await expect(p.locator('section.classes table.class-table caption').first().textContent()).resolves.toBe(
        '1-2 vs 1-1 per hardware class (PostgreSQL 17)',
      );
      await expect(p.locator('section.classes h2').textContent()).resolves.toBe('The answer per hardware class');
      // Nothing of the section wider than the page: the tables stack or scroll inside their region.
      const overflow = await p.evaluate(() => {
        const s = document.querySelector('section.classes')!;
        return s.getBoundingClientRect().right - document.documentElement.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      // TL_SCREENSHOTS=dir: the section at each width, to look at.
      if (process.env['TL_SCREENSHOTS'])
        await p
          .locator('section.classes')
          .screenshot({ path: join(process.env['TL_SCREENSHOTS'], `classes-${width}.png`) });
      const found = await p.evaluate(async () => {
        if (!window.axe) return ['axe-core did not load'];
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
      });
      violations.push(...found.map((f) => `${width}px: ${f}`));
    }
    expect(violations).toEqual([]);
  });
});
