/**
 * The built site end to end: results database → astro build → static server → Chromium.
 * Screenshots of every page visited go to apps/site/test-output/screenshots/.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openResultsDb } from '@tunelab/results-db';
import { buildSite, SITE_DIR } from './build.ts';
import { seedDemo } from './seed.ts';
import { serveStatic } from './static-server.ts';

const SCREENSHOTS = join(SITE_DIR, 'test-output/screenshots');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tunelab-site-'));
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function freshDb(name: string, fill: 'seed' | 'empty'): Promise<string> {
  const dir = join(work, name);
  const db = await openResultsDb(undefined, { dataDir: dir });
  try {
    if (fill === 'seed') await seedDemo(db);
    else await db.migrate();
  } finally {
    await db.close();
  }
  return dir;
}

describe('site built from a results database with measured and published runs', () => {
  let out: string;
  let server: Awaited<ReturnType<typeof serveStatic>>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const dataDir = await freshDb('seeded', 'seed');
    out = join(work, 'dist-seeded');
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    expect(build.code, build.output).toBe(0);
    server = await serveStatic(out);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 }, javaScriptEnabled: false });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('home → scenario → hardware → run, without JavaScript', async () => {
    await page.goto(`${server.url}/`);
    await expect(page.locator('h1').textContent()).resolves.toContain('faster on hardware like yours');
    const card = page.locator('section.card', { hasText: 'vacuum-index-cleanup' });
    await expect(card.textContent()).resolves.toMatch(/2 cores \/ 24 GB \/ SSD.*1-2 is [\d.]+% faster than 1-1/s);
    await expect(card.textContent()).resolves.toMatch(/4 measured runs on 2 machines · newest data \d{4}-\d{2}-\d{2}/);
    await page.screenshot({ path: join(SCREENSHOTS, '1-home.png'), fullPage: true });

    await card.locator('h2 a').click();
    await page.waitForURL('**/scenarios/vacuum-index-cleanup/');
    // The article's table for server 1, in its own format: h:mm:ss averages and its "37%".
    const server1 = page.locator('table.published-table[data-machine="server-1"]');
    const headers = await server1.locator('thead th').allTextContents();
    expect(headers).toEqual(['Variant', 'Run 1', 'Run 2', 'Run 3', 'Run 4', 'Run 5', 'AVG', '% faster']);
    const row11 = await server1.locator('tbody tr', { hasText: '1-1' }).locator('td').allTextContents();
    const row12 = await server1.locator('tbody tr', { hasText: '1-2' }).locator('td').allTextContents();
    expect(row11).toEqual(['0:03:46', '0:03:42', '0:03:53', '0:03:44', '0:03:47', '0:03:46', '']);
    expect(row12.slice(5)).toEqual(['0:02:21', '37%']);
    await expect(page.locator('#published-server-1 .verdict').first().textContent()).resolves.toContain('1-2 is 37.5% faster than 1-1');
    // The question and method come from the scenario's README.
    await expect(page.locator('article.readme').textContent()).resolves.toContain('INDEX_CLEANUP on');
    // Measured tables per hardware class with n, CI and a verdict sentence.
    const measured = page.locator('section.measured-group');
    expect(await measured.count()).toBe(2);
    const ssd = measured.filter({ hasText: '2 cores / 24 GB / SSD' });
    expect(await ssd.locator('table.measured-table thead th').allTextContents()).toEqual(['Variant', 'Repetitions', 'AVG', 'n', '95% CI of the mean', '% faster']);
    expect(await ssd.locator('table.measured-table tbody tr').count()).toBe(4);
    await expect(ssd.locator('.verdict').first().textContent()).resolves.toMatch(/1-2 is [\d.]+% faster than 1-1 \(95% CI .*n = 6 \+ 6\)/);
    // Charts: build-time SVG with a text alternative.
    const charts = page.locator('figure.chart');
    expect(await charts.count()).toBeGreaterThanOrEqual(4);
    await expect(charts.first().locator('[role="img"]').getAttribute('aria-label')).resolves.toBeTruthy();
    await expect(charts.first().locator('svg title').textContent()).resolves.toBeTruthy();
    await expect(page.locator('#differences + figure svg title').textContent()).resolves.toContain('1-2 vs 1-1');
    // Settings that differ: the article's server vs the measured machines.
    await expect(page.locator('#settings + .table-scroll table').textContent()).resolves.toContain('shared_buffers');
    await page.screenshot({ path: join(SCREENSHOTS, '2-scenario.png'), fullPage: true });

    await ssd.locator('p.meta a').first().click();
    await page.waitForURL('**/runs/*/');
    await page.goBack();
    await page.goto(`${server.url}/hardware/`);
    await page.locator('table a', { hasText: '2 cores / 24 GB / SSD' }).click();
    await page.waitForURL('**/hardware/*/');
    await expect(page.locator('dl.spec').textContent()).resolves.toContain('AMD EPYC 7B13');
    await expect(page.locator('#scenarios + .table-scroll').textContent()).resolves.toContain('VACUUM INDEX_CLEANUP');
    const similar = await page.locator('table.similar tbody tr').allTextContents();
    expect(similar.length).toBeGreaterThanOrEqual(2);
    expect(similar[0]).toContain('2 cores / 24 GB / SSD');
    await page.screenshot({ path: join(SCREENSHOTS, '3-hardware.png'), fullPage: true });

    await page.locator('#scenarios + .table-scroll a[href^="/runs/"]').first().click();
    await page.waitForURL('**/runs/*/');
    const command = await page.locator('code.reproduce').textContent();
    expect(command).toMatch(/^tunelab run vacuum-index-cleanup --target \S+ --repetitions 3 --param fillfactor=100 --param rows=200000$/);
    await expect(page.locator('table.samples tbody tr').count()).resolves.toBe(12);
    expect(await page.locator('table.samples thead th').allTextContents()).toEqual(['Variant', 'Repetition', 'duration (s)', 'table_size_after (bytes)', 'wal_bytes (bytes)']);
    await expect(page.locator('#notes ~ section.note pre').first().textContent()).resolves.toContain('vacuuming');
    await expect(page.locator('#environment + dl').textContent()).resolves.toContain('PostgreSQL 15.19');
    await page.screenshot({ path: join(SCREENSHOTS, '4-run.png'), fullPage: true });
  });

  it('reads well on a phone: the page never scrolls sideways, wide tables scroll on their own', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    await phone.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.screenshot({ path: join(SCREENSHOTS, '5-scenario-phone.png'), fullPage: false });
    await phone.close();
  });

  it('publishes the data behind the tables and an Atom feed of findings', async () => {
    const csv = await readFile(join(out, 'downloads/scenarios/vacuum-index-cleanup/published.csv'), 'utf8');
    expect(csv.split('\r\n')[0]).toBe('machine,label,variant,repetition,seconds,avg_as_printed,pct_faster');
    expect(csv).toContain('server-1,"8 cores, 32 GB RAM, SSD",1-2,1,143,0:02:21,37%');
    const json = JSON.parse(await readFile(join(out, 'downloads/comparisons.json'), 'utf8')) as unknown[];
    expect(json.length).toBeGreaterThanOrEqual(5);
    for (const f of ['verdicts.csv', 'variant-summaries.csv', 'samples.csv', 'runs.json', 'hardware.csv']) expect(existsSync(join(out, 'downloads', f)), f).toBe(true);
    const feed = await readFile(join(out, 'feed.xml'), 'utf8');
    expect(feed).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
    expect(feed).toContain('<entry>');
    expect(feed).toMatch(/<title>vacuum-index-cleanup on 2 cores \/ 24 GB \/ SSD: 1-2 is [\d.]+% faster than 1-1/);
  });
});

describe('site build edge cases', () => {
  it('an empty results database gives a sensible site', async () => {
    const dataDir = await freshDb('empty', 'empty');
    const out = join(work, 'dist-empty');
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    expect(build.code, build.output).toBe(0);
    const home = await readFile(join(out, 'index.html'), 'utf8');
    expect(home).toContain('0 measured runs on 0 machines');
    expect(home).toContain('Not measured yet');
    const scenario = await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8');
    // The article's table still comes from the scenario folder; statistics wait for the import.
    expect(scenario).toContain('0:03:46');
    expect(scenario).toContain('No measured runs of this scenario yet');
    expect(existsSync(join(out, 'feed.xml'))).toBe(true);
  });

  it('a stored hardware spec that fails validation stops the build with a clear message', async () => {
    const dataDir = await freshDb('malformed', 'seed');
    const db = await openResultsDb(undefined, { dataDir });
    let fingerprint: string;
    try {
      const [row] = await db.prisma.$queryRaw<{ fingerprint: string }[]>`
        UPDATE hardware_profiles SET spec = jsonb_set(spec, '{physicalCores}', '"many"')
        WHERE fingerprint = (SELECT fingerprint FROM hardware_profiles WHERE source = 'measured' ORDER BY fingerprint LIMIT 1)
        RETURNING fingerprint`;
      fingerprint = row!.fingerprint;
    } finally {
      await db.close();
    }
    const out = join(work, 'dist-malformed');
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    expect(build.code).not.toBe(0);
    expect(build.output).toContain('TuneLab site build stopped');
    expect(build.output).toMatch(new RegExp(`(hardware profile ${fingerprint}|run [0-9a-f-]{36}) from embedded PGlite in .* failed validation: .*physicalCores`));
    expect(existsSync(join(out, 'index.html'))).toBe(false);
  });

  it('a missing results database stops the build instead of publishing an empty site', async () => {
    const build = await buildSite(join(work, 'dist-missing'), { TUNELAB_DATA_DIR: join(work, 'does-not-exist') });
    expect(build.code).not.toBe(0);
    expect(build.output).toContain(`no results database at ${join(work, 'does-not-exist')}`);
  });
});
