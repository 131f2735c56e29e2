/**
 * Charts are SVG strings rendered at build time by Apache ECharts' server-side renderer
 * (https://echarts.apache.org/handbook/en/how-to/cross-platform/server/), so pages need no
 * JavaScript. Each chart gets a <title> and <desc> inside the SVG; the page wraps it in a
 * <figure role="img" aria-label> with a caption. Every chart is rendered twice, wide and narrow,
 * so text stays readable on a phone (the page shows one of the two with CSS).
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
          `<svg${attrs.replace(/\s(width|height|viewBox)="[^"]*"/g, '')} viewBox="0 0 ${width} ${height}" preserveAspectRatio="xMidYMid meet" focusable="false">`,
      )
      .replace(/^(<svg[^>]*>)/, `$1<title>${escapeXml(title)}</title><desc>${escapeXml(desc)}</desc>`);
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
  return { wide: one(build, WIDE, title, desc), narrow: one(build, NARROW, title, desc) };
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
const chartTitle = (text: string, width: number) => ({
  text: wrap(text, titleChars(width)).join('\n'),
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
const titleLines = (text: string, width: number) => wrap(text, titleChars(width)).length;
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
  return (w) => {
    const top = 14 + 18 * titleLines(input.title, w);
    return {
      height: top + 70 + 40 * Math.max(2, labels.length),
      option: {
        title: chartTitle(input.title, w),
        legend: legend(['repetitions', 'spread (quartiles, range)'], w),
        grid: { left: 18, right: 20, top: top + 6, bottom: 62, outerBoundsMode: 'same', outerBoundsContain: 'all' },
        xAxis: valueAxis(input.axisName, (v) => format(v * k), { scale: !input.fromZero }),
        yAxis: categoryAxis(labels, w < 500 ? 70 : 140),
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

export type DifferenceInput = {
  title: string;
  /** Improvement of candidate over baseline as a fraction (0.375 = 37.5% faster), with its CI. */
  rows: {
    label: string;
    estimate: number;
    low: number | null;
    high: number | null;
    significant: boolean;
    published: boolean;
  }[];
  axisName: string;
};

/**
 * A forest plot: per hardware group the improvement with its 95% CI and a line at zero. Measured
 * groups are circles, the article's diamonds; a filled marker is a significant difference.
 */
export function differenceChart(input: DifferenceInput): ChartSvg {
  const rows = input.rows;
  const pct = (v: number) => `${(v * 100).toFixed(0)}%`;
  const finiteEnds = rows
    .flatMap((r) => [r.estimate, r.low, r.high])
    .filter((x): x is number => x !== null && Number.isFinite(x));
  const lo = Math.min(0, ...finiteEnds);
  const hi = Math.max(0, ...finiteEnds);
  const pad = (hi - lo) * 0.05 || 0.05;
  const min = Math.floor((lo - pad) * 20) / 20;
  const max = Math.ceil((hi + pad) * 20) / 20;
  const desc = rows
    .map(
      (r) =>
        `${r.label}${r.published ? ' (published)' : ''}: ${pct(r.estimate)} (95% CI ${r.low === null || r.high === null ? UNBOUNDED_INTERVAL_TEXT : `${pct(r.low)} to ${pct(r.high)}`})${r.significant ? ', significant' : ', not significant'}`,
    )
    .join('; ');
  const marker = (published: boolean) =>
    rows.map((r) =>
      r.published === published
        ? {
            value: [r.estimate, r.label],
            itemStyle: {
              color: r.significant ? PALETTE[published ? 1 : 0] : '#ffffff',
              borderColor: PALETTE[published ? 1 : 0],
              borderWidth: 2,
            },
          }
        : { value: [null, r.label] },
    );
  return both(
    (w) => {
      const top = 14 + 18 * titleLines(input.title, w);
      return {
        height: top + 78 + 42 * Math.max(2, rows.length),
        option: {
          title: chartTitle(input.title, w),
          legend: legend(['measured here', 'published (article)', '95% CI'], w),
          grid: { left: 18, right: 20, top: top + 6, bottom: 64, outerBoundsMode: 'same', outerBoundsContain: 'all' },
          // Not pinned to min/max: ECharts picks round ticks, and a value axis always shows 0.
          xAxis: valueAxis(input.axisName, pct, { scale: false }),
          yAxis: categoryAxis(
            rows.map((r) => r.label),
            w < 500 ? 110 : 200,
          ),
          series: [
            {
              // The interval drawn as whiskers: a box plot whose box collapses onto the estimate.
              type: 'boxplot',
              name: '95% CI',
              data: rows.map((r) => [r.low ?? min, r.estimate, r.estimate, r.estimate, r.high ?? max]),
              itemStyle: { color: 'transparent', borderColor: INK, borderWidth: 1.5 },
              boxWidth: [14, 14],
              z: 2,
            },
            {
              type: 'scatter',
              name: 'measured here',
              symbol: 'circle',
              data: marker(false),
              symbolSize: 11,
              itemStyle: { color: PALETTE[0] },
              z: 3,
              // Drawn above the grid and the axis, so "no difference" is always visible.
              markLine: {
                silent: true,
                symbol: 'none',
                z: 5,
                label: { show: false },
                lineStyle: { color: INK, type: 'dashed', width: 1.2 },
                data: [{ xAxis: 0 }],
              },
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

export type LineInput = {
  title: string;
  xName: string;
  yName: string;
  log: 'none' | 'x' | 'y' | 'xy';
  formatY: (v: number) => string;
  formatX?: (v: number) => string;
  /** One line per variant (measured), points sorted by x. */
  lines: { label: string; points: { x: number; y: number; low?: number; high?: number }[] }[];
  /** The article's points, drawn as hollow diamonds beside the measured lines. */
  published?: { label: string; points: { x: number; y: number }[] }[];
  /** Marked points (a crossing of two lines, a verdict at a sweep point). */
  marks?: { x: number; y: number; text: string }[];
};

/** Metric vs sweep point or time-series x: lines per variant, optional log axes. */
export function lineChart(input: LineInput): ChartSvg {
  const logX = input.log === 'x' || input.log === 'xy';
  const logY = input.log === 'y' || input.log === 'xy';
  const fx = input.formatX ?? ((v: number) => v.toLocaleString('en-US'));
  const names = [...input.lines.map((l) => l.label), ...(input.published ?? []).map((p) => `${p.label} (published)`)];
  const desc = [
    ...input.lines.map((l) => `${l.label}: ${l.points.map((p) => `${fx(p.x)} → ${input.formatY(p.y)}`).join(', ')}`),
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
            ...axis(logY, input.yName, (v) => input.formatY(v * ky), 0, true),
            nameLocation: 'end' as const,
            nameGap: 8,
            nameTextStyle: { color: MUTED, align: 'left' as const },
          },
          series: [
            ...input.lines.map((l, i) => ({
              type: 'line',
              name: l.label,
              data: l.points.map(at),
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
