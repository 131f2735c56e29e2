/**
 * The server version on the scenario page: real `tunelab run vacuum-index-cleanup` runs
 * on this machine against PostgreSQL 14 and 17 (managed servers from the npm registry) and the
 * local 15, plus a vacuum-full-rewrite run on 15 alone (tests/fixtures/real-runs), in a PGlite
 * results database → the real `astro build` → Chromium. The version table and chart appear where a
 * class has a pair on two majors or more, one sentence where it has one; the hardware-like-mine
 * form takes the version.
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

const realRun = (file: string) =>
  RunSubmission.parse(
    (JSON.parse(readFileSync(join(REPO_ROOT, 'tests/fixtures/real-runs', file), 'utf8')) as { submission: unknown })
      .submission,
  );
const RUNS = [
  'versions/vacuum-index-cleanup-pg14.json',
  'vacuum-index-cleanup.json',
  'versions/vacuum-index-cleanup-pg17.json',
  'vacuum-full-rewrite.json',
].map(realRun);

const work = await mkdtemp(join(tmpdir(), 'tl-versions-site-'));
let out: string;
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser | undefined;

beforeAll(async () => {
  const dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    await db.importPublished(SCENARIOS_DIR);
    for (const [i, submission] of RUNS.entries()) await ingestDocument(db, submission, `versions-${i}`);
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

describe('the scenario page per server version', () => {
  it('shows the version table and chart with each major for a class measured on several', async () => {
    const html = await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8');
    const section = html.slice(html.indexOf('<section class="versions"'), html.indexOf('<details class="rule"'));
    expect(section).toContain('The answer per server version');
    // The 15 run was made with an earlier version of the scenario: measured, never side by side.
    expect(section).toMatch(
      /Measured on PostgreSQL 14, 15 and 17; the same pairs under equal conditions side by side: .+ on PostgreSQL 14 and 17\./,
    );
    const tables = section.match(/<table class="version-table stack"[\s\S]*?<\/table>/g) ?? [];
    expect(tables).toHaveLength(2);
    for (const t of tables) {
      expect([...t.matchAll(/data-major="(\d+)"/g)].map((m) => m[1])).toEqual(['14', '17']);
      for (const major of [14, 17]) expect(t).toMatch(new RegExp(`>PostgreSQL ${major}</th>`));
      // n per side, the improvement with its interval, the verdict.
      expect(t).toMatch(/3 \+ 3/);
      expect(t).toMatch(/-?\d+\.\d% \(-?\d+\.\d% to -?\d+\.\d%\)/);
      expect(t).toMatch(
        />(?:(?:1-2|2-2) (?:better|worse)|no measurable difference|not enough repetitions to be sure), (?:Bonferroni-adjusted )?p (?:= [\d.e-]+|< 0\.001)(?: over \d+ decisions)?</,
      );
      expect(t).toMatch(
        /title="(?:Not enough repetitions to be sure whether (?:1-2|2-2) differs|(?:1-2|2-2) (?:and (?:1-1|2-1) show no measurable difference|is [\d.]+% (?:faster|slower)))/,
      );
    }
    // The forest plot per pair: an SVG whose text names each version.
    const figures = section.match(/<figure class="chart">[\s\S]*?<\/figure>/g) ?? [];
    expect(figures).toHaveLength(2);
    for (const f of figures) {
      expect(f).toContain('<svg');
      for (const major of [14, 17]) expect(f).toContain(`PostgreSQL ${major}`);
      expect(f).not.toContain('PostgreSQL 15');
    }
  });

  it('says in one sentence which versions are measured where no class has two', async () => {
    const html = await readFile(join(out, 'scenarios/vacuum-full-rewrite/index.html'), 'utf8');
    const section = html.slice(html.indexOf('<section class="versions"'), html.indexOf('<details class="rule"'));
    expect(section).toMatch(/Measured on PostgreSQL 15 only — .+ on PostgreSQL 15; no hardware class/);
    expect(section).not.toContain('<table');
    expect(section).not.toContain('<svg');
  });

  it('hardware like mine takes a version, and says when that version is not measured', async () => {
    browser = await launchChromium();
    const p = await browser.newPage({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: true });
    p.setDefaultTimeout(20_000);
    const hw = RUNS[0]!.hardware;
    const cores = hw.physicalCores;
    const memory = Math.round(hw.memoryBytes / 1024 ** 3);
    const base = `${server.url}/scenarios/vacuum-index-cleanup/?cores=${cores}&memory=${memory}&storage=${hw.storage.kind}`;
    await p.goto(base);
    const options = await p.locator('form.picker select[name="major"] option').allTextContents();
    expect(options).toEqual(['any', 'PostgreSQL 14', 'PostgreSQL 15', 'PostgreSQL 17']);
    for (const major of [14, 17]) {
      await p.selectOption('form.picker select[name="major"]', String(major));
      await p.click('form.picker button');
      await expect(p.locator('.answer-card.picked .answer-class').textContent()).resolves.toContain(
        `PostgreSQL ${major}`,
      );
      expect(new URL(p.url()).searchParams.get('major')).toBe(String(major));
      await expect(p.locator('.picker-result').textContent()).resolves.toContain(`PostgreSQL ${major}`);
    }
    // A version no class has: the picker says so and names the versions the nearest class has.
    await p.goto(`${base}&major=16`);
    await expect(p.locator('.picker-result').textContent()).resolves.toMatch(
      /^PostgreSQL 16 is not measured on any class of this scenario \(the nearest class, .+, is measured on 14, 15, 17\)/,
    );
  });

  it('the page with the version tables, charts and picker passes axe-core at 1366 and 390 px', async () => {
    browser ??= await launchChromium();
    const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const violations: string[] = [];
    for (const width of [1366, 390]) {
      const p = await browser.newPage({ viewport: { width, height: 900 }, javaScriptEnabled: true });
      await p.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
      await p.addScriptTag({ content: axeSource });
      expect(await p.locator('section.versions table.version-table:not(.variant-across)').count()).toBe(2);
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
