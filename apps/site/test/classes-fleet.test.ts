/**
 * The classes view at fleet scale: three runs of vacuum-index-cleanup per machine on `CLASSES`
 * machines of as many hardware classes (cores × memory × disk, as bench/seed-fleet.ts lays out a
 * fleet), each run shaped like the sample submission (durations scaled by the machine, jittered
 * per run) and ingested through results-db's ingestRun; on the HDD machines 1-1 and 1-2 are
 * swapped, so there 1-2 is measured slower than 1-1 and the hardware changes that pair's answer.
 * The real `astro build` → Chromium. The scenario page stays within a height and a weight that
 * do not grow with the square of the classes: ≤ 20 screens at 1366 × 900 and ≤ 2 KB gzipped per
 * answered group; it says the answer grouped by verdict, and the per-class tables and the
 * pairwise interaction tests are on a page of their own.
 * TL_CLASSES=n sets the number of classes (default 75, at most 75 distinct).
 */
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { ingestDocument } from '@tunelab/results-db/testing';
import { fleetMachine } from '../bench/seed-fleet.ts';
import { openTestResultsDb } from './fresh-db.ts';
import { buildSite } from './build.ts';
import { sampleRun, SCENARIOS_DIR } from './seed.ts';
import { serveStatic } from './static-server.ts';

const CLASSES = Number(process.env['TL_CLASSES'] ?? 75);
const RUNS_PER_CLASS = 3;
const PAGE = 'scenarios/vacuum-index-cleanup/';

const work = await mkdtemp(join(tmpdir(), 'tl-classes-fleet-'));
let out: string;
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser | undefined;
let page: Page | undefined;
/** The one page of the file's browser (Chromium here runs in one process: closing a page ends it). */
const browserPage = async (): Promise<Page> => {
  browser ??= await launchChromium();
  page ??= await browser.newPage({ viewport: { width: 1366, height: 900 } });
  return page;
};

beforeAll(async () => {
  const dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    await db.importPublished(SCENARIOS_DIR);
    for (let i = 0; i < CLASSES * RUNS_PER_CLASS; i++) {
      const machine = fleetMachine(i, CLASSES);
      const swap: [string, string] | undefined = machine.disk === 'hdd' ? ['1-1', '1-2'] : undefined;
      const run = sampleRun(machine, i, new Date(Date.UTC(2026, 0, 1) + i * 60_000), swap ? { swap } : {});
      await ingestDocument(db, run, `classes-fleet-${i}`);
    }
  } finally {
    await db.close();
  }
  out = join(work, 'dist');
  const built = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
  expect(built.code, built.output).toBe(0);
  server = await serveStatic(out);
}, 900_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

const HDD_CLASSES = Array.from({ length: CLASSES }, (_, i) => fleetMachine(i, CLASSES)).filter(
  (m) => m.disk === 'hdd',
).length;
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
const between = (html: string, from: string, to: string) => html.slice(html.indexOf(from), html.indexOf(to));

describe(`the scenario page over ${CLASSES} hardware classes`, () => {
  it('says the answer grouped by the verdict the classes give, and where the hardware changes it', async () => {
    const html = await readFile(join(out, PAGE, 'index.html'), 'utf8');
    // Where the cards fold, the answer grouped by verdict is said in the answer section itself.
    expect(text(between(html, '<ul class="answer-tally">', '</ul>'))).toContain(
      `1-2 vs 1-1: better on ${CLASSES - HDD_CLASSES}, worse on ${HDD_CLASSES}`,
    );
    const section = between(html, '<section class="classes"', '<details class="rule"');
    const pairs = section.match(/<section class="class-pair class-groups"[\s\S]*?<\/section>/g) ?? [];
    expect(pairs).toHaveLength(2);
    const swapped = pairs.find((p) => p.includes('data-baseline="1-1"'))!;
    // The swapped pair: better on every class but the HDD ones, worse on those.
    expect(
      [...swapped.matchAll(/<li data-kind="(\w+)" data-classes="(\d+)"/g)].map((m) => [m[1], Number(m[2])]),
    ).toEqual([
      ['faster', CLASSES - HDD_CLASSES],
      ['slower', HDD_CLASSES],
    ]);
    expect(text(swapped)).toContain(
      `Between the classes that answer “1-2 better than 1-1” and those that answer “1-2 worse than 1-1”: `,
    );
    const [, differing, tests] = /data-differing="(\d+)" data-tests="(\d+)"/.exec(swapped) ?? [];
    expect(Number(tests)).toBe(HDD_CLASSES * (CLASSES - HDD_CLASSES));
    expect(Number(differing)).toBeGreaterThan(0);
    // The other pair is the same on every class: one group, no change, and the summary says why.
    const same = pairs.find((p) => p.includes('data-baseline="2-1"'))!;
    expect(same.match(/<li data-kind=/g)).toHaveLength(1);
    expect(same).not.toContain('class="class-changes"');
    expect(text(same)).toMatch(/No evidence that the hardware changes the answer \(interaction tests of 2-2 ÷ 2-1 on /);
    // Outside the folded lists of which classes give each verdict and the strongest test of a
    // change (two classes), no class is named one by one.
    const unfolded = text(
      section
        .replace(/<details class="class-names">[\s\S]*?<\/details>/g, '')
        .replace(/<ul class="class-changes">[\s\S]*?<\/ul>/g, ''),
    );
    expect(unfolded).not.toMatch(/\d+ cores \/ \d+ GB/);
    expect(text(between(html, '<section class="versions"', '<section class="classes"'))).not.toMatch(
      /\d+ cores \/ \d+ GB \/ \w+ on/,
    );
    // The detail is on the classes page: every class's row, and the pairwise tests folded.
    expect(swapped).toContain(`href="/scenarios/vacuum-index-cleanup/classes/#classes-`);
    const detail = await readFile(join(out, PAGE, 'classes/index.html'), 'utf8');
    const tables = detail.match(/<table class="version-table class-table stack"[\s\S]*?<\/table>/g) ?? [];
    expect(tables.map((t) => (t.match(/data-class="/g) ?? []).length)).toEqual([CLASSES, CLASSES]);
    expect(detail.match(/<details class="more class-tests">/g)).toHaveLength(2);
    expect(detail.match(/<tr data-differs=/g)).toHaveLength(CLASSES * (CLASSES - 1));
  });

  it('opens the folded card of the class the form picks', async () => {
    const p = await browserPage();
    await p.setViewportSize({ width: 1366, height: 900 });
    await p.goto(`${server.url}/${PAGE}?cores=8&memory=16&storage=hdd`);
    const picked = p.locator('details.answer-more .answer-card.picked');
    await expect(picked.getAttribute('data-class')).resolves.toBe('8 cores / 16 GB / HDD');
    expect(await picked.isVisible()).toBe(true);
  });

  it('weighs at most 2 KB gzipped per answered group and is at most 20 screens tall at 1366 × 900', async () => {
    const html = await readFile(join(out, PAGE, 'index.html'));
    const groups = (html.toString().match(/<article class="answer-card"/g) ?? []).length;
    expect(groups).toBe(CLASSES);
    const gzip = gzipSync(html, { level: 9 }).length;
    const p = await browserPage();
    const heights: Record<number, number> = {};
    for (const [width, height] of [
      [1366, 900],
      [390, 844],
    ] as const) {
      await p.setViewportSize({ width, height });
      await p.goto(`${server.url}/${PAGE}`);
      heights[width] = await p.evaluate(() => document.documentElement.scrollHeight);
      console.log(
        `[classes-fleet] ${CLASSES} classes, ${width} × ${height}: ${heights[width]} px = ${(heights[width] / height).toFixed(1)} screens`,
      );
    }
    console.log(
      `[classes-fleet] ${CLASSES} classes: ${html.length} bytes, ${gzip} gzipped = ${(gzip / groups / 1024).toFixed(2)} KB per answered group`,
    );
    // axe-core on the page and on its classes page, at both widths.
    const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const violations: string[] = [];
    for (const width of [1366, 390])
      for (const path of [PAGE, `${PAGE}classes/`]) {
        await p.setViewportSize({ width, height: 900 });
        await p.goto(`${server.url}/${path}`);
        await p.addScriptTag({ content: axeSource });
        const found = await p.evaluate(async () => {
          if (!window.axe) return ['axe-core did not load'];
          const r = await window.axe.run(document, { resultTypes: ['violations'] });
          return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
        });
        violations.push(...found.map((f) => `${path} at ${width}px: ${f}`));
      }
    expect(violations).toEqual([]);
    expect(gzip / groups).toBeLessThanOrEqual(2048);
    expect(heights[1366]! / 900).toBeLessThanOrEqual(20);
  });
});
