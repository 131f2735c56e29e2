/**
 * A page never goes blank (the real `astro build` into a temp dir, looked at in Chromium):
 * - a results database whose measured runs were all flagged noisy (the demo on a busy VM) shows
 *   them on the home page and the scenario page, labelled as left out of the verdict with why, the
 *   same groups and verdicts GET /v1/answers?noisy=exclude gives in `leftOut`; the feed says so;
 * - a database with only the articles imported shows, per scenario, the article's own findings
 *   (GET /v1/answers' `articleFindings`, from the imported figures), said as not measured here.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { judgeNoise, RunSubmission, type ScenarioAnswers } from '@tunelab/contracts';
import { buildApp } from '@tunelab/api';
import { ingestDocument } from '@tunelab/results-db/testing';
import { openTestResultsDb } from './fresh-db.ts';
import { buildSite } from './build.ts';
import { NOISY } from './noisy-run.ts';
import { SAMPLE, SCENARIOS_DIR, sampleRun } from './seed.ts';
import { serveStatic } from './static-server.ts';

const LABEL = 'measured on a noisy machine: does not count towards the verdict';
const SCENARIO = SAMPLE.scenario.key;

const work = await mkdtemp(join(tmpdir(), 'tl-left-out-'));
let browser: Browser;
// One page throughout: Chromium here runs as a single process, and closing a page can end it.
let page: Page;

/** A site built from a database `fill` made, served, and GET /v1/answers over the same database. */
async function built(name: string, fill: (db: Awaited<ReturnType<typeof openTestResultsDb>>) => Promise<void>) {
  const dataDir = join(work, `${name}-db`);
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    await fill(db);
  } finally {
    await db.close();
  }
  const out = join(work, `${name}-dist`);
  const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
  expect(build.code, build.output).toBe(0);
  const server = await serveStatic(out);
  const answers = async (scenario: string): Promise<ScenarioAnswers> => {
    const api = await openTestResultsDb(dataDir);
    const app = await buildApp({ resultsDb: api, migrate: false, fleet: false, readRateLimitPerMinute: 100_000 });
    try {
      // The site answers with noisy runs left out (its default).
      const res = await app.inject({ method: 'GET', url: `/v1/answers?scenario=${scenario}&noisy=exclude` });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<ScenarioAnswers>();
    } finally {
      await app.close();
      await api.close();
    }
  };
  return { out, server, answers };
}

let noisy: Awaited<ReturnType<typeof built>>;
let articles: Awaited<ReturnType<typeof built>>;

beforeAll(async () => {
  expect(judgeNoise(NOISY).noisy).toBe(true);
  // The demo's data on a busy VM: two runs, both flagged noisy, and the articles.
  noisy = await built('noisy', async (db) => {
    await db.importPublished(SCENARIOS_DIR);
    for (const run of [0, 1]) {
      const s = sampleRun({ cores: 2, memoryGb: 8, disk: 'ssd' }, run);
      await ingestDocument(db, RunSubmission.parse({ ...s, noise: NOISY }), `left-out-noisy-${run}`);
    }
  });
  // Only the articles imported: nothing measured.
  articles = await built('articles', (db) => db.importPublished(SCENARIOS_DIR).then(() => undefined));
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  await page.setViewportSize({ width: 1366, height: 900 });
});
afterAll(async () => {
  await browser?.close();
  await noisy?.server.close();
  await articles?.server.close();
  await rm(work, { recursive: true, force: true });
});

describe('a build whose measured runs were all flagged noisy', () => {
  it('shows them on the home page, labelled as left out of the verdict, the API’s strongest left-out answer', async () => {
    const api = await noisy.answers(SCENARIO);
    expect(api.groups).toEqual([]);
    expect(api.leftOut.length).toBeGreaterThan(0);
    await page.goto(`${noisy.server.url}/`);
    const line = page.locator(`.answer-line[data-scenario="${SCENARIO}"]`);
    await expect(line.count()).resolves.toBe(1);
    await expect(line.getAttribute('data-left-out')).resolves.toBe('noisy');
    const text = (await line.textContent())!.replace(/\s+/g, ' ');
    expect(text).toContain(`${LABEL.charAt(0).toUpperCase()}${LABEL.slice(1)}`);
    expect(text).toContain('flagged noisy');
    // The line is one of the API's left-out answers: its group, its pair and its advice.
    const group = await line.getAttribute('data-group');
    const a = api.leftOut.find((g) => g.group.key === group)!;
    expect(a, `group ${group} among ${api.leftOut.map((g) => g.group.key).join(', ')}`).toBeDefined();
    expect(a.leftOut?.label).toBe(LABEL);
    const p = a.pairs.find((x) => x.candidate === '1-2')!;
    const baseline = await line.getAttribute('data-baseline');
    const candidate = await line.getAttribute('data-candidate');
    const shown = a.pairs.find((x) => x.baseline === baseline && x.candidate === candidate) ?? p;
    expect(text).toContain(shown.advice);
    // The scenario is not said to be unmeasured.
    await expect(
      page.locator('p.meta', { hasText: 'Not measured yet' }).locator(`a[href="/scenarios/${SCENARIO}/"]`).count(),
    ).resolves.toBe(0);
  });

  it('shows every left-out group on the scenario page as a card with its label and why, never “Not measured yet”', async () => {
    const api = await noisy.answers(SCENARIO);
    await page.goto(`${noisy.server.url}/scenarios/${SCENARIO}/`);
    const cards = page.locator('section.answer .answer-card.left-out');
    await expect(cards.count()).resolves.toBe(api.leftOut.length);
    for (const [i, a] of api.leftOut.entries()) {
      const card = cards.nth(i);
      await expect(card.getAttribute('data-group')).resolves.toBe(a.group.key);
      await expect(card.locator('.left-out-label').textContent()).resolves.toContain(
        `${a.leftOut!.label} — ${a.leftOut!.why}`,
      );
      // Its verdicts are the API's, pair by pair.
      for (const p of a.pairs)
        await expect(
          card
            .locator(`li.answer-pair[data-baseline="${p.baseline}"][data-candidate="${p.candidate}"]`)
            .getAttribute('data-agreement'),
        ).resolves.toBe(p.agreement);
    }
    const body = await page.evaluate(() => document.body.innerText);
    expect(body).not.toContain('Not measured yet');
  });

  it('labels the feed’s entries of those runs the same way', async () => {
    const feed = await readFile(join(noisy.out, 'feed.xml'), 'utf8');
    const titles = [...feed.matchAll(/<title>(.*?)<\/title>/g)].map((m) => m[1]!).slice(1);
    expect(titles.length).toBeGreaterThan(0);
    for (const t of titles) expect(t).toContain(`(${LABEL})`);
  });
});

describe('a build with only the articles imported', () => {
  it('shows on the home page, per scenario, the article’s own finding as the API gives it, not measured here', async () => {
    await page.goto(`${articles.server.url}/`);
    const lines = page.locator('.answer-line.article-line');
    const scenarios = await lines.evaluateAll((els) => els.map((e) => e.getAttribute('data-scenario')!));
    expect(scenarios.length).toBeGreaterThan(0);
    for (const key of scenarios) {
      const api = await articles.answers(key);
      expect(api.groups).toEqual([]);
      const text = (await lines
        .filter({ has: page.locator(`a[href="/scenarios/${key}/"]`) })
        .first()
        .locator('.line-answer')
        .textContent())!;
      const sentences = api.articleFindings.map((f) => `${f.sentence.charAt(0).toUpperCase()}${f.sentence.slice(1)}.`);
      expect(sentences, key).toContain(text.trim());
      expect(text).toMatch(/^The article found .+; not yet measured here\.$/);
    }
    // vacuum-index-cleanup's line quotes the article's means as imported.
    const vic = await articles.answers('vacuum-index-cleanup');
    const shown = vic.articleFindings.find((f) => f.figure.kind === 'comparison' && f.figure.outcome === 'faster')!;
    for (const v of [shown.baseline, shown.candidate])
      expect(shown.sentence).toContain(
        `${Number(shown.figure.values[v]!.toPrecision(4)).toLocaleString('en-US')} s for ${v}`,
      );
    // Every scenario that has findings has its line; none is listed as a bare "not measured yet".
    for (const key of [
      'vacuum-index-cleanup',
      'vacuum-full-rewrite',
      'recovery-init-sync',
      'fillfactor-hot-updates',
      'innodb-compression-insert',
    ])
      if ((await articles.answers(key)).articleFindings.length > 0) expect(scenarios, key).toContain(key);
  });

  it('lists every finding of the article on the scenario page', async () => {
    const api = await articles.answers('vacuum-index-cleanup');
    await page.goto(`${articles.server.url}/scenarios/vacuum-index-cleanup/`);
    const items = await page.locator('section.article-findings li').allTextContents();
    expect(items.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual(
      api.articleFindings.map((f) => `${f.sentence.charAt(0).toUpperCase()}${f.sentence.slice(1)}.`),
    );
  });
});
