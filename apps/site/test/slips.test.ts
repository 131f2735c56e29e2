/**
 * Slips the site showed as fact, each fixed where the site makes it, on a built site
 * (real `astro build` from a temporary PGlite database) in Chromium:
 * - a machine whose runner detected no hypervisor said "Virtualization: none reported" (on a VM);
 * - a metric without a label (innodb-compression-insert's `rows_per_s`) was shown by its key;
 * - the scenario page had two elements with id="versions";
 * - two measured groups of one class and server at two scales had the same heading;
 * - "Your table size" said "No measured runs of this scenario yet" under a measured run that did
 *   not record its size.
 * (The "0 0 0" axis ticks are src/lib/charts.test.ts'.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { RunSubmission } from '@tunelab/contracts';
import { openTestResultsDb } from './fresh-db.ts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { buildSite } from './build.ts';
import { SCENARIOS_DIR, sampleRun, sweepAndSeriesRuns } from './seed.ts';
import { serveStatic } from './static-server.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-site-slips-'));
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
let page: Page;
let hardwarePage = '';

beforeAll(async () => {
  const dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    await db.importPublished(SCENARIOS_DIR);
    let n = 0;
    for (const major of [15, 17])
      for (const rows of [200_000, 400_000]) {
        const s = sampleRun({ cores: 8, memoryGb: 32, disk: 'ssd', cpuModel: 'Undetected VM CPU' }, n, undefined, {
          params: { rows },
        });
        const submission = RunSubmission.parse({
          ...s,
          // A virtual machine the runner's probe did not recognise.
          hardware: { ...s.hardware, virtualization: null },
          database: { ...s.database, major, minor: 1, version: `PostgreSQL ${major}.1 on x86_64-pc-linux-gnu` },
        });
        const r = await ingestDocument(db, submission, `slips-${n++}`);
        hardwarePage = `/runs/${r.run.id}/`;
      }
    for (const [i, s] of sweepAndSeriesRuns({
      cores: 2,
      memoryGb: 24,
      disk: 'ssd',
      cpuModel: 'AMD EPYC 7B13',
    }).entries())
      await ingestDocument(db, s, `slips-series-${i}`);
  } finally {
    await db.close();
  }
  const out = join(work, 'dist');
  const built = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
  expect(built.code, built.output).toBe(0);
  server = await serveStatic(out);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

describe('slips shown as fact', () => {
  it('a machine without a detected hypervisor: "not detected", never "none reported"', async () => {
    // The run page links its machine's hardware page.
    await page.goto(`${server.url}${hardwarePage}`);
    await page.locator('main a[href^="/hardware/"]:not([href="/hardware/"])').first().click();
    const text = await page.locator('main').innerText();
    expect(text).not.toContain('none reported');
    expect(text).toMatch(/Virtualization\s+not detected \(the runner found no hypervisor/);
  });

  it('a metric without a label is shown by its name in words, not its key', async () => {
    await page.goto(`${server.url}/scenarios/innodb-compression-insert/`);
    // Visible text only: keys may stay in code, downloads and attributes.
    const text = await page.locator('main').evaluate((m) => {
      for (const d of Array.from(m.querySelectorAll('details'))) d.setAttribute('open', '');
      const clone = m.cloneNode(true) as HTMLElement;
      for (const c of Array.from(clone.querySelectorAll('code, svg title, svg desc'))) c.remove();
      return (
        clone.innerText +
        Array.from(m.querySelectorAll('svg text'))
          .map((t) => t.textContent)
          .join(' ')
      );
    });
    expect(text).not.toMatch(/rows_per_s/);
    expect(text).toContain('rows per second');
  });

  it('a measured run that recorded no size: "Your table size" says so, never "no measured runs"', async () => {
    await page.goto(`${server.url}/scenarios/innodb-compression-insert/`);
    const main = await page.locator('main').innerText();
    expect(main).toMatch(/\b1 measured run\b/);
    const notYet = await page.locator('.scale-not-yet').innerText();
    expect(notYet).toContain('No measured run of this scenario recorded its rows.');
    expect(notYet).toContain('tunelab run innodb-compression-insert --scale-sweep');
    expect(main).not.toContain('No measured runs of this scenario yet');
  });

  it('the scenario page has no id twice, and each measured group an entry of its own (server and scale)', async () => {
    await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
    const ids = await page.locator('[id]').evaluateAll((es) => es.map((e) => e.id));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids).toContain('versions');
    expect(ids).toContain('scenario-versions');
    const headings = await page
      .locator('li.measured-entry > a')
      .evaluateAll((hs) => hs.map((h) => (h.textContent ?? '').trim()));
    const mine = headings.filter((h) => h.includes('8 cores / 32 GB'));
    expect(mine).toHaveLength(4);
    expect(new Set(mine).size).toBe(4);
    for (const h of mine) expect(h).toMatch(/PostgreSQL 1[57] · rows = [24]00,000/);
  });

  it('writes screenshots of the pages at 1366 and 390 px to look at (outside the checkout)', async () => {
    for (const [width, height] of [
      [1366, 900],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const [name, path, at] of [
        ['vacuum-versions', '/scenarios/vacuum-index-cleanup/', '#versions'],
        ['vacuum-differences', '/scenarios/vacuum-index-cleanup/', '#differences'],
        ['vacuum-measured', '/scenarios/vacuum-index-cleanup/', '#measured'],
        ['innodb-top', '/scenarios/innodb-compression-insert/', 'h1'],
        ['innodb-charts', '/scenarios/innodb-compression-insert/', '#charts'],
      ] as const) {
        await page.goto(`${server.url}${path}`);
        await page.locator(at).evaluate((e) => e.scrollIntoView());
        await page.screenshot({ path: join(tmpdir(), `tunelab-slips-${name}-${width}.png`) });
      }
    }
  });
});
