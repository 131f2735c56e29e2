/**
 * The charts a scenario declares in `report.charts` (scenario.yaml), built from the runs alone:
 * - sweep: a metric against the sweep point (samples' `point.value`), one line per variant and
 *   hardware class, the article's points (published runs) drawn apart;
 * - series: a time-series metric (TimeSeriesPoint) against its x, one line per variant, mean over
 *   repetitions at each x, crossings of the declared pairs' lines marked.
 * No scenario-specific code: a new scenario only declares its charts.
 */
import { metricName } from './format.ts';
import type { ReportChart, RunDetail } from '@tunelab/contracts';
import { classLabel, declaredCrossings, type SeriesPoint } from '@tunelab/answers';
import { lineChart, type ChartSvg } from './charts.ts';
import type { ScenarioView, SiteData } from './load.ts';
import { unitFor } from './units.ts';

export type DeclaredChart = {
  id: string;
  /** The metric drawn: the page shows the answer's metric first and folds the others. */
  metric: string;
  heading: string;
  svg: ChartSvg;
  label: string;
  caption: string;
  /** Per sweep point, the verdict of each declared pair on this class (sweep charts of the primary metric). */
  verdicts: { point: string; sentences: { kind: string; text: string }[] }[];
};

type Acc = Map<string, Map<number, number[]>>; // variant → x → values

function add(acc: Acc, variant: string, x: number, value: number) {
  const perX = acc.get(variant) ?? new Map<number, number[]>();
  const list = perX.get(x);
  if (list) list.push(value);
  else perX.set(x, [value]);
  acc.set(variant, perX);
}

const meanOf = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;

const variantKey = (labels: Record<string, string>, keys: string[]) =>
  keys
    .filter((k) => labels[k])
    .map((k) => `${k} = ${labels[k]}`)
    .join('; ');

/** On a logarithmic axis a value ≤ 0 cannot be drawn: dropped, and counted for the caption. */
function dropNonPositive<T extends { points: { x: number; y: number }[] }>(
  lines: T[],
  logX: boolean,
  logY: boolean,
): { lines: T[]; dropped: number } {
  let dropped = 0;
  const out = lines.map((l) => {
    const kept = l.points.filter((p) => (!logX || p.x > 0) && (!logY || p.y > 0));
    dropped += l.points.length - kept.length;
    return { ...l, points: kept };
  });
  return { lines: out, dropped };
}

function toLines(acc: Acc, scale: (v: number) => number) {
  return [...acc.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([variant, perX]) => ({
      variant,
      // Legends carry the key only; the caption spells the labels out (long legend text overlaps).
      label: variant,
      points: [...perX.entries()]
        .sort(([a], [b]) => a - b)
        .map(([x, ys]) => ({
          x,
          y: scale(meanOf(ys)),
          low: scale(Math.min(...ys)),
          high: scale(Math.max(...ys)),
          n: ys.length,
        })),
    }));
}

/** A scenario's runs: measured ones per hardware class, and the article's. */
export function runsOf(
  sc: ScenarioView,
  data: SiteData,
): { measured: Map<string, RunDetail[]>; published: RunDetail[] } {
  const measured = new Map<string, RunDetail[]>();
  const published: RunDetail[] = [];
  for (const r of data.runs) {
    if (r.scenario.key !== sc.key) continue;
    const run = data.runDetail.get(r.id);
    if (!run) continue;
    if (r.source === 'published') published.push(run);
    else {
      const list = measured.get(r.hardware.class);
      if (list) list.push(run);
      else measured.set(r.hardware.class, [run]);
    }
  }
  return { measured, published };
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();

export function declaredCharts(sc: ScenarioView, data: SiteData): DeclaredChart[] {
  const doc = sc.folder?.doc;
  if (!doc) return [];
  const { measured, published } = runsOf(sc, data);
  const out: DeclaredChart[] = [];
  for (const chart of doc.report.charts) {
    for (const [cls, runs] of [...measured.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      if (chart.kind === 'sweep') {
        const built = sweep(sc, chart, cls, runs, published);
        if (built) out.push(built);
        continue;
      }
      // A time series of a swept scenario is drawn once per sweep point: averaging the
      // per-second curves of 1 and 4 users would describe neither.
      for (const point of seriesPoints(runs, chart.metric)) {
        const built = series(sc, chart, cls, runs, point);
        if (built) out.push(built);
      }
    }
  }
  return out;
}

/** The lines are already in the display unit (toLines scaled them): format without scaling again. */
const scaledFormat = (unit: { decimals: number }) => (v: number) =>
  v.toLocaleString('en-US', { minimumFractionDigits: unit.decimals, maximumFractionDigits: unit.decimals });

/**
 * An axis tick: the value's decimals, or more when the tick needs them (ticks 0.2, 0.4, 0.6 of a
 * metric shown without decimals read "0 0 0" with the values' format). Ticks are round numbers,
 * so their own digits are few; float noise (0.30000000000000004) is cut at 12 significant digits.
 */
export const tickFormat = (unit: { decimals: number }) => (v: number) =>
  Number(v.toPrecision(12)).toLocaleString('en-US', {
    minimumFractionDigits: unit.decimals,
    maximumFractionDigits: Math.max(unit.decimals, 10),
  });

function sweep(
  sc: ScenarioView,
  chart: Extract<ReportChart, { kind: 'sweep' }>,
  cls: string,
  runs: RunDetail[],
  published: RunDetail[],
): DeclaredChart | null {
  const metric = sc.folder?.doc.metrics.find((m) => m.key === chart.metric);
  const mine: Acc = new Map();
  const theirs: Acc = new Map();
  let param: string | null = null;
  const values: number[] = [];
  for (const [acc, list] of [
    [mine, runs],
    [theirs, published],
  ] as const) {
    for (const run of list) {
      for (const s of run.samples) {
        if (s.metric !== chart.metric || !s.point) continue;
        param ??= s.point.param;
        add(acc, s.variant, s.point.value, s.value);
        if (acc === mine) values.push(s.value);
      }
    }
  }
  if (mine.size === 0 || param === null) return null;
  const unit = unitFor(metric?.unit ?? '', values);
  const logX = chart.log === 'x' || chart.log === 'xy';
  const logY = chart.log === 'y' || chart.log === 'xy';
  const measuredLines = dropNonPositive(toLines(mine, unit.scale), logX, logY);
  const publishedLines = dropNonPositive(toLines(theirs, unit.scale), logX, logY);
  const lines = measuredLines.lines;
  const pub = publishedLines.lines;
  const dropped = measuredLines.dropped + publishedLines.dropped;
  const keys = variantKey(sc.variantLabels, [...mine.keys()]);
  const paramDef = sc.folder?.doc.params[param];
  const xName = chart.x_label ?? paramDef?.description?.split(/[;,.(]/)[0]?.trim() ?? param;
  const label = metricName(chart.metric, metric?.label);
  const title = `${chart.title ?? `${label} per ${xName}`}: ${classLabel(cls)}`;
  const single = lines.reduce((k, l) => k + l.points.filter((p) => p.n === 1).length, 0);
  // The comparisons per point exist for the primary metric (the groups the answer block reads).
  const verdicts =
    sc.metric.key === chart.metric
      ? sc.classGroups
          .filter((g) => g.hardware.class === cls && g.point)
          .sort((a, b) => (a.point?.value ?? 0) - (b.point?.value ?? 0))
          .map((g) => ({
            point: `${xName} = ${(g.point?.value ?? 0).toLocaleString('en-US')}`,
            sentences: g.comparisons.map((c) => ({ kind: c.verdict.kind, text: c.verdict.sentence })),
          }))
      : [];
  return {
    id: `chart-${slug(chart.metric)}-${slug(cls)}`,
    metric: chart.metric,
    heading: title,
    verdicts,
    svg: lineChart({
      title,
      xName,
      yName: unit.label,
      log: chart.log,
      formatY: scaledFormat(unit),
      formatAxisY: tickFormat(unit),
      lines,
      published: pub,
    }),
    label: `Line chart of ${label} against ${xName} per variant on ${classLabel(cls)}${pub.length > 0 ? ', with the article’s points' : ''}`,
    caption: `${label} (${unit.label}) at each ${xName}, mean over repetitions, one line per variant, ${classLabel(cls)}.${pub.length > 0 ? ' Hollow diamonds: the article’s figures.' : ''}${single > 0 ? ` Hollow circles: ${single === 1 ? 'a point' : `${single} points`} of one value only (n = 1), which no line is drawn through.` : ''}${chart.log !== 'none' ? ` Logarithmic ${chart.log === 'xy' ? 'axes' : `${chart.log} axis`}${dropped > 0 ? `; ${dropped} ${dropped === 1 ? 'value' : 'values'} of 0 cannot be drawn on it and ${dropped === 1 ? 'is' : 'are'} left out (see the tables)` : ''}.` : ''}${keys ? ` ${keys}.` : ''}`,
  };
}

type Point = { param: string; value: number } | undefined;
const samePoint = (a: Point, b: Point) => a?.param === b?.param && a?.value === b?.value;

/** The sweep points a series metric was recorded at, in order (`[undefined]` without a sweep). */
function seriesPoints(runs: RunDetail[], metric: string): Point[] {
  const out: Point[] = [];
  for (const run of runs)
    for (const p of run.timeSeries)
      if (p.metric === metric && !out.some((q) => samePoint(q, p.point))) out.push(p.point);
  return out.sort((a, b) => (a?.value ?? 0) - (b?.value ?? 0));
}

function series(
  sc: ScenarioView,
  chart: Extract<ReportChart, { kind: 'series' }>,
  cls: string,
  runs: RunDetail[],
  point: Point,
): DeclaredChart | null {
  const acc: Acc = new Map();
  const values: number[] = [];
  const shown: SeriesPoint[] = [];
  const at = point ? ` · ${point.param} = ${point.value.toLocaleString('en-US')}` : '';
  for (const run of runs) {
    for (const p of run.timeSeries) {
      if (p.metric !== chart.metric || !samePoint(p.point, point)) continue;
      add(acc, p.variant, p.x, p.value);
      values.push(p.value);
      shown.push({
        run: run.id,
        variant: p.variant,
        repetition: p.repetition,
        metric: p.metric,
        x: p.x,
        value: p.value,
      });
    }
  }
  if (acc.size === 0) return null;
  const declared = sc.folder?.doc.metrics.find((m) => m.key === chart.metric);
  const unit = unitFor(chart.unit ?? declared?.unit ?? '', values);
  const lines = toLines(acc, unit.scale);
  const marks: { x: number; y: number; text: string }[] = [];
  // The crossings of the points drawn, from the answer engine (the runner's report and the API use it too).
  const crossed = sc.folder ? declaredCrossings(sc.folder.doc, shown) : [];
  for (const c of crossed) {
    const first = c.crossings[0];
    if (c.metric !== chart.metric || !first) continue;
    if (marks.some((m) => m.text.startsWith(`${c.candidate} and ${c.baseline} `))) continue;
    marks.push({
      x: first.x,
      y: unit.scale(first.y),
      text: `${c.candidate} and ${c.baseline} cross at ${chart.x_label ?? 'x'} ≈ ${Math.round(first.x).toLocaleString('en-US')}`,
    });
  }
  const xName = chart.x_label ?? 'x';
  const label = metricName(chart.metric, declared?.label);
  const title = `${chart.title ?? `${label} against ${xName}`}: ${classLabel(cls)}${at}`;
  return {
    id: `chart-${slug(chart.metric)}-${slug(cls)}${point ? `-${slug(`${point.param}-${point.value}`)}` : ''}`,
    metric: chart.metric,
    heading: title,
    verdicts: [],
    svg: lineChart({
      title,
      xName: chart.x_unit ? `${xName} (${chart.x_unit})` : xName,
      yName: unit.label,
      log: chart.log,
      formatY: scaledFormat(unit),
      formatAxisY: tickFormat(unit),
      lines,
      marks,
    }),
    label: `Line chart of ${label} against ${xName} per variant on ${classLabel(cls)}${at}`,
    caption: `${label} (${unit.label}) against ${xName}, mean over repetitions, one line per variant, ${classLabel(cls)}${at}. ${variantKey(sc.variantLabels, [...acc.keys()])}.${marks.length > 0 ? ` ${marks.map((m) => m.text).join('; ')} (pin).` : ' The lines do not cross.'}`,
  };
}

/**
 * The charts a scenario page shows open — those of the answer's metric, or the first chart when
 * none is — and the others, which are on the scenario's charts page (src/pages/scenarios/[key]/charts).
 */
export function chartsByPlace(sc: ScenarioView, charts: readonly DeclaredChart[]) {
  const open = charts.some((c) => c.metric === sc.metric.key)
    ? charts.filter((c) => c.metric === sc.metric.key)
    : charts.slice(0, 1);
  return { open, elsewhere: charts.filter((c) => !open.includes(c)) };
}
