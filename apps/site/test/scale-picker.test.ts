/**
 * "Your table size" in Chromium at 1366 and 390 px, over real runs: vacuum-index-cleanup
 * at four table sizes (tests/fixtures/real-runs/scale/, PostgreSQL 15) plus its earlier run at one
 * size, recovery-init-sync swept over three table counts in one run, vacuum-full-rewrite at one
 * size, fillfactor (no scale parameter), and the real `astro build`. A typed size gets, per group,
 * the very answer GET /v1/answers?at=PARAM:VALUE gives over the same database (the sentence, the
 * ratio and its prediction interval, the crossing, the refusal with its command); a bad size gets
 * a sentence beside the field; a scenario measured at too few sizes says which run measures more.
 */
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { RunSubmission, type ScaleAnswers, type ScenarioAnswers } from '@tunelab/contracts';
import { buildApp } from '@tunelab/api';
import type { openResultsDb } from '@tunelab/results-db';
import { openTestResultsDb } from './fresh-db.ts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { buildSite } from './build.ts';
import { REPO_ROOT, SCENARIOS_DIR } from './seed.ts';
import { serveStatic } from './static-server.ts';

const REAL = join(REPO_ROOT, 'tests/fixtures/real-runs');
const realRun = (file: string) =>
  RunSubmission.parse((JSON.parse(readFileSync(join(REAL, file), 'utf8')) as { submission: unknown }).submission);
const FILES = [
  ...readdirSync(join(REAL, 'scale'))
    .filter((f) => f.startsWith('vacuum-index-cleanup-rows-'))
    .map((f) => `scale/${f}`),
  'vacuum-index-cleanup.json',
  'recovery-init-sync.json',
  'vacuum-full-rewrite.json',
  'fillfactor-hot-updates.json',
];

const work = await mkdtemp(join(tmpdir(), 'tl-scale-picker-'));
const dataDir = join(work, 'db');
let out: string;
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
let page: Page;
let db: Awaited<ReturnType<typeof openResultsDb>>;
let app: Awaited<ReturnType<typeof buildApp>>;

beforeAll(async () => {
  const seed = await openTestResultsDb(dataDir);
  try {
    await seed.migrate();
    await seed.importPublished(SCENARIOS_DIR);
    for (const [i, f] of FILES.entries()) await ingestDocument(seed, realRun(f), `scale-picker-${i}`);
  } finally {
    await seed.close();
  }
  out = join(work, 'dist');
  const built = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
  expect(built.code, built.output).toBe(0);
  db = await openTestResultsDb(dataDir);
  app = await buildApp({ resultsDb: db, migrate: false, fleet: false, readRateLimitPerMinute: 100_000 });
  server = await serveStatic(out);
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(20_000);
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await app?.close();
  await db?.close();
  await rm(work, { recursive: true, force: true });
});

/** GET /v1/answers?at=…, with the answers the site is built from (noisy runs left out). */
async function apiAt(scenario: string, at: string): Promise<ScaleAnswers> {
  const res = await app.inject({ method: 'GET', url: `/v1/answers?scenario=${scenario}&noisy=exclude&at=${at}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ScenarioAnswers>().atScale!;
}

/** Types a size into the form, submits it and waits until the page has answered it. */
async function ask(size: string) {
  const form = page.locator('form.scale-picker');
  const before = Number((await form.getAttribute('data-answered')) ?? 0);
  await form.locator('input[name="at"]').fill(size);
  await form.locator('button[type="submit"]').click();
  await page.waitForFunction(
    (n) => Number(document.querySelector<HTMLElement>('form.scale-picker')?.dataset.answered ?? 0) > n,
    before,
  );
}

/** Waits until a page opened with ?at= has answered (or dropped) its size. */
const answeredFromUrl = () =>
  page.waitForFunction(() => document.querySelector<HTMLElement>('form.scale-picker')?.dataset.answered === '1');

/** What the page shows per group and pair. */
const shown = () =>
  page.locator('form.scale-picker .scale-group').evaluateAll((sections) =>
    sections.map((s) => ({
      group: s.getAttribute('data-group')!,
      pairs: Array.from(s.querySelectorAll<HTMLElement>('li.scale-pair')).map((li) => ({
        baseline: li.dataset.baseline,
        candidate: li.dataset.candidate,
        status: li.dataset.status,
        ratio: li.dataset.ratio ?? null,
        piLow: li.dataset.piLow ?? null,
        piHigh: li.dataset.piHigh ?? null,
        sentence: li.querySelector('.scale-sentence')?.textContent ?? '',
        crossing: li.querySelector('.scale-crossing')?.textContent ?? null,
      })),
    })),
  );

/** The API's answer in the same shape, for the groups measured at enough sizes (the ones the page answers for). */
const expected = (api: ScaleAnswers) =>
  api.groups
    .filter((g) => g.pairs.some((p) => p.status !== 'insufficient-data'))
    .map((g) => ({
      group: g.key,
      pairs: g.pairs.map((p) => ({
        baseline: p.baseline,
        candidate: p.candidate,
        status: p.status,
        ratio: p.status === 'answered' ? String(p.ratio) : null,
        piLow: p.status === 'answered' ? String(p.pi95!.low) : null,
        piHigh: p.status === 'answered' ? String(p.pi95!.high) : null,
        sentence: p.sentence,
        crossing: p.crossing ? `Where the order changes: ${p.crossing.sentence}` : null,
      })),
    }));

describe('your table size', () => {
  for (const [width, height] of [
    [1366, 900],
    [390, 844],
  ] as const)
    it(`answers a typed size as GET /v1/answers?at= does, at ${width} px`, async () => {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
      await expect(page.locator('form.scale-picker label').textContent()).resolves.toMatch(/How many rows\?/);
      const statuses = new Set<string>();
      for (const [typed, value] of [
        ['120000', 120_000],
        ['500,000', 500_000],
        ['40M', 40_000_000],
        ['1000', 1_000],
      ] as const) {
        await ask(typed);
        const api = await apiAt('vacuum-index-cleanup', `rows:${value}`);
        const want = expected(api);
        // The four sizes' class answers; the earlier run at one size is no group the page answers for.
        expect(api.groups.length).toBeGreaterThan(want.length);
        expect(want).toHaveLength(1);
        await expect(shown()).resolves.toEqual(want);
        for (const g of want) for (const p of g.pairs) statuses.add(p.status);
        // The address says the size, as the API reads it.
        expect(new URL(page.url()).searchParams.get('at')).toBe(`rows:${value}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      }
      // Inside and outside the documented factor both met.
      expect([...statuses].sort()).toEqual(['answered', 'refused']);
      // The four sizes are one scenario version and the earlier run another: the answer says which
      // version it comes from, as the cards beside it do.
      await expect(page.locator('.scale-where').first().textContent()).resolves.toMatch(
        / · scenario version \d of 2 \(first seen \d{4}-\d\d-\d\d\):$/,
      );
      await expect(page.locator('.scale-range').textContent()).resolves.toMatch(
        /PostgreSQL 15, scenario version \d of 2 \(first seen /,
      );
      // 40 M rows is refused with the command that measures it, set as code.
      await ask('40000000');
      await expect(page.locator('.scale-pair code').first().textContent()).resolves.toBe(
        'tunelab run vacuum-index-cleanup --param rows=40000000 --server 15',
      );
      // A shared address answers at its size.
      await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/?at=rows:120000`);
      await answeredFromUrl();
      await expect(page.locator('form.scale-picker input[name="at"]').inputValue()).resolves.toBe('120000');
      await expect(shown()).resolves.toEqual(expected(await apiAt('vacuum-index-cleanup', 'rows:120000')));
    });

  it('says beside the field what is wrong with a bad size, and answers nothing', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
    await ask('120000');
    expect((await shown()).length).toBe(1);
    for (const [typed, message] of [
      ['', /^Type a number of rows \(e\.g\. /],
      ['-5', /^A number of rows is at least 1\.$/],
      ['many', /^“many” is not a number of rows: type digits/],
      ['0', /^A number of rows is at least 1\.$/],
    ] as const) {
      await ask(typed);
      const error = page.locator('form.scale-picker .field-error');
      await expect(error.textContent()).resolves.toMatch(message);
      expect(await error.isVisible()).toBe(true);
      await expect(page.locator('form.scale-picker input[name="at"]').getAttribute('aria-invalid')).resolves.toBe(
        'true',
      );
      expect(await shown()).toEqual([]);
    }
    // A good size clears the message.
    await ask('200000');
    await expect(page.locator('form.scale-picker .field-error').textContent()).resolves.toBe('');
    expect((await shown()).length).toBe(1);
  });

  it('answers at a table count from the swept points of one run', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${server.url}/scenarios/recovery-init-sync/`);
    await expect(page.locator('form.scale-picker .picker-title').textContent()).resolves.toBe('Your tables');
    await ask('20,000');
    const want = expected(await apiAt('recovery-init-sync', 'tables:20000'));
    expect(want).toHaveLength(1);
    await expect(shown()).resolves.toEqual(want);
  });

  it('without enough measured sizes, says which run measures them; without a scale parameter, nothing', async () => {
    await page.goto(`${server.url}/scenarios/vacuum-full-rewrite/`);
    expect(await page.locator('form.scale-picker').count()).toBe(0);
    const api = await apiAt('vacuum-full-rewrite', 'rows:600000');
    const insufficient = api.groups[0]!.pairs[0]!;
    expect(insufficient.status).toBe('insufficient-data');
    const text = await page.locator('.scale-not-yet').textContent();
    expect(text).toContain(insufficient.sentence);
    expect(text).toContain('tunelab run vacuum-full-rewrite --scale-sweep');
    await page.goto(`${server.url}/scenarios/fillfactor-hot-updates/`);
    expect(await page.locator('form.scale-picker, .scale-not-yet').count()).toBe(0);
  });

  it('carries the curves, not the samples, and its script only where the form is', async () => {
    const html = await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8');
    const attr = /data-curves="([^"]*)"/.exec(html)?.[1] ?? '';
    expect(attr.length).toBeGreaterThan(0);
    expect(attr.length).toBeLessThan(8_000);
    const script = /<script type="module" src="([^"]*ScalePickerScript[^"]*)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    for (const other of ['vacuum-full-rewrite', 'fillfactor-hot-updates'])
      expect(await readFile(join(out, `scenarios/${other}/index.html`), 'utf8')).not.toContain('ScalePickerScript');
  });

  for (const [width, height] of [
    [1366, 900],
    [390, 844],
  ] as const)
    it(`passes axe-core with an answer and with an error shown, at ${width} px`, async () => {
      const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
      const violations = async () => {
        await page.addScriptTag({ content: axeSource });
        return page.evaluate(async () => {
          if (!window.axe) return ['axe-core did not load'];
          const r = await window.axe.run(document, { resultTypes: ['violations'] });
          return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
        });
      };
      await page.setViewportSize({ width, height });
      await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/?at=rows:120000`);
      await answeredFromUrl();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await violations(), scheme).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await ask('lots');
      expect(await violations()).toEqual([]);
    });
});
