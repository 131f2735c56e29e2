/**
 * Each measured group's detail is a page of its own (`/scenarios/<key>/groups/<group>/`), linked
 * from the scenario page's entry for the group. A group of more than 200 repetitions (a fleet's)
 * has its distribution chart there as two files beside the scenario page, one per width, shown by
 * a lazy <picture> fetched at the width of the screen; a smaller group's chart is drawn inline on
 * its page, however many groups the scenario has. Built with `astro build` over 20 runs on one
 * machine (240 repetitions) and one run on another; then with four more classes.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '@tunelab/browser';
import { openTestResultsDb } from './fresh-db.ts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { buildSite } from './build.ts';
import { sampleRun, type MachineSpec } from './seed.ts';
import { serveStatic } from './static-server.ts';

const FLEET: MachineSpec = { id: 'fleet', cores: 8, memoryGb: 32, disk: 'nvme' };
const SINGLE: MachineSpec = { id: 'single', cores: 2, memoryGb: 8, disk: 'hdd' };
const PAGE = 'scenarios/vacuum-index-cleanup/index.html';
/** Four more classes, each with one run: six groups. */
const MORE: MachineSpec[] = [4, 16, 32, 64].map((cores) => ({ id: `more-${cores}`, cores, memoryGb: 64, disk: 'ssd' }));

let work: string;
let dataDir: string;
let out: string;

async function ingest(runs: [MachineSpec, number][]) {
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    for (const [machine, n] of runs) await ingestDocument(db, sampleRun(machine, n), `${machine.id}-${n}`);
  } finally {
    await db.close();
  }
}

async function build(dir: string) {
  const built = await buildSite(dir, { TUNELAB_DATA_DIR: dataDir, TUNELAB_SITE_URL: 'https://tunelab.example' });
  expect(built.code, built.output.slice(-3000)).toBe(0);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tunelab-site-chart-files-'));
  dataDir = join(work, 'db');
  await ingest([...Array.from({ length: 20 }, (_, n) => [FLEET, n] as [MachineSpec, number]), [SINGLE, 0]]);
  out = join(work, 'site');
  await build(out);
}, 300_000);
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** The scenario page's entries of its measured groups: [group id, link, heading]. */
const entries = (html: string) =>
  [...html.matchAll(/<li id="(g-[^"]+)" class="measured-entry"[^>]*>\s*<a href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].map(
    (m) => ({ id: m[1]!, href: m[2]!, heading: m[3]! }),
  );

/** The measured group (its id and its page's section) whose heading names `cores`, read through the scenario page's link. */
async function section(site: string, cores: number) {
  const entry = entries(await readFile(join(site, PAGE), 'utf8')).find((e) => e.heading.startsWith(`${cores} cores`));
  if (!entry) return undefined;
  expect(entry.href).toBe(`/scenarios/vacuum-index-cleanup/groups/${entry.id}/`);
  const html = await readFile(join(site, entry.href, 'index.html'), 'utf8');
  const body = /<section id="(g-[^"]+)" class="measured-group"[^>]*>([\s\S]*?)<\/section>/.exec(html);
  expect(body?.[1]).toBe(entry.id);
  return { id: entry.id, body: body?.[2] ?? '', href: entry.href };
}

it('the large group’s chart is two SVG files in a <picture> on its page; the small group’s is inline; the scenario page draws neither', async () => {
  const html = await readFile(join(out, PAGE), 'utf8');
  expect(html).not.toContain('class="measured-group"');
  expect(html).not.toContain('/charts/');
  const large = await section(out, FLEET.cores);
  const small = await section(out, SINGLE.cores);
  expect(large, 'the fleet machine’s group').toBeDefined();
  expect(small, 'the single run’s group').toBeDefined();
  const { id, body } = large!;
  expect(body).not.toContain('<svg');
  expect(body).toContain(
    `<source media="(max-width: 600px)" srcset="/scenarios/vacuum-index-cleanup/charts/${id}-narrow.svg">`,
  );
  const img = /<img src="([^"]+)" alt="([^"]+)" loading="lazy"/.exec(body ?? '');
  expect(img?.[1]).toBe(`/scenarios/vacuum-index-cleanup/charts/${id}-wide.svg`);
  // The text alternative carries what the inline chart's <desc> did: per variant count, range, median.
  expect(img?.[2]).toMatch(/^Box and strip plot of .* per variant on 8 cores .*\. 1-1: 60 values from .* median .*\.$/);
  for (const width of ['wide', 'narrow']) {
    const svg = await readFile(join(out, 'scenarios/vacuum-index-cleanup/charts', `${id}-${width}.svg`), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg.match(/viewBox=/g)).toHaveLength(1);
    expect(svg).toMatch(/<title>[^<]*8 cores[^<]*<\/title><desc>1-1: 60 values/);
    expect(svg).toContain(`viewBox="0 0 ${width === 'wide' ? 640 : 360} `);
  }
  expect(small?.body).toMatch(/<div role="img" aria-label="Box and strip plot[^"]*" class="chart-one"><svg/);
});

it('in a browser the scenario page’s entry opens the group’s page, whose chart file is fetched at the width of the screen', async () => {
  const server = await serveStatic(out);
  const browser = await launchChromium();
  try {
    // One page for both widths (the Chromium inside @sparticuz/chromium runs a single process).
    // Browsers load lazily only with scripting on (without it every image loads at once, and the page still works).
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: true });
    const fetched: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/charts/')) fetched.push(r.url());
    });
    for (const [width, file] of [
      [1366, 'wide'],
      [390, 'narrow'],
    ] as const) {
      // Off the page first: resizing a page whose fold is open would fetch the other width there.
      await page.goto('about:blank');
      await page.setViewportSize({ width, height: 900 });
      fetched.length = 0;
      await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/`, { waitUntil: 'load' });
      expect(fetched, 'no chart file fetched by the scenario page').toEqual([]);
      // The group's entry, and its link from the group's answer card, lead to the same page.
      const entry = page.locator('li.measured-entry', { hasText: '8 cores' });
      const href = await entry.locator('a').getAttribute('href');
      await expect(
        page
          .locator('.answer-card', { hasText: '8 cores' })
          .locator('a', { hasText: 'its figures, chart and runs' })
          .getAttribute('href'),
      ).resolves.toBe(href);
      await entry.locator('a').click();
      await page.waitForURL(`**${href}`);
      const img = page.locator('section.measured-group figure.chart img');
      await img.scrollIntoViewIfNeeded();
      await expect
        .poll(() => img.evaluate((i: HTMLImageElement) => (i.complete ? i.naturalWidth : 0)), { timeout: 20_000 })
        .toBeGreaterThan(0);
      expect(await img.evaluate((i: HTMLImageElement) => i.currentSrc)).toMatch(new RegExp(`-${file}\\.svg$`));
      const box = await img.boundingBox();
      expect(box?.width).toBeGreaterThan(width === 390 ? 300 : 500);
      expect(fetched.every((u) => u.endsWith(`-${file}.svg`))).toBe(true);
      await page.screenshot({ path: join(process.env.CHART_SHOTS ?? work, `chart-file-${width}.png`) });
    }
  } finally {
    await browser.close();
    await server.close();
  }
}, 120_000);

it('with six classes only the large group’s chart is a file, the small ones drawn inline on their pages; a group of more runs than it lists says so', async () => {
  // And 81 more runs on the fleet machine: 101, more than a group lists.
  await ingest([
    ...MORE.map((m): [MachineSpec, number] => [m, 0]),
    ...Array.from({ length: 81 }, (_, k): [MachineSpec, number] => [FLEET, 20 + k]),
  ]);
  const more = join(work, 'site-more');
  await build(more);
  const html = await readFile(join(more, PAGE), 'utf8');
  const listed = entries(html);
  expect(listed).toHaveLength(6);
  const groups = await Promise.all(
    listed.map(async (e) => {
      const page = await readFile(join(more, e.href, 'index.html'), 'utf8');
      return [
        e.id,
        e.heading,
        /<section id="g-[^"]+" class="measured-group"[^>]*>([\s\S]*?)<\/section>/.exec(page)?.[1] ?? '',
      ] as const;
    }),
  );
  for (const [id, heading, body] of groups) {
    const large = heading.startsWith(`${FLEET.cores} cores`);
    expect(body.includes('<svg'), id).toBe(!large);
    expect(body.includes(`<img src="/scenarios/vacuum-index-cleanup/charts/${id}-wide.svg"`), id).toBe(large);
    for (const width of ['wide', 'narrow'])
      expect(existsSync(join(more, 'scenarios/vacuum-index-cleanup/charts', `${id}-${width}.svg`)), id).toBe(large);
  }
  // A group of more runs than it lists says so, and where every run is.
  const fleetGroup = groups.find(([, heading]) => heading.startsWith(`${FLEET.cores} cores`));
  const runsLine = /<p class="meta runs"[^>]*>([\s\S]*?)<\/p>/.exec(fleetGroup?.[2] ?? '')?.[1] ?? '';
  expect(runsLine.replace(/\s+/g, ' ')).toMatch(
    /^ ?The newest 100 of its 101 runs \(every run: <a href="\/downloads\/runs\.csv">runs\.csv<\/a>\): <a href="\/runs\//,
  );
  expect(runsLine.match(/href="\/runs\//g)).toHaveLength(100);
  expect(/<h2 id="runs">([\s\S]*?)<\/h2>/.exec(fleetGroup?.[2] ?? '')?.[1]?.replace(/\s+/g, ' ')).toMatch(
    /^ ?The newest 100 of the 101 runs behind these figures/,
  );
  // The scenario page's entry says how many runs the group has.
  expect(html).toMatch(
    new RegExp(`<li id="${fleetGroup?.[0]}" class="measured-entry"[^>]*>[\\s\\S]*?— 101 runs on 1 machine`),
  );
  const smallGroup = groups.find(([, heading]) => heading.startsWith('4 cores'));
  expect(/<p class="meta runs"[^>]*>\s*Runs: <a/.test(smallGroup?.[2] ?? '')).toBe(true);
  // Where a chart is drawn is the page's business, not the published tables'.
  const published = JSON.parse(
    await readFile(join(more, 'downloads/scenarios/vacuum-index-cleanup/measured.json'), 'utf8'),
  ) as Record<string, unknown>[];
  expect(published).toHaveLength(6);
  for (const table of published) expect(Object.keys(table)).not.toContain('chartIsFile');
  // Only the fleet machine's group draws its overlapping dots as one shape.
  const oneShape = groups.filter(([, , body]) => body.includes('overlapping dots drawn as one'));
  expect(oneShape.map(([, heading]) => /^(\d+) cores/.exec(heading)?.[1])).toEqual([String(FLEET.cores)]);
}, 300_000);
