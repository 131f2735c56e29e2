/**
 * The release line in Chromium (the real `astro build` over an embedded results database):
 * vacuum-index-cleanup's pair measured on eight PostgreSQL releases across 16 and 17 with a +15 %
 * change planted at 17.3 and, on 16.2, twelve runs whose ratio rose by about 16 % after the sixth
 * (a change over time, its pooled ratio unmoved), and vacuum-full-rewrite's on one release only.
 * The first scenario's page draws one line through the eight releases with one change marked, at
 * 17.3, its size in the table, and 16.2 ringed with the run its change over time starts at; the
 * second has no release line; the feed carries both changes as new events. At 1366 and 390 px,
 * light and dark, the drawing fits the page and screenshots go to TUNELAB_SHOTS_DIR when set.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ingestDocument, releaseRuns } from '@tunelab/results-db/testing';
import { openTestResultsDb } from './fresh-db.ts';
import { openBuiltSite } from './open-site.ts';

const RELEASES = ['16.2', '16.4', '16.8', '17.0', '17.2', '17.3', '17.4', '17.6'];
const SHOTS = process.env.TUNELAB_SHOTS_DIR;

const work = await mkdtemp(join(tmpdir(), 'tl-release-line-'));
const dataDir = join(work, 'db');
let out: string;
let site: Awaited<ReturnType<typeof openBuiltSite>> | undefined;
let page: Page;

beforeAll(async () => {
  const db = await openTestResultsDb(dataDir);
  try {
    // 16.2 drifts from 7.5 % below the pair's ratio to 7.5 % above it, six runs each side.
    const drifting = (step: number, seed: number) =>
      releaseRuns({ releases: ['16.2'], runsPerRelease: 6, stepAt: '16.2', step, seed });
    const runs = [
      ...drifting(-0.075, 31),
      ...drifting(0.075, 32),
      ...releaseRuns({ releases: RELEASES.slice(1), stepAt: '17.3', step: 0.15, runsPerRelease: 2, seed: 5 }),
    ];
    for (const [i, doc] of runs.entries()) await ingestDocument(db, doc, `release-line-${i}`);
    const [one] = releaseRuns({ releases: ['17.4'], runsPerRelease: 1 });
    const other = { ...one!, scenario: { ...(one!.scenario as object), key: 'vacuum-full-rewrite' } };
    await ingestDocument(db, other, 'release-line-other');
  } finally {
    await db.close();
  }
  out = join(work, 'dist');
  site = await openBuiltSite(out, dataDir);
  page = site.page;
});
afterAll(async () => {
  await site?.close();
  await rm(work, { recursive: true, force: true });
});

describe('the release line', () => {
  it('draws the eight releases with the one change marked at 17.3', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${site!.url}/scenarios/vacuum-index-cleanup/`);
    const section = page.locator('#release-line');
    await expect(section.count()).resolves.toBe(1);
    const figure = section.locator('figure');
    await expect(figure.count()).resolves.toBe(1);
    expect(await figure.locator('svg.wide text.release').allTextContents()).toEqual(RELEASES);
    expect(await figure.locator('svg.wide text.mark-label').allTextContents()).toEqual([
      expect.stringMatching(/^17\.3 \+1\d\.\d%$/),
    ]);
    expect(await figure.locator('svg.wide text.major').allTextContents()).toEqual(['16', '17']);
    const rows = await figure.locator('table:not(.drift) tbody tr').allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^17\.317\.2\+1\d\.\d% \(\d\d\.\d% CI \+.*\), adjusted p/);
  });

  it('rings 16.2, whose ratio changed over time, and names the run the change starts at', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${site!.url}/scenarios/vacuum-index-cleanup/`);
    const figure = page.locator('#release-line figure');
    await expect(figure.locator('svg.wide circle.drift-ring').count()).resolves.toBe(1);
    const ringX = Number(await figure.locator('svg.wide circle.drift-ring').getAttribute('cx'));
    const firstDotX = Number(await figure.locator('svg.wide circle.dot').first().getAttribute('cx'));
    expect(ringX).toBe(firstDotX);
    expect(await figure.locator('table.drift tbody tr').allTextContents()).toEqual([
      expect.stringMatching(
        /^16\.2run 7 of 12, received \d{4}-\d\d-\d\d\+1\d\.\d% \(×0\.7\d\d to ×0\.8\d\d\), p < 0\.001$/,
      ),
    ]);
  });

  it('is absent where one release is measured', async () => {
    await page.goto(`${site!.url}/scenarios/vacuum-full-rewrite/`);
    await expect(page.locator('#release-line').count()).resolves.toBe(0);
  });

  it('the feed carries both changes as new events linking to the line', async () => {
    const feed = await readFile(join(out, 'feed.xml'), 'utf8');
    const entries = [
      ...feed.matchAll(
        /<entry>\s*<id>tag:tunelab,2026:release-event\/[^<]+<\/id>\s*<title>([^<]+)<\/title>[\s\S]*?<link [^>]*href="([^"]+)"/g,
      ),
    ];
    expect(entries.map((e) => e[1]).sort()).toEqual([
      expect.stringMatching(
        /^vacuum-index-cleanup on .*: 1-2 vs 1-1 changed over time on PostgreSQL 16\.2 by \+1\d\.\d% from the run received \d{4}-\d\d-\d\d \(new\)$/,
      ),
      expect.stringMatching(
        /^vacuum-index-cleanup on .*: PostgreSQL 17\.3 changed 1-2 vs 1-1 by \+1\d\.\d% from 17\.2 \(new\)$/,
      ),
    ]);
    for (const e of entries) expect(e[2]).toMatch(/\/scenarios\/vacuum-index-cleanup\/#release-line$/);
    // The step's entry gives one interval, the one adjusted with its p, as the step's sentence words it.
    const step = feed.match(/<summary[^>]*>(17\.3 changed the ratio by [^<]+)<\/summary>/)?.[1];
    expect(step).toMatch(/^17\.3 changed the ratio by \+1\d\.\d% \(\d\d\.\d% CI [^)]+\) from 17\.2, adjusted p/);
    expect(step!.match(/% CI/g)).toHaveLength(1);
  });

  for (const [width, height] of [
    [1366, 900],
    [390, 844],
  ] as const)
    for (const scheme of ['light', 'dark'] as const)
      it(`fits the page at ${width} px (${scheme})`, async () => {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${site!.url}/scenarios/vacuum-index-cleanup/`);
        const svg = page.locator(`#release-line svg.${width > 600 ? 'wide' : 'narrow'}`).first();
        await svg.scrollIntoViewIfNeeded();
        const box = (await svg.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        expect(box.height).toBeGreaterThan(60);
        const scrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
        expect(scrolls).toBe(false);
        if (SHOTS)
          await page.locator('#release-line').screenshot({ path: join(SHOTS, `release-line-${width}-${scheme}.png`) });
      });
});
