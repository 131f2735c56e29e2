/**
 * The site on a phone (390 × 844) and a desktop (1366 × 900), light and dark, in Chromium over
 * the answers-first fixture (every scenario's real run, tests/fixtures/real-runs) and 16 more
 * hardware classes (the real `astro build`):
 * - every chart's text is at least 11 px on the phone, the box/strip charts and chart files included;
 * - in the dark scheme a chart's text, lines and panels take dark-page colours (not the light ones)
 *   with the contrast text needs;
 * - no page is wider than the desktop's viewport, and on the phone a table wider than the page
 *   scrolls inside its own wrapper, not the page;
 * - every scenario page's first answer starts within the phone's first screen;
 * - a run page says what it measured and the answers it counts towards first, its logs and raw
 *   samples folded, within a bounded height;
 * - a sweep point of one value (n = 1) is a hollow marker no line runs through, and says n = 1;
 * - axe-core finds no violation on the pages these touch.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ingestDocument } from '@tunelab/results-db/testing';
import { openTestResultsDb } from './fresh-db.ts';
import { seedAnswersFixture } from './answers-fixture.ts';
import { sampleRun } from './seed.ts';
import { openBuiltSite } from './open-site.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-phone-dark-'));
const dataDir = join(work, 'db');
const out = join(work, 'dist');
let site: Awaited<ReturnType<typeof openBuiltSite>> | undefined;
// One page throughout: Chromium here runs as a single process, and closing a page can end it.
let page: Page;
let url: string;

const PHONE = { width: 390, height: 844 } as const;
const DESKTOP = { width: 1366, height: 900 } as const;

beforeAll(async () => {
  const db = await openTestResultsDb(dataDir);
  try {
    await seedAnswersFixture(db);
    // 16 more hardware classes (1 to 16 cores), one run each, as a small fleet adds them: the
    // coverage page and the classes views grow with them.
    for (let cores = 1; cores <= 16; cores++)
      await ingestDocument(
        db,
        sampleRun({ cores, memoryGb: 64, disk: 'hdd', id: `fleet-${cores}` }, 0),
        `fleet-${cores}`,
      );
  } finally {
    await db.close();
  }
  site = await openBuiltSite(out, dataDir);
  page = site.page;
  url = site.url;
}, 600_000);
afterAll(async () => {
  await site?.close();
  await rm(work, { recursive: true, force: true });
});

const dirs = async (path: string) =>
  (await readdir(join(out, path), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
const scenarioPaths = async () => (await dirs('scenarios')).map((k) => `/scenarios/${k}/`);
const runPaths = async () => (await dirs('runs')).map((id) => `/runs/${id}/`);
/**
 * The scenario pages and the pages below them that draw charts: two measured groups' pages of each
 * scenario (their box/strip charts), its versions, its article's runs and its other charts.
 */
async function chartPaths(): Promise<string[]> {
  const paths: string[] = [];
  for (const key of await dirs('scenarios')) {
    const under = `scenarios/${key}`;
    paths.push(`/${under}/`);
    for (const sub of ['versions', 'published', 'charts'])
      if (existsSync(join(out, under, sub, 'index.html'))) paths.push(`/${under}/${sub}/`);
    if (existsSync(join(out, under, 'groups')))
      paths.push(...(await dirs(`${under}/groups`)).slice(0, 2).map((g) => `/${under}/groups/${g}/`));
  }
  return paths;
}

async function open(path: string, viewport: { width: number; height: number }, scheme: 'light' | 'dark' = 'light') {
  await page.setViewportSize(viewport);
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`${url}${path}`);
}

/**
 * Every chart's text as drawn on the page, folds opened: its rendered font size (the SVG's font
 * size × how much the page scales the drawing). A chart file (an <img>) is drawn into the page at
 * the width its image has, so its text is measured the same way.
 */
const chartTextSizes = () =>
  page.evaluate(async () => {
    document.querySelectorAll('details').forEach((d) => (d.open = true));
    const sizes: { chart: string; text: string; px: number }[] = [];
    const measure = (svg: SVGSVGElement) => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const chart = svg.querySelector('title')?.textContent ?? '';
      for (const t of Array.from(svg.querySelectorAll('text'))) {
        if (t.getBoundingClientRect().width === 0) continue;
        sizes.push({ chart, text: t.textContent ?? '', px: parseFloat(getComputedStyle(t).fontSize) * scale });
      }
    };
    for (const svg of Array.from(document.querySelectorAll<SVGSVGElement>('figure.chart svg'))) measure(svg);
    for (const img of Array.from(document.querySelectorAll<HTMLImageElement>('figure.chart img'))) {
      // The file the <picture> shows at this width (read without waiting for a lazy image to load).
      const source = Array.from(img.closest('picture')?.querySelectorAll('source') ?? []).find(
        (s) => !s.media || matchMedia(s.media).matches,
      );
      const holder = document.createElement('div');
      holder.style.width = `${img.getBoundingClientRect().width}px`;
      holder.innerHTML = await (await fetch(source?.srcset || img.src)).text();
      document.body.append(holder);
      const svg = holder.querySelector('svg');
      if (svg) {
        svg.style.width = '100%';
        svg.style.display = 'block';
        measure(svg);
      }
      holder.remove();
    }
    return sizes;
  });

describe('charts on a phone', () => {
  it(
    'every chart’s text is at least 11 px at 390 px, the box/strip charts included',
    { timeout: 120_000 },
    async () => {
      const small: string[] = [];
      let seen = 0;
      let boxes = 0;
      for (const path of await chartPaths()) {
        await open(path, PHONE);
        const sizes = await chartTextSizes();
        seen += sizes.length;
        boxes += new Set(sizes.filter((s) => s.text === 'spread (quartiles, range)').map((s) => s.chart)).size;
        small.push(
          ...sizes.filter((s) => s.px < 11).map((s) => `${path} ${s.chart}: "${s.text}" ${s.px.toFixed(2)} px`),
        );
      }
      expect(small.slice(0, 10), `${small.length} texts under 11 px`).toEqual([]);
      // Not vacuous: many texts, and the box/strip charts among them.
      expect(seen).toBeGreaterThan(200);
      expect(boxes).toBeGreaterThan(3);
    },
  );
});

describe('charts in the dark', () => {
  for (const viewport of [PHONE, DESKTOP])
    it(`follow the dark scheme with contrast (${viewport.width} px)`, { timeout: 120_000 }, async () => {
      /** Per chart: its text colour, its lightest and darkest fills, and the page behind it. */
      const colours = () =>
        page.evaluate(() => {
          const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
          const lum = (c: string) => {
            const [r = 0, g = 0, b = 0] = rgb(c).map((v) => v / 255);
            const f = (v: number) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
            return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
          };
          const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
          const page = lum(getComputedStyle(document.body).backgroundColor);
          return Array.from(document.querySelectorAll<SVGSVGElement>('figure.chart svg')).map((svg) => {
            const texts = Array.from(svg.querySelectorAll('text')).map((t) => getComputedStyle(t).fill);
            // Shapes of a tenth of the drawing or more (panels, bands, boxes), not markers or arrows.
            const area = svg.viewBox.baseVal.width * svg.viewBox.baseVal.height;
            const shapes = Array.from(svg.querySelectorAll<SVGGraphicsElement>('path, rect'))
              .filter((e) => {
                const b = e.getBBox();
                return b.width * b.height >= area / 10;
              })
              .map((e) => getComputedStyle(e))
              .filter((c) => c.fill !== 'none' && !c.fill.startsWith('url') && Number(c.fillOpacity) > 0)
              .map((c) => c.fill);
            const bg = getComputedStyle(svg).backgroundColor;
            return {
              title: svg.querySelector('title')?.textContent ?? '',
              texts: [...new Set(texts)],
              // The faintest text against the page (the SVG has no panel of its own).
              least: Math.min(...texts.map((f) => contrast(lum(f), page))),
              // A white panel would be the brightest of the large fills.
              brightest: Math.max(0, ...shapes.map(lum)),
              transparent: bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent',
            };
          });
        });
      let seen = 0;
      for (const path of await chartPaths()) {
        await open(path, viewport, 'light');
        const light = await colours();
        await open(path, viewport, 'dark');
        const dark = await colours();
        expect(dark.length, path).toBe(light.length);
        for (const [i, d] of dark.entries()) {
          const l = light[i]!;
          // Text colours differ from the light scheme's and read on the dark page.
          expect(
            d.texts.filter((c) => l.texts.includes(c)),
            `${path}: ${d.title}`,
          ).toEqual([]);
          expect(d.least, `${path}: ${d.title}: faintest text`).toBeGreaterThanOrEqual(4.5);
          // No white panel: nothing drawn in the chart is as bright as the light scheme's page.
          expect(d.brightest, `${path}: ${d.title}: brightest fill`).toBeLessThan(0.75);
          expect(d.transparent, `${path}: ${d.title}`).toBe(true);
          seen++;
        }
      }
      expect(seen).toBeGreaterThan(10);
    });
});

describe('widths', () => {
  it('no page or table is wider than 1366 px: home, scenarios, coverage, hardware, a run page', async () => {
    const run = (await runPaths())[0]!;
    const hardware = (await dirs('hardware'))[0]!;
    const paths = ['/', ...(await scenarioPaths()), '/coverage/', '/hardware/', `/hardware/${hardware}/`, run];
    const wide: string[] = [];
    for (const scheme of ['light', 'dark'] as const)
      for (const path of paths) {
        await open(path, DESKTOP, scheme);
        const m = await page.evaluate(() => ({
          page: document.documentElement.scrollWidth,
          // A table that scrolls sideways inside its wrapper is as wide as a page that does.
          tables: Array.from(document.querySelectorAll('table'))
            .filter((t) => t.getClientRects().length > 0)
            .map((t) => ({
              over: t.scrollWidth - (t.closest('.table-scroll') ?? t.parentElement!).clientWidth,
              name: t.querySelector('caption')?.textContent?.slice(0, 60) ?? t.className,
            }))
            .filter((t) => t.over > 1),
        }));
        if (m.page > DESKTOP.width) wide.push(`${path} (${scheme}): ${m.page} px`);
        wide.push(...m.tables.map((t) => `${path} (${scheme}): ${t.name}, ${t.over} px wider than its box`));
      }
    expect(wide).toEqual([]);
  });

  it('at 390 px a table wider than the page scrolls in its own wrapper, and the page does not', async () => {
    const run = (await runPaths())[0]!;
    const paths = ['/', ...(await scenarioPaths()), '/coverage/', '/hardware/', run];
    const problems: string[] = [];
    for (const path of paths) {
      await open(path, PHONE);
      const found = await page.evaluate(() => {
        document.querySelectorAll('details').forEach((d) => (d.open = true));
        const page = document.documentElement.clientWidth;
        const over = document.documentElement.scrollWidth - page;
        const tables = Array.from(document.querySelectorAll('table'))
          .filter((t) => t.getClientRects().length > 0 && t.getBoundingClientRect().width > page)
          .filter((t) => {
            // Wide is fine inside a wrapper that scrolls and is no wider than the page.
            const box = t.closest('.table-scroll');
            return !box || getComputedStyle(box).overflowX !== 'auto' || box.getBoundingClientRect().width > page;
          })
          .map((t) => t.querySelector('caption')?.textContent?.slice(0, 60) ?? t.className);
        return { over, tables };
      });
      if (found.over > 0) problems.push(`${path}: the page scrolls ${found.over} px sideways`);
      problems.push(...found.tables.map((t) => `${path}: ${t} overflows the page`));
    }
    expect(problems).toEqual([]);
  });
});

describe('first screens', () => {
  it('every scenario page’s first answer starts within the 844 px of a 390 px phone', async () => {
    for (const path of await scenarioPaths()) {
      await open(path, PHONE);
      const top = await page.evaluate(() => {
        // A pair's verdict line, the verdicts grouped (many classes), or the article's finding.
        const first = document.querySelector(
          'section.answer .answer-pair .advice, section.answer .answer-tally li, section.answer .article-findings li',
        );
        return first ? first.getBoundingClientRect().top + window.scrollY : null;
      });
      expect(top, path).not.toBeNull();
      expect(top!, path).toBeLessThan(PHONE.height);
    }
  });

  it('a run page says what it measured and its answer first; logs and samples are folded; its height is bounded', async () => {
    const runs = await runPaths();
    const heights: Record<number, number[]> = { [PHONE.width]: [], [DESKTOP.width]: [] };
    let answered = 0;
    for (const viewport of [DESKTOP, PHONE])
      for (const path of runs) {
        await open(path, viewport);
        const m = await page.evaluate(() => {
          const top = (sel: string) => document.querySelector(sel)?.getBoundingClientRect().top ?? null;
          // Shown: laid out and not inside a closed fold.
          const visible = (sel: string) =>
            Array.from(document.querySelectorAll(sel)).filter(
              (e) => e.getBoundingClientRect().height > 0 && !e.closest('details:not([open])'),
            ).length;
          return {
            height: document.documentElement.scrollHeight,
            summary: top('#summary'),
            answers: document.querySelectorAll('.run-summary .held-answers a[href*="#answer-"]').length,
            firstDetail: Math.min(
              ...['#reproduce', '#environment', '#samples', '#notes'].map((s) => top(s) ?? Infinity),
            ),
            logs: visible('#notes ~ details pre'),
            samples: visible('table.samples'),
          };
        });
        heights[viewport.width]!.push(m.height);
        expect(m.summary, path).not.toBeNull();
        expect(m.summary!, `${path}: what it measured, in the first screen`).toBeLessThan(viewport.height);
        expect(m.summary!, `${path}: before the detail`).toBeLessThan(m.firstDetail);
        expect(m.logs, `${path}: logs shown`).toBe(0);
        expect(m.samples, `${path}: raw samples shown`).toBe(0);
        if (m.answers > 0) answered++;
      }
    // Measured runs count towards answers (the article's imported runs do not).
    expect(answered).toBeGreaterThan(5);
    // Within 3.5 screens at 1366 and 6 at 390 (the recovery run was 3,347 and 9,080 px with its samples open).
    expect(Math.max(...heights[DESKTOP.width]!), heights[DESKTOP.width]!.join(', ')).toBeLessThanOrEqual(3.5 * 900);
    expect(Math.max(...heights[PHONE.width]!), heights[PHONE.width]!.join(', ')).toBeLessThanOrEqual(6 * 844);
  });
});

describe('a sweep point of one value', () => {
  it('is a hollow marker with no line through it, and its chart says n = 1', async () => {
    await open('/scenarios/fillfactor-hot-updates/', DESKTOP);
    const charts = await page.evaluate(() =>
      Array.from(document.querySelectorAll('figure.chart'))
        .filter((f) => / at each .*, mean over repetitions/.test(f.querySelector('figcaption')?.textContent ?? ''))
        .map((f) => {
          const svg = f.querySelector('svg')!;
          // ECharts draws a line series as an unfilled path through its points; markers are filled paths.
          const lines = Array.from(svg.querySelectorAll('path[fill="none"]')).filter(
            (p) =>
              p.getAttribute('stroke-width') === '2' &&
              !p.hasAttribute('transform') &&
              /L/.test(p.getAttribute('d') ?? ''),
          ).length;
          const hollow = Array.from(svg.querySelectorAll('path[transform]')).filter(
            (p) => p.getAttribute('fill') === '#ffffff',
          ).length;
          return {
            caption: f.querySelector('figcaption')?.textContent ?? '',
            desc: svg.querySelector('desc')?.textContent ?? '',
            lines,
            hollow,
          };
        }),
    );
    expect(charts.length).toBeGreaterThan(0);
    for (const c of charts) {
      // The real fillfactor run: one run, one value per variant and point.
      expect(c.lines, c.caption).toBe(0);
      expect(c.hollow, c.caption).toBeGreaterThan(0);
      expect(c.caption).toMatch(/\(n = 1\)/);
      expect(c.desc).toContain('(n = 1)');
    }
  });
});

describe('accessibility', () => {
  for (const scheme of ['light', 'dark'] as const)
    for (const viewport of [DESKTOP, PHONE])
      it(
        `axe-core finds no violation on the pages changed, ${scheme}, ${viewport.width} px`,
        { timeout: 300_000 },
        async () => {
          const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
          const runs = await runPaths();
          const pages = [...(await scenarioPaths()), '/coverage/', runs[0]!, runs.at(-1)!];
          const violations: string[] = [];
          for (const path of pages) {
            await open(path, viewport, scheme);
            await page.addScriptTag({ content: axeSource });
            const found = await page.evaluate(async () => {
              if (!window.axe) return ['axe-core did not load'];
              const r = await window.axe.run(document, { resultTypes: ['violations'] });
              return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
            });
            violations.push(...found.map((f) => `${path}: ${f}`));
          }
          expect(violations).toEqual([]);
        },
      );
});
