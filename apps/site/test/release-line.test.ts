/**
 * The release line in Chromium (the real `astro build` over an embedded results database):
 * vacuum-index-cleanup's pair measured on eight PostgreSQL releases across 16 and 17 with a +15 %
 * change planted at 17.3, and vacuum-full-rewrite's on one release only. The first scenario's page
 * draws one line through the eight releases with one change marked, at 17.3, its size in the
 * table; the second has no release line; the feed carries the change as a new event. At 1366 and
 * 390 px, light and dark, the drawing fits the page and screenshots go to TUNELAB_SHOTS_DIR when set.
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
    const runs = releaseRuns({ releases: RELEASES, stepAt: '17.3', step: 0.15, runsPerRelease: 2, seed: 5 });
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
    const rows = await figure.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^17\.317\.2\+1\d\.\d% \(95% CI \+.*\), adjusted p/);
  });

  it('is absent where one release is measured', async () => {
    await page.goto(`${site!.url}/scenarios/vacuum-full-rewrite/`);
    await expect(page.locator('#release-line').count()).resolves.toBe(0);
  });

  it('the feed carries the change as a new event linking to the line', async () => {
    const feed = await readFile(join(out, 'feed.xml'), 'utf8');
    const entry =
      /<entry>\s*<id>tag:tunelab,2026:release-event\/[^<]+<\/id>\s*<title>([^<]+)<\/title>[\s\S]*?<link [^>]*href="([^"]+)"/.exec(
        feed,
      );
    expect(entry?.[1]).toMatch(
      /^vacuum-index-cleanup on .*: PostgreSQL 17\.3 changed 1-2 vs 1-1 by \+1\d\.\d% from 17\.2 \(new\)$/,
    );
    expect(entry?.[2]).toMatch(/\/scenarios\/vacuum-index-cleanup\/#release-line$/);
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
