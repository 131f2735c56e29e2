/**
 * A machine that ran `tunelab probe` shows its measured storage tier — never "virtual or
 * unknown disk" — on the hardware list, its hardware page (with a table of its probes) and its run
 * pages (the run's own figures), on a built site (real `astro build` from a temporary PGlite
 * database) in Chromium.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { RunSubmission, type MeasuredHardware } from '@tunelab/contracts';
import { openTestResultsDb } from './fresh-db.ts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { buildSite } from './build.ts';
import { sampleRun } from './seed.ts';
import { serveStatic } from './static-server.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-site-probe-'));
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
let page: Page;
const runs: string[] = [];
let fingerprint = '';

const figures = (fsyncP50Us: number, cpuScore: number, day: number): MeasuredHardware => ({
  measuredAt: `2026-11-2${day}T03:00:00.000Z`,
  durationMs: 4800,
  diskTool: 'fio-3.33',
  fsyncP50Us,
  fsyncP99Us: fsyncP50Us * 5,
  fsyncSamples: 400,
  readIopsQd1: 15_000,
  readIopsQd16: 45_000,
  seqWriteMBps: 220,
  cpuScore,
  cpuWorkload: 'tunelab-cpu-1/node-20',
  notes: [],
});

beforeAll(async () => {
  const dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    for (const [i, m] of [figures(155, 1693, 4), figures(3900, 1335, 5)].entries()) {
      const s = sampleRun({ cores: 2, memoryGb: 24, disk: 'unknown', cpuModel: 'Probed VM CPU' }, i);
      const r = await ingestDocument(
        db,
        RunSubmission.parse({ ...s, hardware: { ...s.hardware, measured: m } }),
        `p-${i}`,
      );
      runs.push(r.run.id);
      fingerprint = r.run.hardware.fingerprint;
    }
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

describe('measured storage on the site', () => {
  it('the hardware list names the measured tier, not "virtual or unknown disk"', async () => {
    await page.goto(`${server.url}/hardware/`);
    const row = page.locator('tr', { has: page.locator(`a[href="/hardware/${fingerprint}/"]`) });
    expect(await row.locator('th').innerText()).toBe('2 cores / 24 GB / SSD-like');
    expect(await row.locator('td[data-label="Storage"]').innerText()).toMatch(/^SSD-like \(measured\)/);
    expect(await page.locator('main').innerText()).not.toContain('unknown disk');
  });

  it('the hardware page lists every probe, newest first, and says where its tier came from', async () => {
    await page.goto(`${server.url}/hardware/${fingerprint}/`);
    const main = await page.locator('main').innerText();
    expect(main).toMatch(/Storage\s+SSD-like, from its first probe's figures/);
    expect(main).not.toContain('unknown disk');
    const rows = page.locator('table.probe tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator('td[data-label="fsync p50 (ms)"]').innerText()).toBe('3.90');
    expect(await rows.nth(1).locator('td[data-label="fsync p50 (ms)"]').innerText()).toBe('0.16');
    expect(await rows.nth(1).locator('td[data-label="CPU score"]').innerText()).toBe('1,693');
    expect(await rows.nth(0).locator('td[data-label="Tier"]').innerText()).toBe('SSD-like');
    expect(await rows.nth(0).locator('th a').getAttribute('href')).toBe(`/runs/${runs[1]}/`);
  });

  it("a run page shows that run's own figures and why they give the tier", async () => {
    await page.goto(`${server.url}/runs/${runs[1]}/`);
    const main = await page.locator('main').innerText();
    expect(main).toMatch(/2 cores, 24\.0 GiB, SSD-like|2 cores, [^,]+, SSD-like/);
    expect(main).toMatch(/Measured before the run\s+15,000 random reads\/s at queue depth 1 \(local flash\)/);
    const rows = page.locator('table.probe tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('td[data-label="fsync p50 (ms)"]').innerText()).toBe('3.90');
  });
});
