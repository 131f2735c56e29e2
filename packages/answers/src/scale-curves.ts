/**
 * Answers at any scale from the fitted curves (pure, no database, no DOM): GET /v1/answers?at=
 * (scale.ts fits the curves from the samples, then calls this) and the site's "your table size"
 * (in the browser, from the curves the build wrote into the page) answer with this one function,
 * so they never disagree. Per group, each declared pair: candidate ÷ baseline at the asked scale
 * with its confidence and prediction intervals, the scale where the order changes, and each fit's
 * held-out errors; a scale too far outside the measured range is refused with the command that
 * measures it. Only type imports from contracts (no zod in a page's script).
 */
import type {
  ScaleAnswers,
  ScaleCurve,
  ScaleCurveGroup,
  ScaleCurves,
  ScaleFit,
  ScaleGroupAnswer,
  ScalePairAnswer,
} from '@tunelab/contracts';
import {
  crossingScale,
  decideInterval,
  extrapolationFactor,
  formatP,
  pairAtScale,
  predictAt,
  type LogLogFit,
} from '@tunelab/stats';
import { runCommandLine } from '@tunelab/contracts/run-command';

/**
 * Answers go at most this factor beyond the measured range, either side. A power law fitted on
 * a 4–16× range of sizes and carried 4× further is the usual limit of such extrapolations (the
 * held-out errors the answers print say how well it held inside the range); further out, chores
 * change regime (the table outgrows memory, the index no longer fits maintenance_work_mem).
 */
export const SCALE_EXTRAPOLATION_LIMIT = 4;
/** The fewest distinct measured scales answered from: two to fit, one more to check the fit. */
export const MIN_SCALES = 3;

const THREE_DIGITS = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const WHOLE = new Intl.NumberFormat('en-US');
const num = (x: number) => THREE_DIGITS.format(x);
const count = (x: number) => WHOLE.format(Math.round(x));
const TIME_UNITS = new Set(['s', 'ms', 'us', 'µs', 'ns', 'min', 'h']);

type PairContext = { curves: ScaleCurves; group: ScaleCurveGroup; value: number };

const labelOf = (ctx: PairContext, variant: string) =>
  ctx.group.curves.find((c) => c.variant === variant)?.label ?? variant;

/**
 * The command that measures `value` on the group's server: the value as the parameter takes it
 * (a whole number for an integer one) and inside its declared range (the nearest bound outside it).
 */
function commandOf(ctx: PairContext): string {
  const range = ctx.curves.paramRange;
  let v = range?.integer === false ? ctx.value : Math.round(ctx.value);
  if (range?.max !== null && range?.max !== undefined) v = Math.min(v, range.max);
  v = Math.max(v, range?.min ?? (range?.integer === false ? Number.MIN_VALUE : 1));
  return `${runCommandLine({ scenario: ctx.curves.scenario, params: { [ctx.curves.param]: v } })} ${ctx.group.serverFlags}`;
}

function fitOf(ctx: PairContext, variant: string, curve: ScaleCurve | undefined): ScaleFit {
  const line = curve?.line ?? null;
  const prediction = line ? predictAt(line, ctx.value) : null;
  return {
    variant,
    label: curve?.label ?? variant,
    slope: line?.slope ?? 0,
    intercept: line?.intercept ?? 0,
    n: curve?.n ?? 0,
    scales: curve?.scales ?? [],
    heldOut: curve?.heldOut ?? [],
    prediction: prediction && { estimate: prediction.estimate, ci95: prediction.ci, pi95: prediction.pi },
  };
}

function ratioWords(ctx: PairContext, ratio: number, b: string): string {
  if (TIME_UNITS.has(ctx.group.unit)) return `to take ${num(ratio)}× as long as ${b}`;
  return `to give ${num(ratio)}× the ${ctx.curves.metricLabel} of ${b}`;
}

function crossingOf(ctx: PairContext, base: LogLogFit, cand: LogLogFit, baseline: string, candidate: string) {
  const c = crossingScale(base, cand);
  // A crossing far outside what was measured is no finding (lines that differ a little in slope
  // always meet somewhere).
  const shared = { min: Math.max(base.range.min, cand.range.min), max: Math.min(base.range.max, cand.range.max) };
  if (!c || extrapolationFactor(shared, c.x) > SCALE_EXTRAPOLATION_LIMIT) return null;
  const lower = c.lowerAbove === 'baseline' ? baseline : candidate;
  const better =
    ctx.curves.direction === 'lower-is-better' && TIME_UNITS.has(ctx.group.unit)
      ? 'is faster'
      : `has the lower ${ctx.curves.metricLabel}`;
  const interval = c.interval
    ? `95 % interval ${num(c.interval.low)}–${num(c.interval.high)}`
    : 'the data do not bound it';
  const where = c.withinRange ? '' : ', outside the measured range: an extrapolation';
  return {
    x: c.x,
    interval: c.interval,
    lowerAbove: lower,
    withinRange: c.withinRange,
    sentence: `${labelOf(ctx, lower)} ${better} above ≈ ${num(c.x)} ${ctx.curves.param} (${interval}${where}).`,
  };
}

function answerPair(ctx: PairContext, baseline: string, candidate: string): ScalePairAnswer {
  const { curves, value } = ctx;
  const param = curves.param;
  const bCurve = ctx.group.curves.find((c) => c.variant === baseline);
  const cCurve = ctx.group.curves.find((c) => c.variant === candidate);
  const base = bCurve?.line ?? null;
  const cand = cCurve?.line ?? null;
  const fits = [fitOf(ctx, baseline, bCurve), fitOf(ctx, candidate, cCurve)];
  const cmd = commandOf(ctx);
  const scales = new Set([...(bCurve?.scales ?? []), ...(cCurve?.scales ?? [])]);
  const none = { decision: null, ratio: null, ci95: null, pi95: null, p: null, extrapolation: null, crossing: null };
  const heldOut = fits.flatMap((f) => f.heldOut.map((h) => Math.abs(h.errorPct)));
  const heldOutMaxAbsErrorPct = heldOut.length ? Math.max(...heldOut) : null;
  const shared = fits.map((f) => f.scales.length);
  if (!base || !cand || Math.min(...shared) < MIN_SCALES) {
    const measured = [...scales].sort((a, b) => a - b).map(count);
    return {
      baseline,
      candidate,
      status: 'insufficient-data',
      sentence: `${param} measured at ${measured.length === 1 ? 'one value' : `${measured.length} values`} (${measured.join(', ') || 'none'}); an answer at any scale needs ${MIN_SCALES} for both variants. Measure more: ${runCommandLine({ scenario: curves.scenario, scaleSweep: true })}.`,
      ...none,
      heldOutMaxAbsErrorPct,
      fits,
      command: cmd,
    };
  }
  // One rule for every answer (the paired verdict's): the declared pairs share 95 % (Bonferroni),
  // the interval excluding 1 is a difference, lying within ±margin is equivalence.
  const family = Math.max(1, curves.pairs.length);
  const pair = pairAtScale(base, cand, value, 1 - 0.05 / family);
  const min = Math.max(base.range.min, cand.range.min);
  const max = Math.min(base.range.max, cand.range.max);
  const range = `${count(min)}–${count(max)} ${param}`;
  if (pair.extrapolation > SCALE_EXTRAPOLATION_LIMIT) {
    const side =
      value > max ? `${num(pair.extrapolation)}× beyond the largest` : `${num(pair.extrapolation)}× below the smallest`;
    return {
      baseline,
      candidate,
      status: 'refused',
      sentence: `Measured from ${range}; ${count(value)} is ${side} (answers go at most ${SCALE_EXTRAPOLATION_LIMIT}× outside the measured range). Measure it: ${cmd}`,
      // No crossing beside a refusal either: a size too far to answer gets no claim about the fit.
      ...none,
      extrapolation: pair.extrapolation,
      heldOutMaxAbsErrorPct,
      fits,
      command: cmd,
    };
  }
  const crossing = crossingOf(ctx, base, cand, baseline, candidate);
  const b = labelOf(ctx, baseline);
  const c = labelOf(ctx, candidate);
  const { decision } = decideInterval({ low: Math.log(pair.ci.low), high: Math.log(pair.ci.high) }, curves.margin);
  const pText =
    family > 1 ? `${formatP(Math.min(1, pair.p * family))} over ${family} pairs (Bonferroni)` : formatP(pair.p);
  const how = `95 % CI ${num(pair.ci.low)}–${num(pair.ci.high)}×; one new pair of runs: ${num(pair.pi.low)}–${num(pair.pi.high)}×; ${pText}`;
  const outside =
    pair.extrapolation > 1 ? ` This is ${num(pair.extrapolation)}× outside the measured range: an extrapolation.` : '';
  const held =
    heldOutMaxAbsErrorPct === null ? '' : ` Held-out error of the fits: up to ${num(heldOutMaxAbsErrorPct)} %.`;
  const margin = `±${num(curves.margin * 100)} %`;
  const verdict =
    decision === 'differs'
      ? `${c} is expected ${ratioWords(ctx, pair.ratio, b)} (${how}).`
      : decision === 'equivalent'
        ? `${c} is expected ${ratioWords(ctx, pair.ratio, b)}: equivalent within ${margin} (${how}).`
        : `Undecided: ${c} is expected ${ratioWords(ctx, pair.ratio, b)}, but the interval holds both no change and a change beyond ${margin} (${how}).`;
  return {
    baseline,
    candidate,
    status: 'answered',
    decision,
    sentence: `At ${count(value)} ${param}, fitted from ${range} (${scales.size} sizes, n = ${fits[0]!.n} + ${fits[1]!.n}): ${verdict}${outside}${held}`,
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

/** Whether a group has the scales an answer needs: MIN_SCALES or more for both variants of a declared pair. */
export const answersAtScale = (curves: Pick<ScaleCurves, 'pairs' | 'minScales'>, group: ScaleCurveGroup): boolean =>
  curves.pairs.some((p) =>
    [p.baseline, p.candidate].every((v) => {
      const c = group.curves.find((x) => x.variant === v);
      return c?.line != null && c.scales.length >= curves.minScales;
    }),
  );

/** Every group's declared pairs answered at `value` of the scale parameter (> 0; a RangeError otherwise). */
export function answerCurvesAtScale(curves: ScaleCurves, value: number): ScaleAnswers {
  if (!(Number.isFinite(value) && value > 0))
    throw new RangeError(`a scale must be a positive finite number, got ${value}`);
  const groups: ScaleGroupAnswer[] = curves.groups.map((group) => {
    const ctx: PairContext = { curves, group, value };
    return {
      key: group.key,
      scenarioVersion: group.scenarioVersion,
      hardwareClass: group.hardwareClass,
      engine: group.engine,
      major: group.major,
      params: group.params,
      runs: group.runs,
      pairs: curves.pairs.map((p) => answerPair(ctx, p.baseline, p.candidate)),
    };
  });
  return {
    param: curves.param,
    value,
    metric: curves.metric,
    unit: curves.unit,
    limit: curves.limit,
    minScales: curves.minScales,
    groups,
    empty: curves.empty,
  };
}
