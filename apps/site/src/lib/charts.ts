/**
 * Charts are SVG strings rendered at build time by Apache ECharts' server-side renderer
 * (https://echarts.apache.org/handbook/en/how-to/cross-platform/server/), so pages need no
 * JavaScript. Each chart gets a <title> and <desc> inside the SVG; the page wraps it in a
 * <figure role="img" aria-label> with a caption. A chart on a page is drawn once, at SCALABLE
 * px, a phone's width, and scales with the page (×1.33 at most on a desktop, ×1 on a 390 px phone),
 * so its 12 px text stays 12 px on a phone and 16 px on a desktop without drawing it twice (the
 * second drawing was a quarter of a scenario page's gzipped bytes; drawn at 480 px and shrunk to a
 * phone, its text was 8.9 px). A chart file (chart-files.ts) still has a wide and a narrow one.
 * Every chart carries its dark colours (CHART_DARK_CSS): it follows prefers-color-scheme, inline
 * or as a file, rather than sitting as a white panel on a dark page.
 *
 * Chart kinds: distribution (box + strip per variant), difference (forest plot per hardware
 * group), sweep (a metric against the sweep point, one line per variant) and series (a
 * time-series metric against its x, one line per variant, crossings marked). The last two are
 * driven by `report.charts` in scenario.yaml, so a new scenario needs no site code.
 */
import * as echarts from 'echarts';
import { UNBOUNDED_INTERVAL_TEXT } from '@tunelab/stats';
import { escapeXml } from './format.ts';

// No quoted family names: ECharts writes the family into a style attribute.
const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif';
const INK = '#1f2933';
const MUTED = '#5f6b7a';
const PALETTE = ['#1f4e79', '#b45309', '#2f6f4f', '#7b2d8b', '#9f1239', '#0e7490'];
export const WIDE = 640;
export const NARROW = 360;

/** The width a chart on a page is drawn at (then scaled by CSS, up to 480 px: site.css). */
const SCALABLE = NARROW;

/**
 * The chart's colours on a dark page, by the light colour ECharts wrote as a presentation
 * attribute (which any CSS rule overrides): ink, muted text and axis lines light, grid lines and
 * panels dark, the palette lightened to keep its contrast on the page's #14181d.
 */
const DARK: Record<string, string> = {
  [INK]: '#e5e7eb',
  [MUTED]: '#a3acb9',
  '#54555a': '#a3acb9',
  '#e5e7eb': '#3a4350',
  '#eef2f7': '#2a323c',
  '#64748b': '#94a3b8',
  '#f1f4f8': '#1f252d',
  '#fbfcfd': '#1b2027',
  '#ffffff': '#14181d',
  '#1f4e79': '#8cb8e8',
  '#b45309': '#f0a35e',
  '#2f6f4f': '#7fd1a5',
  '#7b2d8b': '#d49be0',
  '#9f1239': '#f59ab0',
  '#0e7490': '#67c7dc',
};
export const CHART_DARK_CSS = `@media (prefers-color-scheme: dark){${Object.entries(DARK)
  .flatMap(([light, dark]) => [
    `svg.tl-chart [fill="${light}"]{fill:${dark}}`,
    `svg.tl-chart [stroke="${light}"]{stroke:${dark}}`,
  ])
  .join('')}}`;

/** A chart's SVG; `wide` and `narrow` are one and the same drawing (SCALABLE px) for a chart on a page. */
export type ChartSvg = { wide: string; narrow: string };

function render(option: echarts.EChartsCoreOption, width: number, height: number, title: string, desc: string): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({
      animation: false,
      textStyle: { fontFamily: FONT, color: INK, fontSize: 12 },
      color: PALETTE,
      ...option,
    });
    const svg = chart.renderToSVGString();
    // Scalable: one viewBox (ECharts writes its own) keeps proportions while CSS sets the width.
    return svg
      .replace(
        /^<svg([^>]*)>/,
        (_m, attrs: string) =>
          `<svg${attrs.replace(/\s(width|height|viewBox)="[^"]*"/g, '')} class="tl-chart" viewBox="0 0 ${width} ${height}" preserveAspectRatio="xMidYMid meet" focusable="false">`,
      )
      .replace(
        /^(<svg[^>]*>)/,
        `$1<title>${escapeXml(title)}</title><desc>${escapeXml(desc)}</desc><style>${CHART_DARK_CSS}</style>`,
      );
  } finally {
    chart.dispose();
  }
}

type Build = (width: number) => { option: echarts.EChartsCoreOption; height: number };

function one(build: Build, width: number, title: string, desc: string): string {
  const { option, height } = build(width);
  return render(option, width, height, title, desc);
}

function both(build: Build, title: string, desc: string): ChartSvg {
  const svg = one(build, SCALABLE, title, desc);
  return { wide: svg, narrow: svg };
}

/**
 * What a value axis is drawn in units of: 1, or a power of ten when the largest value is below
 * 1e-15 or above 1e300. ECharts computes ticks with a decimal precision that gives out near 1e-19
 * (an assertion outside production, an axis without ticks in it) and its extent overflows to ∞
 * near the double maximum; such values (2.3e-53 s) are drawn divided by the unit and labelled
 * with their real values.
 */
export function axisUnit(values: Iterable<number>): number {
  let max = 0;
  for (const v of values) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  if (max === 0 || (max >= 1e-15 && max <= 1e300)) return 1;
  const k = 10 ** Math.floor(Math.log10(max));
  return k > 0 && Number.isFinite(k) ? k : max;
}

function quartiles(sorted: number[]): [number, number, number, number, number] {
  const q = (p: number) => {
    const i = (sorted.length - 1) * p;
    const lo = Math.floor(i);
    const hi = Math.ceil(i);
    return (sorted[lo] ?? 0) + ((sorted[hi] ?? 0) - (sorted[lo] ?? 0)) * (i - lo);
  };
  return [sorted[0] ?? 0, q(0.25), q(0.5), q(0.75), sorted.at(-1) ?? 0];
}

/**
 * Words wrapped to lines of at most `chars` characters. Done here rather than by ECharts: its
 * server-side text measure underestimates the browser's font, so its own wrapping overflows.
 */
function wrap(text: string, chars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > chars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
/** About 8.4 px per character of 14 px bold text in a system sans-serif. */
const titleChars = (width: number) => Math.floor((width - 8) / 8.4);
/** A title's "param = value" kept on one line: a value alone on the last line reads as an axis tick. */
const titleWrap = (text: string, width: number) =>
  wrap(text.replace(/(\S+) = (\S+)/g, '$1\uE000=\uE000$2'), titleChars(width)).map((l) => l.replace(/\uE000/g, ' '));
const chartTitle = (text: string, width: number) => ({
  text: titleWrap(text, width).join('\n'),
  left: 0,
  top: 0,
  textStyle: { fontSize: 14, fontWeight: 600, fontFamily: FONT, color: INK, lineHeight: 18 },
});
const legend = (names: string[], width: number) => ({
  data: names,
  bottom: 0,
  left: 0,
  itemWidth: 14,
  itemHeight: 10,
  // ECharts measures text with its own estimate; the browser's font runs wider, so leave room.
  itemGap: 30,
  textStyle: { color: INK, fontSize: 12, fontFamily: FONT },
  width: width - 8,
});
/** Lines the title takes at this width (approximate: 7.5 px per character at 14 px). */
const titleLines = (text: string, width: number) => titleWrap(text, width).length;
const valueAxis = (name: string, formatter: (v: number) => string, range: object = { scale: true }) => ({
  type: 'value' as const,
  name,
  nameLocation: 'middle' as const,
  nameGap: 28,
  nameTextStyle: { color: MUTED },
  ...range,
  axisLabel: { formatter, color: MUTED, hideOverlap: true },
  splitLine: { lineStyle: { color: '#e5e7eb' } },
});
/** Category labels wrap to at most `labelWidth` px instead of running off the left edge. */
const categoryAxis = (labels: string[], labelWidth: number) => ({
  type: 'category' as const,
  data: labels,
  inverse: true,
  axisLabel: { color: INK, width: labelWidth, overflow: 'break' as const, lineHeight: 14 },
  axisTick: { show: false },
  axisLine: { show: false },
});

export type DistributionInput = {
  title: string;
  variants: { label: string; values: number[] }[];
  axisName: string;
  formatValue: (v: number) => string;
  /** Axis ticks, when they want fewer digits than the values (default formatValue). */
  formatAxis?: (v: number) => string;
  /** Start the value axis at zero (throughput: a rate that halves looks halved); else it starts near the data. */
  fromZero?: boolean;
};

/**
 * Above this many repetitions in one chart the dots are drawn as one shape per chart (ECharts'
 * large scatter): a fleet's class group of 100 runs × 12 values drew 1,200 elements per width,
 * ~270 KB of SVG and ~20 ms each, and a scenario page of 75 such groups was 42 MB. Drawn as one
 * shape, dots that overlap no longer darken each other; the box still shows where they gather.
 */
export const MANY_DOTS = 200;
export const drawsDotsAsOneShape = (variants: readonly { values: readonly number[] }[]) =>
  variants.reduce((n, v) => n + v.values.length, 0) > MANY_DOTS;

/** Splits of a box plot's value axis: few enough that its labels fit a phone-wide drawing at 12 px. */
const BOX_SPLITS = 4;

/**
 * The value axis of a distribution chart, as drawn at every width: a round tick interval (the span
 * over BOX_SPLITS, rounded to 1, 2, 3, 5 or 10 × a power of ten, as ECharts rounds), the ends on
 * whole intervals around the data. An axis that starts at zero (`fromZero`, or data reaching 0 or
 * below, or a smallest value under one interval) starts there. Null: one value, or none (ECharts'
 * own extent). Given to ECharts explicitly, so the drawing and its note never disagree.
 */
function distributionAxis(
  input: Pick<DistributionInput, 'variants' | 'fromZero'>,
): { min: number; max: number; interval: number } | null {
  const values = input.variants.flatMap((v) => v.values).filter(Number.isFinite);
  if (values.length === 0) return null;
  const k = axisUnit(values);
  const lo = Math.min(...values) / k;
  const hi = Math.max(...values) / k;
  const fromZero = input.fromZero === true || lo <= 0;
  const span = hi - (fromZero ? Math.min(0, lo) : lo);
  if (!(span > 0)) return null;
  const raw = span / BOX_SPLITS;
  const exp10 = 10 ** Math.floor(Math.log10(raw));
  const f = raw / exp10;
  const interval = (f < 1.5 ? 1 : f < 2.5 ? 2 : f < 4 ? 3 : f < 7 ? 5 : 10) * exp10;
  const below = Math.floor(lo / interval) * interval;
  const min = fromZero ? Math.min(0, below) : below;
  const max = Math.ceil(hi / interval) * interval;
  // Tidy the float steps (0.30000000000000004) so tick labels read as round numbers.
  const tidy = (x: number) => Number(x.toPrecision(12));
  return { min: tidy(min), max: tidy(max === min ? min + interval : max), interval: tidy(interval) };
}

/** Where a distribution chart's value axis starts, in words: as distributionAxis draws it. */
export function distributionAxisNote(input: Pick<DistributionInput, 'variants' | 'fromZero'>): string {
  const values = input.variants.flatMap((v) => v.values).filter(Number.isFinite);
  const axis = distributionAxis(input);
  const atZero =
    axis === null ? input.fromZero === true || values.length === 0 || Math.min(...values) <= 0 : axis.min <= 0;
  return atZero ? 'The axis starts at zero.' : 'The axis starts near the smallest value, not at zero.';
}

/** The text alternative of a distribution chart: per variant its count, range and median. */
export const distributionDesc = (input: DistributionInput) =>
  input.variants
    .map((v) => {
      const s = [...v.values].sort((a, b) => a - b);
      const [, , med] = quartiles(s);
      return `${v.label}: ${v.values.length} values from ${input.formatValue(s[0] ?? 0)} to ${input.formatValue(s.at(-1) ?? 0)}, median ${input.formatValue(med)}`;
    })
    .join('; ');

function distributionBuild(input: DistributionInput): Build {
  const large = drawsDotsAsOneShape(input.variants);
  const labels = input.variants.map((v) => v.label);
  const k = axisUnit(input.variants.flatMap((v) => v.values));
  const format = input.formatAxis ?? input.formatValue;
  const axis = distributionAxis(input);
  return (w) => {
    const top = 14 + 18 * titleLines(input.title, w);
    return {
      height: top + 40 + 40 * Math.max(2, labels.length),
      option: {
        title: chartTitle(input.title, w),
        legend: legend(['repetitions', 'spread (quartiles, range)'], w),
        // The axis' labels and name sit inside the grid's bounds (outerBounds): below it only the legend.
        grid: { left: 18, right: 20, top: top + 6, bottom: 30, outerBoundsMode: 'same', outerBoundsContain: 'all' },
        xAxis: valueAxis(input.axisName, (v) => format(v * k), axis ?? { scale: !input.fromZero }),
        // Room for the longest label (about 7 px a character at 12 px), at most a third of the drawing.
        yAxis: categoryAxis(
          labels,
          Math.min(Math.ceil(w / 3), Math.max(60, 7 * Math.max(...labels.map((l) => l.length)))),
        ),
        series: [
          {
            type: 'boxplot',
            name: 'spread (quartiles, range)',
            data: input.variants.map((v) => quartiles(v.values.map((x) => x / k).sort((a, b) => a - b))),
            itemStyle: { color: '#eef2f7', borderColor: '#64748b' },
            boxWidth: [10, 24],
          },
          {
            type: 'scatter',
            name: 'repetitions',
            data: input.variants.flatMap((v) => v.values.map((x) => [x / k, v.label])),
            symbolSize: 8,
            itemStyle: { color: PALETTE[0], opacity: 0.75 },
            // Above the boxes (one large shape would otherwise be drawn beneath them).
            z: 3,
            ...(large ? { large: true, largeThreshold: MANY_DOTS } : {}),
          },
        ],
      },
    };
  };
}

/** Per-variant box plot with every repetition as a point on top (a strip chart). */
export function distributionChart(input: DistributionInput): ChartSvg {
  return both(distributionBuild(input), input.title, distributionDesc(input));
}

/** One width of `distributionChart` (a chart served as its own file, chart-files.ts). */
export function distributionChartAt(input: DistributionInput, width: 'wide' | 'narrow'): string {
  return one(distributionBuild(input), width === 'wide' ? WIDE : NARROW, input.title, distributionDesc(input));
}

export type DifferenceRow = {
  /** What this row is: the hardware class and whatever else differs between the rows (server, scale, sweep point). */
  label: string;
  /** Improvement of candidate over baseline in the metric's direction, as a fraction (0.375 = 37.5% faster), with its CI. */
  estimate: number;
  /** Null: unbounded (the Fieller interval has no end there). */
  low: number | null;
  high: number | null;
  significant: boolean;
  /** Decided equivalent: the interval lies within the scenario's margin (drawn grey, said so), even where it excludes ×1. */
  equivalent?: boolean;
  published: boolean;
  /** The interval's level as printed ("95%", or "98.3%" when the scenario's decisions share 5%); default 95%. */
  level?: string;
};

export type DifferenceInput = {
  title: string;
  rows: DifferenceRow[];
  /** The direction `estimate` is in: the chart draws the ratio candidate / baseline, which is 1 − estimate when lower is better. */
  direction: 'lower-is-better' | 'higher-is-better';
  baseline: string;
  candidate: string;
};

/** A ratio with the digits that tell it apart at this size: ×0.8, ×1.25, ×0.995, ×12. */
function formatRatio(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  const digits = Math.abs(Math.log10(Math.abs(v) || 1)) < 1 ? 3 : 2;
  const s = Number(v.toPrecision(digits)).toLocaleString('en-US', { maximumFractionDigits: 6 });
  return `×${s}`;
}

/** The ratio candidate / baseline and its interval, from the improvement; a bound at or below 0 (or none) is null: unbounded on a log axis. */
function ratioOf(r: DifferenceRow, direction: DifferenceInput['direction']) {
  const lower = direction === 'lower-is-better';
  const toRatio = (imp: number) => (lower ? 1 - imp : 1 + imp);
  const bound = (imp: number | null) => {
    if (imp === null || !Number.isFinite(imp)) return null;
    const x = toRatio(imp);
    return x > 0 && Number.isFinite(x) ? x : null;
  };
  // Lower is better: the improvement's high end is the ratio's low end.
  const low = bound(lower ? r.high : r.low);
  const high = lower
    ? r.low === null || !Number.isFinite(r.low)
      ? null
      : bound(r.low)
    : r.high === null || !Number.isFinite(r.high)
      ? null
      : bound(r.high);
  const est = toRatio(r.estimate);
  return { estimate: est > 0 ? est : null, low, high };
}

/** Round ratios spread over [lo, hi] (both > 0): steps of 0.05…0.5 on a short range, 1-2-5 per decade on a long one. */
function ratioTicks(lo: number, hi: number, most: number): number[] {
  if (hi / lo <= 4) {
    for (const step of [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1]) {
      const ticks: number[] = [];
      for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) ticks.push(Number(t.toFixed(6)));
      if (ticks.length <= most) return ticks.filter((t) => t > 0);
    }
  }
  for (const mults of [[1, 2, 5], [1, 3], [1]]) {
    const ticks: number[] = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++)
      for (const m of mults) {
        const t = Number((m * 10 ** e).toPrecision(6));
        if (t >= lo && t <= hi) ticks.push(t);
      }
    if (ticks.length <= most) return ticks;
  }
  const decades: number[] = [];
  const e0 = Math.ceil(Math.log10(lo));
  const e1 = Math.floor(Math.log10(hi));
  const every = Math.ceil((e1 - e0 + 1) / most);
  for (let e = e0; e <= e1; e += every) decades.push(10 ** e);
  return decades;
}

/**
 * The forest plot's ticks (logs of ratios) between the axis' ends `min` and `max` at width `w`,
 * leaving out a tick whose label (centred on it, about 6.6 px a character) would cross the
 * drawing's edge: the grid runs from 12 px to w − 16 px.
 */
function fittingTicks(min: number, max: number, w: number): number[] {
  const labelFits = (t: number) => {
    const x = 12 + ((t - min) / (max - min)) * (w - 28);
    const half = (formatRatio(Math.exp(t)).length * 6.6) / 2;
    return x - half >= 0 && x + half <= w;
  };
  return ratioTicks(Math.exp(min), Math.exp(max), w < 500 ? 4 : 7)
    .map(Math.log)
    .filter(labelFits);
}

/** The text of a row: what it is, the ratio and its interval, an unbounded side said in words. */
function differenceRowText(r: DifferenceRow, direction: DifferenceInput['direction']): string {
  const q = ratioOf(r, direction);
  const est = q.estimate === null ? 'no ratio (at or below 0)' : formatRatio(q.estimate);
  const ci =
    q.low === null && q.high === null
      ? UNBOUNDED_INTERVAL_TEXT
      : q.low === null
        ? `unbounded below, to ${formatRatio(q.high!)}`
        : q.high === null
          ? `${formatRatio(q.low)}, unbounded above`
          : `${formatRatio(q.low)} to ${formatRatio(q.high)}`;
  return `${r.label}: ${est} (${r.level ?? '95%'} CI ${ci})`;
}

/** Marks of one row in the chart's SVG: its band, label, interval line, end caps and arrows (the browser test reads them). */
export const DIFFERENCE_BAND_FILL = ['#f1f4f8', '#fbfcfd'] as const;
export const DIFFERENCE_CAP_WIDTH = 2.25;

/**
 * A forest plot of the ratio candidate / baseline on a log axis (×0.5 and ×2 equally far from
 * ×1): one row per group, its label (wrapped, above the interval, so it never collides with a
 * neighbour's at phone width) naming what differs, the estimate on its own row with its 95% CI.
 * An unbounded side (no Fieller bound, or a bound at or below 0 that a log axis cannot show) runs
 * to the edge as an arrow with no end cap, and the row's text says so. Measured groups are
 * circles, the article's diamonds; a filled marker is a significant difference, a grey one a decided
 * equivalence (within the margin); dashed: ×1.
 */
export function differenceChart(input: DifferenceInput): ChartSvg {
  const { rows, direction } = input;
  const ratios = rows.map((r) => ratioOf(r, direction));
  const finite = ratios.flatMap((q) => [q.estimate, q.low, q.high]).filter((x): x is number => x !== null && x > 0);
  const lo = Math.min(1, ...finite);
  const hi = Math.max(1, ...finite);
  const span = Math.log(hi / lo) || Math.log(1.2);
  const min = Math.log(lo) - span * 0.08;
  const max = Math.log(hi) + span * 0.08;
  const texts = rows.map((r) => differenceRowText(r, direction));
  const mark = (r: DifferenceRow) =>
    r.significant ? ', significant' : r.equivalent ? ', equivalent within the margin' : ', not significant';
  const desc = rows.map((r, i) => `${texts[i]}${mark(r)}`).join('; ');
  const better = direction === 'lower-is-better' ? 'below ×1: less' : 'above ×1: more';
  const axisName = `${input.candidate} / ${input.baseline} (log scale; ${better} is better)`;
  return both(
    (w) => {
      const top = 14 + 18 * titleLines(input.title, w);
      const chars = Math.floor((w - 30) / 6.6);
      const wrapped = texts.map((t) => wrap(t, chars));
      const lines = Math.max(1, ...wrapped.map((l) => l.length));
      const band = lines * 15 + 30;
      const plotHeight = band * rows.length;
      const ticks = fittingTicks(min, max, w);
      // The interval sits this far down its band: below the label.
      const at = (lines * 15 + 16) / band;
      const marker = (published: boolean) =>
        rows.map((r, i) => {
          const q = ratios[i]!;
          return r.published === published && q.estimate !== null
            ? {
                value: [Math.log(q.estimate), i + at],
                itemStyle: {
                  color: r.significant ? PALETTE[published ? 1 : 0] : r.equivalent ? '#9e9e9e' : '#ffffff',
                  borderColor: PALETTE[published ? 1 : 0],
                  borderWidth: 2,
                  opacity: 1,
                },
              }
            : { value: [null, i + at] };
        });
      return {
        height: top + 16 + plotHeight + 74,
        option: {
          title: chartTitle(input.title, w),
          // Only the kinds of marker the chart holds.
          legend: legend(
            [
              ...(rows.some((r) => !r.published) ? ['measured here'] : []),
              ...(rows.some((r) => r.published) ? ['published (article)'] : []),
            ],
            w,
          ),
          grid: { left: 12, right: 16, top: top + 12, height: plotHeight, outerBoundsMode: 'none' },
          xAxis: {
            type: 'value' as const,
            min,
            max,
            name: axisName,
            nameLocation: 'middle' as const,
            nameGap: 28,
            nameTextStyle: { color: MUTED, width: w - 30, overflow: 'break' as const },
            axisLabel: { formatter: (v: number) => formatRatio(Math.exp(v)), color: MUTED, customValues: ticks },
            axisTick: { customValues: ticks },
            splitLine: { show: true, lineStyle: { color: '#e5e7eb' }, customValues: ticks },
          },
          yAxis: { type: 'value' as const, min: 0, max: rows.length, inverse: true, show: false },
          series: [
            {
              type: 'custom',
              name: '95% CI',
              silent: true,
              data: rows.map((_, i) => [i]),
              z: 1,
              renderItem: intervalRenderer({ ratios, wrapped, band, lines, at, min }),
            },
            {
              type: 'scatter',
              name: 'measured here',
              symbol: 'circle',
              data: marker(false),
              symbolSize: 11,
              itemStyle: { color: PALETTE[0] },
              z: 3,
            },
            {
              type: 'scatter',
              name: 'published (article)',
              symbol: 'diamond',
              data: marker(true),
              symbolSize: 13,
              itemStyle: { color: PALETTE[1] },
              z: 3,
            },
          ],
        },
      };
    },
    input.title,
    desc,
  );
}

/** What differenceChart's rows look like at one width, for drawing each row's band, label and interval. */
type RowLayout = {
  ratios: readonly ReturnType<typeof ratioOf>[];
  wrapped: readonly string[][];
  /** Height of a row's band, and of its label lines; `at`: where the interval sits down the band (0–1). */
  band: number;
  lines: number;
  at: number;
  /** The axis' left end (log of the ratio). */
  min: number;
};

/** ECharts' custom series renderer of one row: band, wrapped label, dashed ×1, the interval with caps or arrows. */
function intervalRenderer({ ratios, wrapped, band, lines, at, min }: RowLayout) {
  return (
    params: { coordSys: { x: number; y: number; width: number; height: number } },
    api: { value: (d: number) => number; coord: (v: number[]) => number[] },
  ) => {
    const i = api.value(0);
    const q = ratios[i]!;
    const { x: left, width } = params.coordSys;
    const y0 = api.coord([min, i])[1]!;
    const y = api.coord([min, i + at])[1]!;
    const xl = q.low === null ? left : api.coord([Math.log(q.low), 0])[0]!;
    const xh = q.high === null ? left + width : api.coord([Math.log(q.high), 0])[0]!;
    const x1 = api.coord([0, 0])[0]!;
    const stroke = { stroke: INK, lineWidth: 1.5 };
    const cap = (x: number) => ({
      type: 'line',
      shape: { x1: x, y1: y - 7, x2: x, y2: y + 7 },
      style: { stroke: INK, lineWidth: DIFFERENCE_CAP_WIDTH },
    });
    const arrow = (x: number, dir: -1 | 1) => ({
      type: 'polygon',
      shape: {
        points: [
          [x, y],
          [x - dir * 9, y - 5],
          [x - dir * 9, y + 5],
        ],
      },
      style: { fill: INK },
    });
    return {
      type: 'group',
      children: [
        {
          type: 'rect',
          shape: { x: left - 8, y: y0, width: width + 12, height: band },
          style: { fill: DIFFERENCE_BAND_FILL[i % 2] },
        },
        ...wrapped[i]!.map((text, k) => ({
          type: 'text',
          x: left - 4,
          y: y0 + 6 + k * 15,
          style: { text, fill: INK, fontSize: 12, fontFamily: FONT },
        })),
        // No difference (×1), dashed, under the interval only: never through a label.
        {
          type: 'line',
          shape: { x1: x1, y1: y0 + lines * 15 + 6, x2: x1, y2: y0 + band },
          style: { stroke: INK, lineWidth: 1.2, lineDash: [4.8, 2.4] },
        },
        { type: 'line', shape: { x1: xl, y1: y, x2: xh, y2: y }, style: stroke },
        q.low === null ? arrow(left, -1) : cap(xl),
        q.high === null ? arrow(left + width, 1) : cap(xh),
      ],
    };
  };
}

export type LineInput = {
  title: string;
  xName: string;
  yName: string;
  log: 'none' | 'x' | 'y' | 'xy';
  formatY: (v: number) => string;
  /** The y axis' ticks, when they want other digits than the values (default formatY). */
  formatAxisY?: (v: number) => string;
  formatX?: (v: number) => string;
  /**
   * One line per variant (measured), points sorted by x. A point of one value (`n` 1) is drawn
   * hollow and no line is drawn through it: a line between single runs would show a trend that
   * one run cannot tell from noise.
   */
  lines: { label: string; points: { x: number; y: number; low?: number; high?: number; n?: number }[] }[];
  /** The article's points, drawn as hollow diamonds beside the measured lines. */
  published?: { label: string; points: { x: number; y: number }[] }[];
  /** Marked points (a crossing of two lines, a verdict at a sweep point). */
  marks?: { x: number; y: number; text: string }[];
};

/** The points of one value (n = 1) of each line, hollow, as a scatter under the line's name (one legend entry). */
function singlePoints(lines: LineInput['lines'], at: (p: { x: number; y: number }) => number[]) {
  return lines.flatMap((l, i) => {
    const single = l.points.filter((p) => p.n === 1);
    if (single.length === 0) return [];
    const color = PALETTE[i % PALETTE.length];
    return [
      {
        type: 'scatter',
        name: l.label,
        data: single.map(at),
        symbol: 'circle',
        symbolSize: 9,
        itemStyle: { color: '#ffffff', borderColor: color, borderWidth: 2 },
      },
    ];
  });
}

/** Metric vs sweep point or time-series x: lines per variant, optional log axes. */
export function lineChart(input: LineInput): ChartSvg {
  const logX = input.log === 'x' || input.log === 'xy';
  const logY = input.log === 'y' || input.log === 'xy';
  const fx = input.formatX ?? ((v: number) => v.toLocaleString('en-US'));
  const names = [...input.lines.map((l) => l.label), ...(input.published ?? []).map((p) => `${p.label} (published)`)];
  const desc = [
    ...input.lines.map(
      (l) =>
        `${l.label}: ${l.points.map((p) => `${fx(p.x)} → ${input.formatY(p.y)}${p.n === 1 ? ' (n = 1)' : ''}`).join(', ')}`,
    ),
    ...(input.published ?? []).map(
      (l) => `${l.label} (published): ${l.points.map((p) => `${fx(p.x)} → ${input.formatY(p.y)}`).join(', ')}`,
    ),
    ...(input.marks ?? []).map((m) => m.text),
  ].join('; ');
  const points = [
    ...input.lines.flatMap((l) => l.points),
    ...(input.published ?? []).flatMap((l) => l.points),
    ...(input.marks ?? []),
  ];
  const kx = axisUnit(points.map((p) => p.x));
  const ky = axisUnit(points.map((p) => p.y));
  const at = (p: { x: number; y: number }) => [p.x / kx, p.y / ky];
  // Integer parameters (virtual users, table counts) get integer ticks.
  const integerX = points.every((p) => Number.isInteger(p.x / kx));
  const axis = (log: boolean, name: string, formatter: (v: number) => string, gap: number, fromZero: boolean) => ({
    type: log ? ('log' as const) : ('value' as const),
    name,
    nameLocation: 'middle' as const,
    nameGap: gap,
    nameTextStyle: { color: MUTED },
    // A value axis starts at zero (a throughput that halves looks halved); x may start where the data does.
    scale: !log && !fromZero,
    axisLabel: { formatter, color: MUTED, hideOverlap: true },
    splitLine: { lineStyle: { color: '#e5e7eb' } },
  });
  return both(
    (w) => {
      const top = 14 + 18 * titleLines(input.title, w);
      const legendRows = Math.ceil(names.reduce((s, n) => s + n.length * 7 + 30, 0) / (w - 8));
      return {
        height: top + 230 + 20 * legendRows,
        option: {
          title: chartTitle(input.title, w),
          legend: legend(names, w),
          grid: {
            left: 8,
            right: 24,
            top: top + 10,
            bottom: 48 + 20 * legendRows,
            outerBoundsMode: 'same',
            outerBoundsContain: 'all',
          },
          xAxis: {
            ...axis(logX, input.xName, (v) => fx(v * kx), 26, false),
            ...(integerX && !logX ? { minInterval: 1 } : {}),
          },
          yAxis: {
            ...axis(logY, input.yName, (v) => (input.formatAxisY ?? input.formatY)(v * ky), 0, true),
            nameLocation: 'end' as const,
            nameGap: 8,
            nameTextStyle: { color: MUTED, align: 'left' as const },
          },
          series: [
            ...input.lines.map((l, i) => ({
              type: 'line',
              name: l.label,
              // '-' leaves a gap: the line is drawn only between points of more than one value.
              data: l.points.map((p) => (p.n === 1 ? [p.x / kx, '-'] : at(p))),
              symbol: 'circle',
              symbolSize: 7,
              lineStyle: { width: 2, color: PALETTE[i % PALETTE.length] },
              itemStyle: { color: PALETTE[i % PALETTE.length] },
              ...(i === 0 && input.marks && input.marks.length > 0
                ? {
                    markPoint: {
                      symbol: 'pin',
                      symbolSize: 34,
                      itemStyle: { color: INK },
                      label: { show: false },
                      data: input.marks.map((m) => ({ coord: at(m), name: m.text })),
                    },
                  }
                : {}),
            })),
            ...singlePoints(input.lines, at),
            ...(input.published ?? []).map((l, i) => ({
              type: 'scatter',
              name: `${l.label} (published)`,
              data: l.points.map(at),
              symbol: 'diamond',
              symbolSize: 12,
              itemStyle: { color: '#ffffff', borderColor: PALETTE[i % PALETTE.length], borderWidth: 2 },
            })),
          ],
        },
      };
    },
    input.title,
    desc,
  );
}
