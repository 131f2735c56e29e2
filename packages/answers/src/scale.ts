/**
 * Answers at the user's scale (pure): per hardware class × engine major × the parameters other
 * than the scale, each declared pair's variants are fitted across every measured scale of the
 * scenario's scale parameter (scenario.yaml `scale`) and answered at the asked one — the ratio
 * candidate ÷ baseline with its 95 % confidence interval and the interval one new pair of runs
 * would fall in, the scale where the order changes, and each fit's held-out errors. A scale too
 * far outside the measured range is refused with the command that measures it.
 */
import {
  SUPPORTED_POSTGRESQL_MAJORS,
  type ScaleAnswers,
  type ScaleFit,
  type ScaleGroupAnswer,
  type ScalePairAnswer,
  type ScenarioDocument,
  type UsedDirection,
} from '@tunelab/contracts';
import {
  crossingScale,
  extrapolationFactor,
  formatP,
  heldOutErrors,
  logLogFit,
  pairAtScale,
  predictAt,
  type LogLogFit,
  type ScalePoint,
} from '@tunelab/stats';
import type { SampleRow } from './groups.ts';

/**
 * Answers go at most this factor beyond the measured range, either side. A power law fitted on
 * a 4–16× range of sizes and carried 4× further is the usual limit of such extrapolations (the
 * held-out errors the answers print say how well it held inside the range); further out, chores
 * change regime (the table outgrows memory, the index no longer fits maintenance_work_mem).
 */
export const SCALE_EXTRAPOLATION_LIMIT = 4;
/** The fewest distinct measured scales answered from: two to fit, one more to check the fit. */
export const MIN_SCALES = 3;

export type ScaleQuery = { param: string; value: number };

/** Why a scale query cannot be answered for this scenario at all (the API's 400, naming `at`). */
export class ScaleQueryError extends Error {
  readonly field = 'at';
}

const THREE_DIGITS = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const WHOLE = new Intl.NumberFormat('en-US');
const num = (x: number) => THREE_DIGITS.format(x);
const count = (x: number) => WHOLE.format(Math.round(x));
const TIME_UNITS = new Set(['s', 'ms', 'us', 'µs', 'ns', 'min', 'h']);

type Acc = { first: SampleRow; byVariant: Map<string, ScalePoint[]>; runs: Set<string> };

function scaleOf(r: SampleRow, param: string): number {
  if (r.point_param === param && r.point_value !== null) return r.point_value;
  return Number(r.params[param]);
}

/** Group key: everything runs are pooled by except the scale (and the sweep point when that is the scale). */
function keyOf(r: SampleRow, param: string): { key: string; params: Record<string, string | number | boolean> } {
  const params: Record<string, string | number | boolean> = {};
  for (const k of Object.keys(r.params).sort()) {
    const v = r.params[k];
    if (k === param || k === r.point_param) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') params[k] = v;
  }
  const point = r.point_param && r.point_param !== param ? `@${r.point_param}=${r.point_value}` : '';
  const key = `${r.scenario_key}@${r.version_hash.slice(0, 12)}/${r.hardware_class}/${r.engine}-${r.major}/${JSON.stringify(params)}[${r.unit}]${point}`;
  return { key, params };
}

function command(doc: ScenarioDocument, q: ScaleQuery, engine: string, major: number): string {
  const base = `tunelab run ${doc.key} --param ${q.param}=${Math.round(q.value)}`;
  if (engine === 'postgresql')
    return (SUPPORTED_POSTGRESQL_MAJORS as readonly number[]).includes(major)
      ? `${base} --server ${major}`
      : `${base} --target postgres://USER@HOST:5432/DB`;
  return `${base} --target mysql://USER@HOST:3306/DB`;
}

type PairContext = {
  doc: ScenarioDocument;
  q: ScaleQuery;
  acc: Acc;
  unit: string;
  direction: UsedDirection;
  metricLabel: string;
};

const label = (doc: ScenarioDocument, variant: string) => doc.variants.find((v) => v.key === variant)?.label ?? variant;

function fitOf(ctx: PairContext, variant: string, fit: LogLogFit | null, points: ScalePoint[]): ScaleFit {
  const prediction = fit ? predictAt(fit, ctx.q.value) : null;
  return {
    variant,
    label: label(ctx.doc, variant),
    slope: fit?.slope ?? 0,
    intercept: fit?.intercept ?? 0,
    n: points.length,
    scales: [...new Set(points.map((p) => p.x))].sort((a, b) => a - b),
    heldOut: heldOutErrors(points),
    prediction: prediction && { estimate: prediction.estimate, ci95: prediction.ci, pi95: prediction.pi },
  };
}

function ratioWords(ctx: PairContext, ratio: number, b: string): string {
  if (TIME_UNITS.has(ctx.unit)) return `to take ${num(ratio)}× as long as ${b}`;
  return `to give ${num(ratio)}× the ${ctx.metricLabel} of ${b}`;
}

function crossingOf(ctx: PairContext, base: LogLogFit, cand: LogLogFit, baseline: string, candidate: string) {
  const c = crossingScale(base, cand);
  // A crossing far outside what was measured is no finding (lines that differ a little in slope
  // always meet somewhere).
  const shared = { min: Math.max(base.range.min, cand.range.min), max: Math.min(base.range.max, cand.range.max) };
  if (!c || extrapolationFactor(shared, c.x) > SCALE_EXTRAPOLATION_LIMIT) return null;
  const lower = c.lowerAbove === 'baseline' ? baseline : candidate;
  const better =
    ctx.direction === 'lower-is-better' && TIME_UNITS.has(ctx.unit) ? 'is faster' : `has the lower ${ctx.metricLabel}`;
  const interval = c.interval
    ? `95 % interval ${num(c.interval.low)}–${num(c.interval.high)}`
    : 'the data do not bound it';
  const where = c.withinRange ? '' : ', outside the measured range: an extrapolation';
  return {
    x: c.x,
    interval: c.interval,
    lowerAbove: lower,
    withinRange: c.withinRange,
    sentence: `${label(ctx.doc, lower)} ${better} above ≈ ${num(c.x)} ${ctx.q.param} (${interval}${where}).`,
  };
}

function answerPairAtScale(ctx: PairContext, baseline: string, candidate: string): ScalePairAnswer {
  const { doc, q, acc } = ctx;
  const bPts = acc.byVariant.get(baseline) ?? [];
  const cPts = acc.byVariant.get(candidate) ?? [];
  const base = logLogFit(bPts);
  const cand = logLogFit(cPts);
  const fits = [fitOf(ctx, baseline, base, bPts), fitOf(ctx, candidate, cand, cPts)];
  const cmd = command(doc, q, acc.first.engine, acc.first.major);
  const scales = new Set([...bPts, ...cPts].map((p) => p.x));
  const none = { ratio: null, ci95: null, pi95: null, p: null, extrapolation: null, crossing: null };
  const heldOut = fits.flatMap((f) => f.heldOut.map((h) => Math.abs(h.errorPct)));
  const heldOutMaxAbsErrorPct = heldOut.length ? Math.max(...heldOut) : null;
  const shared = fits.map((f) => f.scales.length);
  if (!base || !cand || Math.min(...shared) < MIN_SCALES) {
    const measured = [...scales].sort((a, b) => a - b).map(count);
    return {
      baseline,
      candidate,
      status: 'insufficient-data',
      sentence: `${q.param} measured at ${measured.length === 1 ? 'one value' : `${measured.length} values`} (${measured.join(', ') || 'none'}); an answer at any scale needs ${MIN_SCALES} for both variants. Measure more: tunelab run ${doc.key} --scale-sweep.`,
      ...none,
      heldOutMaxAbsErrorPct,
      fits,
      command: cmd,
    };
  }
  const pair = pairAtScale(base, cand, q.value);
  const min = Math.max(base.range.min, cand.range.min);
  const max = Math.min(base.range.max, cand.range.max);
  const range = `${count(min)}–${count(max)} ${q.param}`;
  const crossing = crossingOf(ctx, base, cand, baseline, candidate);
  if (pair.extrapolation > SCALE_EXTRAPOLATION_LIMIT) {
    const side =
      q.value > max
        ? `${num(pair.extrapolation)}× beyond the largest`
        : `${num(pair.extrapolation)}× below the smallest`;
    return {
      baseline,
      candidate,
      status: 'refused',
      sentence: `Measured from ${range}; ${count(q.value)} is ${side} (answers go at most ${SCALE_EXTRAPOLATION_LIMIT}× outside the measured range). Measure it: ${cmd}`,
      ...none,
      extrapolation: pair.extrapolation,
      crossing,
      heldOutMaxAbsErrorPct,
      fits,
      command: cmd,
    };
  }
  const b = label(doc, baseline);
  const c = label(doc, candidate);
  const excludesOne = pair.ci.low > 1 || pair.ci.high < 1;
  const how = `95 % CI ${num(pair.ci.low)}–${num(pair.ci.high)}×; one new pair of runs: ${num(pair.pi.low)}–${num(pair.pi.high)}×; ${formatP(pair.p)}`;
  const outside =
    pair.extrapolation > 1 ? ` This is ${num(pair.extrapolation)}× outside the measured range: an extrapolation.` : '';
  const held =
    heldOutMaxAbsErrorPct === null ? '' : ` Held-out error of the fits: up to ${num(heldOutMaxAbsErrorPct)} %.`;
  const verdict = excludesOne
    ? `${c} is expected ${ratioWords(ctx, pair.ratio, b)} (${how}).`
    : `No evidence of a difference: ${c} is expected ${ratioWords(ctx, pair.ratio, b)} (${how}).`;
  return {
    baseline,
    candidate,
    status: 'answered',
    sentence: `At ${count(q.value)} ${q.param}, fitted from ${range} (${scales.size} sizes, n = ${bPts.length} + ${cPts.length}): ${verdict}${outside}${held}`,
    ratio: pair.ratio,
    ci95: pair.ci,
    pi95: pair.pi,
    p: pair.p,
    extrapolation: pair.extrapolation,
    crossing,
    heldOutMaxAbsErrorPct,
    fits,
    command: cmd,
  };
}

export type AnswerAtScaleInput = {
  doc: ScenarioDocument;
  /** The measured samples of `metric` (results-db's rows, source measured). */
  rows: readonly SampleRow[];
  at: ScaleQuery;
  metric: string;
  direction: UsedDirection;
};

/** Throws ScaleQueryError when the scenario has no scale or `at` names another parameter. */
export function checkScaleQuery(doc: ScenarioDocument, at: ScaleQuery): void {
  if (!doc.scale)
    throw new ScaleQueryError(`${doc.key} declares no scale parameter; answers at a scale are not available for it`);
  if (doc.scale.param !== at.param)
    throw new ScaleQueryError(
      `${doc.key}'s scale parameter is ${doc.scale.param}, not ${at.param}: at=${doc.scale.param}:N`,
    );
}

export function answerAtScale(input: AnswerAtScaleInput): ScaleAnswers {
  const { doc, at, metric } = input;
  checkScaleQuery(doc, at);
  const groups = new Map<string, Acc & { params: Record<string, string | number | boolean> }>();
  for (const r of input.rows) {
    if (r.source !== 'measured' || r.scenario_key !== doc.key) continue;
    const x = scaleOf(r, at.param);
    if (!(x > 0) || !(r.value > 0)) continue;
    const { key, params } = keyOf(r, at.param);
    let acc = groups.get(key);
    if (!acc) groups.set(key, (acc = { first: r, byVariant: new Map(), runs: new Set(), params }));
    acc.runs.add(r.run_id);
    const list = acc.byVariant.get(r.variant) ?? [];
    list.push({ x, y: r.value });
    acc.byVariant.set(r.variant, list);
  }
  const def = doc.metrics.find((m) => m.key === metric);
  const metricLabel = def?.label ?? metric;
  const answered: ScaleGroupAnswer[] = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, acc]) => {
      const ctx: PairContext = { doc, q: at, acc, unit: acc.first.unit, direction: input.direction, metricLabel };
      return {
        key,
        hardwareClass: acc.first.hardware_class,
        engine: acc.first.engine as ScaleGroupAnswer['engine'],
        major: acc.first.major,
        params: acc.params,
        runs: acc.runs.size,
        pairs: doc.comparisons.map((p) => answerPairAtScale(ctx, p.baseline, p.candidate)),
      };
    });
  return {
    param: at.param,
    value: at.value,
    metric,
    unit: def?.unit ?? input.rows[0]?.unit ?? '',
    limit: SCALE_EXTRAPOLATION_LIMIT,
    minScales: MIN_SCALES,
    groups: answered,
    empty: answered.length ? null : `no measured runs of ${doc.key} with ${metric} yet`,
  };
}
