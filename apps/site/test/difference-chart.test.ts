/**
 * The "How sure" forest plot labelled its rows by hardware class only, so five server
 * versions (or three scales) of one class shared a label and every estimate was drawn on the first
 * such row, away from its whiskers. A fixture of one class on PostgreSQL 14, 15 and 17 at two
 * scales → the real `astro build` → Chromium at 1366 and 390 px: one row per group, each named by
 * what differs, each estimate inside its own row's band beside its own interval, labels inside the
 * chart and not overlapping. An unbounded interval (drawn by the chart function in the same
 * browser) runs to the edge as an arrow without an end cap, and its text says so.
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
import { DIFFERENCE_BAND_FILL, DIFFERENCE_CAP_WIDTH, differenceChart } from '../src/lib/charts.ts';
import { buildSite } from './build.ts';
import { SCENARIOS_DIR, sampleRun } from './seed.ts';
import { serveStatic } from './static-server.ts';

const MAJORS = [14, 15, 17];
const SCALES = [200_000, 400_000];
const work = await mkdtemp(join(tmpdir(), 'tl-difference-chart-'));
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
// One page throughout: Chromium here runs as a single process, and closing a page can end it.
let page: Page;

beforeAll(async () => {
  const dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    await db.importPublished(SCENARIOS_DIR);
    let n = 0;
    for (const major of MAJORS)
      for (const rows of SCALES) {
        const s = sampleRun({ cores: 8, memoryGb: 32, disk: 'ssd', cpuModel: 'Intel Xeon Gold 6338' }, n, undefined, {
          params: { rows },
        });
        const submission = RunSubmission.parse({
          ...s,
          database: { ...s.database, major, minor: 1, version: `PostgreSQL ${major}.1 on x86_64-pc-linux-gnu` },
        });
        await ingestDocument(db, submission, `difference-chart-${n++}`);
      }
  } finally {
    await db.close();
  }
  const out = join(work, 'dist');
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

type Box = { x: number; y: number; width: number; height: number };
type RowMarks = { band: Box; labels: Box[]; line: Box | null; markers: Box[]; caps: number; arrows: number };

/** Per row of a visible difference chart: its band, label lines, interval line, estimate marker, caps and arrows. */
async function rowsOf(svg: string): Promise<{ svg: Box; rows: RowMarks[] }> {
  return page.evaluate(
    ({ sel, fills, capWidth }) => {
      const root = document.querySelector(sel) as SVGSVGElement;
      const box = (e: Element) => {
        const r = e.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      };
      const of = (series: string, i: number) =>
        Array.from(
          root.querySelectorAll(`[ecmeta_ssr_type="chart"][ecmeta_series_index="${series}"][ecmeta_data_index="${i}"]`),
        );
      const labelsOf = (band: Element) => {
        const out: Element[] = [];
        let e = band.nextElementSibling;
        while (e && e.tagName === 'text' && !e.hasAttribute('ecmeta_series_index')) {
          out.push(e);
          e = e.nextElementSibling;
        }
        return out;
      };
      const rows = [];
      for (let i = 0; ; i++) {
        const own = of('0', i);
        const band = own.find((e) => e.tagName === 'path' && fills.includes(e.getAttribute('fill') ?? ''));
        if (!band) break;
        const paths = own.filter((e) => e.tagName === 'path' && e !== band);
        const line = paths.find((e) => e.getAttribute('stroke-width') === '1.5');
        rows.push({
          band: box(band),
          // ECharts writes a custom series' text without the row's attributes, right after the row's band.
          labels: labelsOf(band).map(box),
          line: line ? box(line) : null,
          // The symbols: drawn with a transform, unlike anything else of the scatter series.
          markers: [...of('1', i), ...of('2', i)]
            .filter((e) => e.getAttribute('transform')?.startsWith('matrix'))
            .map(box),
          caps: paths.filter((e) => e.getAttribute('stroke-width') === String(capWidth)).length,
          arrows: own.filter((e) => e.tagName === 'polygon').length,
        });
      }
      return { svg: box(root), rows };
    },
    { sel: svg, fills: [...DIFFERENCE_BAND_FILL] as string[], capWidth: DIFFERENCE_CAP_WIDTH },
  );
}

const inside = (inner: Box, outer: Box, slack = 0.5) =>
  inner.y >= outer.y - slack && inner.y + inner.height <= outer.y + outer.height + slack;
const centreInside = (inner: Box, outer: Box) =>
  inner.y + inner.height / 2 > outer.y && inner.y + inner.height / 2 < outer.y + outer.height;

describe('the How sure chart', () => {
  for (const [width, height, kind] of [
    [1366, 900, 'wide'],
    [390, 844, 'narrow'],
  ] as const) {
    it(`has one row per group, each estimate on its own row, at ${width} px`, async () => {
      await page.setViewportSize({ width, height });
      {
        await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
        const charts = page.locator('h2#differences ~ figure.chart');
        expect(await charts.count()).toBeGreaterThan(0);
        const tables = await page.locator('table.differences').all();
        for (let c = 0; c < tables.length; c++) {
          const expected = await tables[c]!.locator('tbody tr').evaluateAll((trs) =>
            trs.map((tr) => tr.querySelector('th')!.textContent.trim()),
          );
          // Every group has its own name: the class, the server and the scale.
          expect(new Set(expected).size, expected.join(' | ')).toBe(expected.length);
          const sel = `h2#differences ~ figure.chart >> nth=${c}`;
          const figure = page.locator(sel);
          await figure.scrollIntoViewIfNeeded();
          // To look at (outside the checkout): the chart as a reader sees it at this width.
          await figure.screenshot({ path: join(tmpdir(), `tunelab-difference-chart-${width}-${c}.png`) });
          const handle = await figure.locator('svg').elementHandle();
          const id = `dc-${c}-${kind}`;
          await handle.evaluate((e, v) => e.setAttribute('data-test-id', v), id);
          const { svg, rows } = await rowsOf(`svg[data-test-id="${id}"]`);
          expect(rows.length).toBe(expected.length);
          for (const [i, r] of rows.entries()) {
            expect(r.markers.length, `row ${i}`).toBe(1);
            expect(centreInside(r.markers[0]!, r.band), `row ${i} estimate inside its band`).toBe(true);
            expect(r.line && inside(r.line, r.band), `row ${i} interval inside its band`).toBe(true);
            // The estimate sits on its own interval line.
            expect(
              Math.abs(r.markers[0]!.y + r.markers[0]!.height / 2 - (r.line!.y + r.line!.height / 2)),
            ).toBeLessThan(2);
            expect(r.labels.length).toBeGreaterThan(0);
            for (const l of r.labels) {
              expect(inside(l, r.band), `row ${i} label inside its band`).toBe(true);
              expect(l.x).toBeGreaterThanOrEqual(svg.x - 0.5);
              expect(l.x + l.width).toBeLessThanOrEqual(svg.x + svg.width + 0.5);
            }
          }
          // Bands do not overlap: neither do the labels inside them.
          for (let i = 1; i < rows.length; i++)
            expect(rows[i]!.band.y).toBeGreaterThanOrEqual(rows[i - 1]!.band.y + rows[i - 1]!.band.height - 0.5);
        }
        // The rows name the server versions and the scales.
        const text = await page.locator('table.differences').first().textContent();
        for (const m of MAJORS) expect(text).toContain(`PostgreSQL ${m}`);
        for (const s of SCALES) expect(text).toContain(`rows = ${s.toLocaleString('en-US')}`);
      }
    });
  }

  it('draws an unbounded side as an arrow to the edge with no end cap, and says so', async () => {
    const chart = differenceChart({
      title: 'b vs a',
      direction: 'lower-is-better',
      baseline: 'a',
      candidate: 'b',
      rows: [
        { label: 'bounded', estimate: 0.2, low: 0.1, high: 0.3, significant: true, published: false },
        // Improvement from −∞: the ratio b / a has no upper bound.
        { label: 'open above', estimate: 0.1, low: null, high: 0.4, significant: false, published: false },
        // Improvement up to 1.5: the ratio's lower bound would be −0.5, which a log axis cannot show.
        { label: 'open below', estimate: 0.3, low: 0.1, high: 1.5, significant: false, published: false },
      ],
    });
    expect(chart.wide).toContain('open above: ×0.9 (95% CI ×0.6, unbounded above)');
    expect(chart.wide).toContain('open below: ×0.7 (95% CI unbounded below, to ×0.9)');
    await page.setViewportSize({ width: 800, height: 600 });
    {
      await page.setContent(`<body style="margin:0">${chart.wide}</body>`);
      const { svg, rows } = await rowsOf('svg');
      expect(rows.map((r) => [r.caps, r.arrows])).toEqual([
        [2, 0],
        [1, 1],
        [1, 1],
      ]);
      // The open side runs to the plot's edge.
      const open = rows[1]!.line!;
      expect(open.x + open.width).toBeGreaterThan(svg.x + svg.width - 40);
      expect(rows[2]!.line!.x).toBeLessThan(svg.x + 40);
    }
  });
});
