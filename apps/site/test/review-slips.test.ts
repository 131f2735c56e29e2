/**
 * Wording a review found on the pages built over the answers-first fixture (every scenario's real
 * run, vacuum-index-cleanup on three servers, one synthetic SSD class; the real `astro build`),
 * each held here on the built HTML or in Chromium:
 * - a run warning stored by an older runner, "server setting wal_compression is (default) here",
 *   names the default's value;
 * - recovery-init-sync's article timed with a one-second clock: its 0 is "under 1,000 ms", never
 *   "syncfs 0 ms", and its fit of those zeros is no slope, never "0 µs per file, r² 1.00";
 * - a virtual disk's warning gives "pass --storage" once, never "pass --storage)); pass --storage";
 * - the glossary of a throughput (NOPM) page says what "% faster" is there, never "time saved";
 * - every page's first focusable element is a "Skip to content" link, shown when focused;
 * - a class with a disk the probe could not tell is "virtual or unknown disk" on every page and in
 *   the feed, never also "unknown disk" (answers' classLabel);
 * - the home page's links to an answer (its picker's measured classes) land on an id that exists,
 *   and every link of a scenario page and of its measured groups' pages lands on a page and id;
 * - recovery-init-sync, which fits the article's figures, does not then say "No table reproduced";
 * - the article's imported figures are not "scenario version 1 of 2" of the scenario;
 * - recovery-init-sync's sweep chart and metric tables are in ms, as its answers and tables are, never s;
 * - a box plot's note says where its axis starts as drawn: "not at zero" never under an axis from 0.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { openTestResultsDb } from './fresh-db.ts';
import { seedAnswersFixture } from './answers-fixture.ts';
import { buildSite } from './build.ts';
import { serveStatic } from './static-server.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-review-slips-'));
const out = join(work, 'dist');
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
// One page throughout: Chromium here runs as a single process, and closing a page can end it.
let page: Page;

/** The text of a built page: tags dropped, entities of the site's own words decoded. */
async function pageText(path: string): Promise<string> {
  const html = await readFile(join(out, path), 'utf8');
  return html
    .replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

async function htmlPages(dir = ''): Promise<string[]> {
  const entries = await readdir(join(out, dir), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory()
        ? htmlPages(join(dir, e.name))
        : Promise.resolve(e.name.endsWith('.html') ? [join(dir, e.name)] : []),
    ),
  );
  return nested.flat();
}

beforeAll(async () => {
  const dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await seedAnswersFixture(db);
  } finally {
    await db.close();
  }
  const built = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
  expect(built.code, built.output).toBe(0);
  server = await serveStatic(out);
  browser = await launchChromium();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

describe('words a review found', () => {
  it('a setting at its default is named with the default’s value, never "(default) here" alone', async () => {
    const pages = await htmlPages();
    const bare: string[] = [];
    for (const p of pages) if ((await pageText(p)).includes('is (default) here')) bare.push(p);
    expect(bare).toEqual([]);
    // The real runs' warnings, on the pages of the scenario's measured groups and the run pages: PostgreSQL's defaults.
    const groups = await htmlPages('scenarios/vacuum-index-cleanup/groups');
    expect(groups.length).toBeGreaterThan(0);
    const text = (await Promise.all(groups.map(pageText))).join(' ');
    expect(text).toContain('server setting synchronous_commit is on (the default) here; the published run used off');
    expect(text).toContain('server setting max_parallel_maintenance_workers is 2 (the default) here');
  });

  it('an article’s 0 under its clock’s tick is "under 1,000 ms", and its zeros fit no slope', async () => {
    const text = await pageText('scenarios/recovery-init-sync/index.html');
    expect(text).not.toMatch(/syncfs 0 ms/);
    expect(text).toContain('fsync 2,000 ms, syncfs under 1,000 ms (single figures, no spread)');
    // The fit table of the article's figures: fsync's line, syncfs's zeros without one.
    const article = /µs per file: the article(.*?)The article’s figures fitted/.exec(text)?.[1] ?? '';
    expect(article).toMatch(/syncfs recovery_init_sync_method = syncfs no slope: every figure is the same — — 4/);
    expect(article).not.toMatch(/ 0 no spread 1\.00 /);
  });

  it('a virtual disk’s warning says "pass --storage" once', async () => {
    const doubled: string[] = [];
    const said: string[] = [];
    for (const p of await htmlPages()) {
      const text = await pageText(p);
      if (text.includes('pass --storage)); pass --storage')) doubled.push(p);
      if (text.includes('say nothing about the storage behind it); pass --storage ssd|hdd|nvme')) said.push(p);
    }
    expect(doubled).toEqual([]);
    // The real runs ran on a virtual disk: their measured groups' pages and run pages carry the warning.
    expect(said.filter((p) => p.startsWith('scenarios/recovery-init-sync/groups/')).length).toBeGreaterThan(0);
    expect(said.filter((p) => p.startsWith('runs/')).length).toBeGreaterThan(0);
  });

  it('"% faster" on a NOPM page is the throughput gained, on a duration page the time saved', async () => {
    const nopm = await pageText('scenarios/fillfactor-hot-updates/index.html');
    expect(nopm).toContain('% faster');
    expect(nopm).not.toContain('time saved');
    expect(nopm).toContain('% faster = throughput (tps, NOPM) gained relative to the baseline variant');
    const duration = await pageText('scenarios/vacuum-full-rewrite/index.html');
    expect(duration).toContain('% faster = time saved relative to the baseline variant');
  });

  for (const [width, height] of [
    [1366, 900],
    [390, 844],
  ] as const)
    it(`the first Tab reaches "Skip to content", shown, and it moves focus to the page's content (${width} px)`, async () => {
      await page.setViewportSize({ width, height });
      for (const path of ['/', '/scenarios/fillfactor-hot-updates/', '/hardware/']) {
        await page.goto(`${server.url}${path}`);
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const a = document.activeElement as HTMLAnchorElement;
          const box = a.getBoundingClientRect();
          return { text: a.textContent?.trim(), href: a.getAttribute('href'), top: box.top, bottom: box.bottom };
        });
        expect(focused, path).toMatchObject({ text: 'Skip to content', href: '#content' });
        expect(focused.top, `${path}: shown when focused`).toBeGreaterThanOrEqual(0);
        expect(focused.bottom).toBeLessThanOrEqual(height);
        await page.keyboard.press('Enter');
        await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('content');
      }
    });

  it('a class is "virtual or unknown disk" everywhere, never also "unknown disk"', async () => {
    const bare: Record<string, number> = {};
    let named = 0;
    for (const p of [...(await htmlPages()), 'feed.xml']) {
      const text = await pageText(p);
      const n = [...text.matchAll(/(virtual or )?unknown disk/g)].filter((m) => m[1] === undefined).length;
      if (n > 0) bare[p] = n;
      if (text.includes('2 cores / 24 GB / virtual or unknown disk')) named++;
    }
    expect(bare).toEqual({});
    expect(named).toBeGreaterThan(10);
  });

  it('every link of the home page to a place on a page lands on an id that page has', async () => {
    const html = await readFile(join(out, 'index.html'), 'utf8');
    const links = [...html.matchAll(/href="([^"]*#[^"]+)"/g)].map((m) => m[1]!);
    expect(links.filter((l) => l.includes('#answer-')).length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const link of new Set(links)) {
      const [path, id] = link.split('#') as [string, string];
      const target = path === '' ? html : await readFile(join(out, path, 'index.html'), 'utf8');
      if (!target.includes(`id="${id}"`)) missing.push(link);
    }
    expect(missing).toEqual([]);
  });

  it('every link of a scenario page and of its groups’ pages to this site lands on a page, and on an id that page has', async () => {
    const pages = await htmlPages('scenarios');
    const groupPages = pages.filter((p) => p.includes('/groups/'));
    // Every measured group of every scenario has its page, linked from its scenario's page.
    expect(groupPages.length).toBeGreaterThanOrEqual(17);
    const missing: string[] = [];
    let checked = 0;
    for (const from of pages) {
      const html = await readFile(join(out, from), 'utf8');
      for (const link of new Set([...html.matchAll(/href="(\/[^"]*|#[^"]+)"/g)].map((m) => m[1]!))) {
        const [path, id] = link.split('#') as [string, string | undefined];
        const file = path === '' ? join(out, from) : join(out, path, path.endsWith('/') ? 'index.html' : '');
        const target = await readFile(file, 'utf8').catch(() => null);
        checked++;
        if (target === null || (id !== undefined && !target.includes(`id="${id}"`))) missing.push(`${from}: ${link}`);
      }
      if (from.includes('/groups/')) {
        const scenario = from.replace(/groups\/.*$/, 'index.html');
        const href = `/${from.replace(/index\.html$/, '')}`;
        if (!(await readFile(join(out, scenario), 'utf8')).includes(`href="${href}"`))
          missing.push(`${scenario} → ${href}`);
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect(missing).toEqual([]);
  });

  it('a group page says its runs, machines, newest run and servers once: in its answer card, not again below it', async () => {
    const groupPages = (await htmlPages('scenarios')).filter((p) => p.includes('/groups/'));
    const repeated: string[] = [];
    let withCard = 0;
    for (const page of groupPages) {
      const text = await pageText(page);
      const said = text.match(/\d+ runs? on \d+ machines?(?: of \d+ runners)? · newest/g) ?? [];
      if (text.includes('Its answer')) withCard++;
      if (said.length !== 1) repeated.push(`${page}: ${said.length}`);
    }
    expect(withCard).toBeGreaterThan(0);
    expect(repeated).toEqual([]);
  });

  it('a page that shows the article’s single figures says where they are, not "No table reproduced"', async () => {
    const text = await pageText('scenarios/recovery-init-sync/index.html');
    expect(text).toContain('µs per file: the article');
    expect(text).not.toContain('No table reproduced');
    const published = /Published result (.*?) Question and method/.exec(text)?.[1] ?? '';
    expect(published).toBe(
      'The article published one figure per tables and variant, not repeated runs: its figures are beside the answers and in the charts and fits above, not a table of runs.',
    );
  });

  it('the article’s import is called the article’s figures, never a scenario version', async () => {
    const runs = (await htmlPages()).filter((p) => p.startsWith('runs/'));
    const article: string[] = [];
    for (const p of runs) {
      const text = await pageText(p);
      if (!/Environment Scenario version .* Hardware the article’s/.test(text)) continue;
      article.push(p);
      expect(text, p).toMatch(
        /Scenario version the article’s figures, as imported from its published\.json: [0-9a-f]{64}/,
      );
      expect(text, p).not.toMatch(/scenario version \d+ of \d+/);
    }
    expect(article.length).toBeGreaterThan(0);
    // The scenario's own versions are counted without it.
    const text = await pageText('scenarios/vacuum-index-cleanup/index.html');
    expect(text).toMatch(/Scenario versions \d+ versions? and the article’s figures/);
    expect(text).toContain('The article’s figures (imported)');
  });

  it('a metric in ms is drawn and tabled in ms on its pages, the unit of its answers', async () => {
    // The scenario page, its method page (every metric) and its measured groups' pages.
    const pages = [
      'scenarios/recovery-init-sync/index.html',
      'scenarios/recovery-init-sync/method/index.html',
      ...(await htmlPages('scenarios/recovery-init-sync/groups')),
    ];
    const text = (await Promise.all(pages.map(pageText))).join(' ');
    const metric = 'data-directory sync before recovery (server log, ms resolution)';
    expect(text).toMatch(/prefer syncfs .*? — [\d,.]+ ms for fsync vs [\d,.]+ ms for syncfs/);
    expect(text).toContain(`${metric} (ms) at each tables`);
    const units = [...text.matchAll(new RegExp(`${metric.replace(/[()]/g, '\\$&')} (?:\\(|in )(\\w+)`, 'g'))].map(
      (m) => m[1],
    );
    expect(units.length).toBeGreaterThan(3);
    expect(new Set(units)).toEqual(new Set(['ms']));
  });

  it('a box plot’s axis note agrees with the axis drawn', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    const seen = { zero: 0, above: 0 };
    // The box plots are on the measured groups' pages.
    const groups = (
      await Promise.all(
        ['recovery-init-sync', 'vacuum-index-cleanup', 'vacuum-full-rewrite'].map((key) =>
          htmlPages(`scenarios/${key}/groups`),
        ),
      )
    ).flat();
    expect(groups.length).toBeGreaterThan(10);
    for (const path of groups) {
      await page.goto(`${server.url}/${path.replace(/index\.html$/, '')}`);
      const charts = await page.evaluate(async () => {
        document.querySelectorAll('details').forEach((d) => (d.open = true));
        const out: { caption: string; first: number | null }[] = [];
        for (const f of Array.from(document.querySelectorAll('figure'))) {
          const caption = f.querySelector('figcaption')?.textContent ?? '';
          if (!caption.includes('Every repetition (dots')) continue;
          // A chart drawn in the page, or a chart file (an <img>) drawn into the page to be read.
          let svg = f.querySelector('.chart-wide svg, .chart-one svg');
          const img = f.querySelector('img');
          const holder = document.createElement('div');
          if (!svg && img) {
            holder.innerHTML = await (await fetch(img.src)).text();
            document.body.append(holder);
            svg = holder.querySelector('svg');
          }
          // The first tick of the value axis: the leftmost number drawn.
          const ticks = Array.from(svg?.querySelectorAll('text') ?? [])
            .filter((t) => /^-?[\d,.]+$/.test(t.textContent ?? ''))
            .map((t) => ({ x: t.getBoundingClientRect().x, v: Number((t.textContent ?? '').replace(/,/g, '')) }))
            .sort((a, b) => a.x - b.x);
          holder.remove();
          out.push({ caption, first: ticks[0]?.v ?? null });
        }
        return out;
      });
      for (const c of charts) {
        expect(c.first, c.caption).not.toBeNull();
        if (c.caption.includes('not at zero')) {
          expect(c.first, c.caption).not.toBe(0);
          seen.above++;
        } else {
          expect(c.first, c.caption).toBe(0);
          seen.zero++;
        }
      }
    }
    // Both kinds are drawn over this fixture: the check is not vacuous.
    expect(Math.min(seen.zero, seen.above), JSON.stringify(seen)).toBeGreaterThan(0);
  });
});
