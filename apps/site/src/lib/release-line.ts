/**
 * The drawing of a release line (ReleaseLine.astro): one series of a scenario's answers'
 * `releaseLine` (@tunelab/answers' releases.ts computes the ratios, steps and which are reported),
 * laid out as an SVG — the pair's ratio candidate ÷ baseline on every measured release, oldest on
 * the left, its interval as a whisker, each major a band, each reported change marked at the
 * release that introduced it, and each release whose runs changed over time (its `drift`: the
 * machine or its kernel, not the release) ringed. Only positions and words are made here.
 */
import { classLabel, measuredOnBusyMachine } from '@tunelab/answers';
import { majorOfRelease, type ReleasePoint, type ReleaseSeries, type ReleaseStep } from '@tunelab/contracts';
import { formatLevel, formatP, formatPercent } from '@tunelab/stats';

/** Drawn at two widths: the page's, and a phone's (where the wide one would shrink its text by half). */
export const WIDTHS = { wide: 720, narrow: 360 } as const;
export const HEIGHT = 260;
const PAD = { left: 46, right: 8, top: 16, bottom: 58 };
/** Rows a change's label may take, and the room one character of it needs (11 px bold). */
const MARK_ROWS = 3;
const labelWidth = (label: string) => 6 + label.length * 7;

/** `cut`: the interval reaches beyond the drawing at that end (or is unbounded there): drawn with an arrow. */
export type LinePoint = {
  release: string;
  x: number;
  y: number;
  low: number;
  high: number;
  cut: { low: boolean; high: boolean };
  /** Every run on this release was flagged noisy: drawn hollow, no change to or from it reported. */
  busy: boolean;
  title: string;
};
export type LineBand = { major: number; x: number; width: number; shaded: boolean };
/** A reported change at a release; `row` lifts its label below a neighbour's it would overlap (0: the top row). */
export type LineMark = { x: number; label: string; up: boolean; title: string; row: number };
/** A release whose runs changed over time: a ring round its dot. */
export type LineDrift = { x: number; y: number; title: string };
export type ReleaseLineDrawing = {
  points: LinePoint[];
  path: string;
  bands: LineBand[];
  marks: LineMark[];
  drifts: LineDrift[];
  ticks: { y: number; label: string }[];
  /** y of ratio 1 (no difference) when inside the drawn range. */
  one: number | null;
  width: number;
  plot: { top: number; bottom: number; left: number; right: number };
};

/** A relative change with its sign: +14.2%, −3.1%. */
export const signed = (x: number) => `${x >= 0 ? '+' : '−'}${formatPercent(Math.abs(x))}`;

/** An interval's end: signed, or unbounded. */
export const signedBound = (x: number | null) => (x === null ? 'unbounded' : signed(x));

/**
 * "+15.2 % (99.2% CI +9.8 % to +20.9 %), adjusted p = 0.001": a step's size, its false-coverage-rate
 * interval (the one adjusted with the p, which excludes 0 exactly when the step is significant) and
 * its adjusted p.
 */
export function stepText(s: ReleaseStep): string {
  const { ci, level, p } = s.adjusted;
  return `${signed(s.change)} (${formatLevel(level)}% CI ${signedBound(ci.low)} to ${signedBound(ci.high)}), adjusted ${formatP(p)}`;
}

type DriftChange = NonNullable<ReleasePoint['drift']>['changes'][number];

/** "+15.0% (×0.800 to ×0.920), p < 0.001": a change over time's size, the ratios either side and Otava's p. */
export function driftText(c: DriftChange): string {
  return `${signed(c.change)} (×${c.before.toPrecision(3)} to ×${c.after.toPrecision(3)}), ${formatP(c.p)}`;
}

/** The series' changes over time, one row per change: the release, the run it starts at, its size. */
export function driftRows(s: ReleaseSeries) {
  return s.releases.flatMap(({ release, drift }) =>
    drift
      ? drift.changes.map((c) => ({
          release,
          from: `run ${c.runsBefore + 1} of ${drift.runs}, received ${c.at.slice(0, 10)}`,
          text: driftText(c),
        }))
      : [],
  );
}

/** The series' heading: class, pair and the conditions that tell it from the scenario's other series. */
export function seriesTitle(s: ReleaseSeries): string {
  const params = Object.entries(s.params)
    .map(([k, v]) => `${k} = ${/^\d{4,}$/.test(String(v)) ? Number(v).toLocaleString('en-US') : String(v)}`)
    .join(', ');
  const point = s.point ? `${s.point.param} = ${s.point.value}` : '';
  const conditions = [params, point].filter(Boolean).join('; ');
  return `${s.candidate} ÷ ${s.baseline} on ${classLabel(s.hardwareClass)}${conditions ? ` (${conditions})` : ''}`;
}

/** Round ticks on the log-ratio axis between lo and hi (ratios). */
function ticksOf(lo: number, hi: number): number[] {
  const span = hi - lo;
  const raw = span / 4;
  const exp10 = 10 ** Math.floor(Math.log10(raw));
  const f = raw / exp10;
  const step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * exp10;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) out.push(Number(t.toPrecision(10)));
  return out;
}

/** The drawing of one series; its y axis is the ratio on a log scale (equal changes, equal heights). */
export function drawReleaseLine(s: ReleaseSeries, width: number = WIDTHS.wide): ReleaseLineDrawing {
  const pts = s.releases;
  const values = pts
    .flatMap((p) => [p.ratio, p.ratioCi.low, p.ratioCi.high])
    .filter((x): x is number => x !== null && x > 0);
  // The whiskers may be unbounded or very wide on one release: the range holds every ratio, and
  // the intervals only up to twice the ratios' own spread around them.
  const ratios = pts.map((p) => p.ratio).filter((x) => x > 0);
  const rLo = Math.min(...ratios);
  const rHi = Math.max(...ratios);
  const lo = Math.max(Math.min(...values), rLo / 1.5) * 0.98;
  const hi = Math.min(Math.max(...values), rHi * 1.5) * 1.02;
  const plotW = width - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const step = plotW / pts.length;
  const xOf = (i: number) => PAD.left + step * (i + 0.5);
  const yOf = (r: number) => {
    const clamped = Math.min(Math.max(r, lo), hi);
    return PAD.top + plotH * (1 - (Math.log(clamped) - Math.log(lo)) / (Math.log(hi) - Math.log(lo) || 1));
  };
  const points = pts.map((p, i) => {
    const busy = measuredOnBusyMachine(p);
    return {
      release: p.release,
      x: xOf(i),
      y: yOf(p.ratio),
      low: yOf(p.ratioCi.low ?? lo),
      high: yOf(p.ratioCi.high ?? hi),
      cut: { low: p.ratioCi.low === null || p.ratioCi.low < lo, high: p.ratioCi.high === null || p.ratioCi.high > hi },
      busy,
      title: `PostgreSQL ${p.release}: ${s.candidate} ÷ ${s.baseline} = ${p.ratio.toFixed(3)}× (95% CI ${p.ratioCi.low?.toFixed(3) ?? 'unbounded'}–${p.ratioCi.high?.toFixed(3) ?? 'unbounded'}), ${p.blocks === null ? `${p.runs} runs` : `${p.blocks} blocks of ${p.runs} runs`}${busy ? ', every one flagged noisy (a busy machine): no change to or from it is reported' : ''}`,
    };
  });
  const bands: LineBand[] = [];
  pts.forEach((p, i) => {
    const major = majorOfRelease(p.release);
    const last = bands.at(-1);
    if (last && last.major === major) last.width += step;
    else bands.push({ major, x: PAD.left + step * i, width: step, shaded: bands.length % 2 === 1 });
  });
  const index = new Map(pts.map((p, i) => [p.release, i]));
  const marks: LineMark[] = [];
  for (const x of s.steps.filter((st) => st.reported)) {
    const mark = {
      x: xOf(index.get(x.to) ?? 0) - step / 2,
      label: width < WIDTHS.wide ? signed(x.change) : `${x.to} ${signed(x.change)}`,
      up: x.change >= 0,
      title: `${x.from} → ${x.to}: ${stepText(x)}`,
      row: 0,
    };
    // Changes at adjacent releases: the label goes a row down while the one before would reach it.
    const before = marks.at(-1);
    if (before && mark.x < before.x + labelWidth(before.label)) mark.row = (before.row + 1) % MARK_ROWS;
    marks.push(mark);
  }
  const drifts = pts.flatMap((p, i) =>
    p.drift && p.drift.changes.length > 0
      ? [
          {
            x: points[i]!.x,
            y: points[i]!.y,
            title: `PostgreSQL ${p.release}: changed over time — ${p.drift.changes.map((c) => `${driftText(c)} from the run received ${c.at.slice(0, 10)}`).join('; ')}`,
          },
        ]
      : [],
  );
  return {
    points,
    path: points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' '),
    bands,
    marks,
    drifts,
    ticks: ticksOf(lo, hi).map((t) => ({ y: yOf(t), label: `${t}×` })),
    one: lo <= 1 && hi >= 1 ? yOf(1) : null,
    width,
    plot: { top: PAD.top, bottom: HEIGHT - PAD.bottom, left: PAD.left, right: width - PAD.right },
  };
}

/** The releases whose every run was flagged noisy, as a sentence ('' when none). */
function busyNote(s: ReleaseSeries): string {
  const busy = s.releases.filter(measuredOnBusyMachine).map((p) => p.release);
  if (busy.length === 0) return '';
  const names = busy.length === 1 ? busy[0]! : `${busy.slice(0, -1).join(', ')} and ${busy.at(-1)!}`;
  const them = busy.length === 1 ? 'it' : 'them';
  return ` Every run on ${names} was flagged noisy (measured on a busy machine), so no change to or from ${them} is reported: measure ${them} again on a quiet machine.`;
}

/** The class's noise threshold as the note under a line (and the releases measured only on a busy machine): sentences, capitalised. */
export function thresholdNote(s: ReleaseSeries, reported: number): string {
  const t = s.threshold.sentence;
  return (
    (reported === 0
      ? `No change between adjacent releases is reported: ${t}.`
      : `${t.charAt(0).toUpperCase()}${t.slice(1)}.`) + busyNote(s)
  );
}

/**
 * The one note said above every series when each would say the same; it names the class its
 * "this class" means (or says it holds on each class), since it no longer sits under one class's line.
 */
export function sharedThresholdNote(series: readonly ReleaseSeries[]): string | null {
  if (series.length < 2) return null;
  const notes = series.map((s) => thresholdNote(s, s.steps.filter((x) => x.reported).length));
  if (!notes.every((n) => n === notes[0])) return null;
  const classes = [...new Set(series.map((s) => s.hardwareClass))];
  const where = classes.length === 1 ? `On ${classes[0]}` : `On each of the ${classes.length} classes`;
  return `${where}: ${notes[0]!.charAt(0).toLowerCase()}${notes[0]!.slice(1)}`;
}

/**
 * A release line's series as the page shows them: those with a change (between releases, or over
 * time within one) open, the rest folded once there are more than two; with no change anywhere the
 * first stays open, so the page still draws what a release line looks like.
 */
export function foldedSeries(series: readonly ReleaseSeries[]): { shown: ReleaseSeries[]; folded: ReleaseSeries[] } {
  if (series.length <= 2) return { shown: [...series], folded: [] };
  const changed = (s: ReleaseSeries) =>
    s.steps.some((x) => x.reported) || s.releases.some((p) => (p.drift?.changes.length ?? 0) > 0);
  const shown = series.filter(changed);
  if (shown.length === 0) shown.push(series[0]!);
  return { shown, folded: series.filter((s) => !shown.includes(s)) };
}
