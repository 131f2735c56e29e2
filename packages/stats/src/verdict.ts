import { meanOf, sampleVariance, scaled, scaleOf, sum, type Interval } from './descriptive.ts';
import { relativeDifference } from './relative-difference.ts';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { welchTTest } from './significance.ts';
import { assertProbability, assertSample } from './validate.ts';

export type Direction = 'lower-is-better' | 'higher-is-better';
/**
 * `faster` / `slower`: the candidate is significantly better / worse in the metric's direction
 * (the names are historical: for a size or a count they mean better / worse, and the sentence
 * says "lower" / "higher"). `no-significant-difference`: not significant (see `conclusive`).
 */
export type VerdictKind = 'faster' | 'slower' | 'no-significant-difference' | 'insufficient-data';
export type LabeledSample = { label: string; values: readonly number[] };
/**
 * What the metric measures, for the words of the sentence: a `duration` that shrinks is
 * "faster", a `rate` (per second, per minute) that grows is "faster"; any other `amount` (bytes,
 * counts, percentages) is "lower" / "higher", never faster or slower.
 */
export type Quantity = 'duration' | 'rate' | 'amount';

/**
 * The difference in changes of a metric that counts as none: a non-significant result is called
 * "no measurable difference" only when its interval of the relative change lies within ±10%
 * (equivalence by the interval-inclusion form of two one-sided tests, Schuirmann 1987); any wider
 * interval cannot exclude a change that matters, and the sentence says there are not enough
 * repetitions to be sure.
 */
export const EQUIVALENCE_MARGIN = 0.1;

export type VerdictInput = {
  baseline: LabeledSample;
  candidate: LabeledSample;
  direction: Direction;
  /** Significance level of the Welch test; the CI level is 1 − alpha. Default 0.05. */
  alpha?: number;
  /** Fewest runs per variant worth a verdict. Default 3, at least 2. */
  minN?: number;
  /** Default: `duration` when lower is better, `rate` when higher is better. */
  quantity?: Quantity;
  /** What is measured, for an `amount` ("WAL written in the window"); default "value". */
  label?: string;
  /** The metric's unit, for an absolute difference ("8.96 percentage points", "3.0 MB"). */
  unit?: string;
  /**
   * Decisions that share alpha (Bonferroni, as the paired verdict's family): the interval is at
   * level 1 − alpha/family and decides. Default 1. The scenario's declared pairs × sweep points,
   * never what a query asked for.
   */
  family?: number;
  /** Relative change that counts as none; default EQUIVALENCE_MARGIN (±10 %). */
  margin?: number;
};

export type Verdict = {
  kind: VerdictKind;
  sentence: string;
  /**
   * The candidate's improvement over the baseline in the metric's direction, as a fraction of the
   * baseline mean: (b̄ − c̄)/b̄ when lower is better, (c̄ − b̄)/b̄ when higher is better. Negative
   * means the candidate is worse. Null when there is no verdict or the baseline mean is ≤ 0 (then
   * `absolute` carries the comparison).
   */
  relative: number | null;
  /**
   * Interval for `relative` at level 1 − alpha, from relativeDifference's interval of the ratio
   * of means (on the log scale when every value is > 0, else Fieller's). When lower is better the
   * improvement is 1 − ratio, so for positive samples this interval stays below 1 (100%): no
   * duration can shrink by more than all of it.
   */
  ci: Interval | null;
  /**
   * c̄ − b̄ in the metric's unit with its Welch interval at level 1 − alpha; null without a verdict.
   * The comparison itself when the baseline mean is ≤ 0 (0% vs 8.96%: no relative change exists).
   */
  absolute: { difference: number; ci: Interval } | null;
  /**
   * Two-sided p-value of no change from the statistic the interval is built on (relativeDifference's
   * `p`: Welch–Satterthwaite t on the log ratio of means for positive values, else on the
   * difference), so p < alpha/family exactly when the interval excludes no change.
   */
  p: number | null;
  /** min(1, p × family) when family > 1, else null. */
  pAdjusted: number | null;
  /** Decisions sharing alpha (the interval's level is 1 − alpha/family). */
  family: number;
  /**
   * True when the data settle the question: a significant difference, or none with the interval of
   * the change within ±EQUIVALENCE_MARGIN. False: not enough repetitions to be sure.
   */
  conclusive: boolean;
  level: number;
  nBaseline: number;
  nCandidate: number;
};

/** The verdict's options with their defaults, or a RangeError naming the one that is invalid. */
function checkedOptions(input: VerdictInput) {
  const { baseline, candidate, direction } = input;
  const alpha = input.alpha ?? 0.05;
  const minN = input.minN ?? 3;
  // Without a quantity, the direction tells: a duration where lower is better, a rate where higher is.
  const quantity = input.quantity ?? (direction === 'higher-is-better' ? 'rate' : 'duration');
  assertLabeledSample(baseline, 'baseline');
  assertLabeledSample(candidate, 'candidate');
  if (direction !== 'lower-is-better' && direction !== 'higher-is-better') {
    throw new RangeError(`direction must be 'lower-is-better' or 'higher-is-better' (got ${String(direction)})`);
  }
  if (quantity !== 'duration' && quantity !== 'rate' && quantity !== 'amount') {
    throw new RangeError(`quantity must be 'duration', 'rate' or 'amount' (got ${String(quantity)})`);
  }
  assertProbability(alpha, 'alpha');
  if (!Number.isInteger(minN) || minN < 2) throw new RangeError(`minN must be an integer >= 2 (got ${String(minN)})`);
  const family = input.family ?? 1;
  if (!Number.isInteger(family) || family < 1)
    throw new RangeError(`family must be an integer >= 1 (got ${String(family)})`);
  const margin = input.margin ?? EQUIVALENCE_MARGIN;
  if (!(margin > 0 && margin < 1)) throw new RangeError(`margin must be in (0, 1) (got ${String(margin)})`);
  return { alpha, minN, quantity, family, margin };
}

/**
 * Turns two variants' samples into a verdict and a sentence a report can print as is, e.g.
 * "1-2 is 37.5% faster than 1-1 (95% CI 21.8%–50.1%, Welch p = 0.002, n = 5 + 5)".
 *
 * - One model decides and prints: the interval of the change at level 1 − alpha/family
 *   (Bonferroni over the family the caller declares, as the paired verdict's) — "no measurable
 *   difference" exactly when it lies within ±margin (even where it excludes no change, as a
 *   paired run's "equivalent"), else `faster` / `slower` (better / worse in `direction`) exactly
 *   when it excludes no change — and the p-value printed is the test that interval inverts
 *   (relativeDifference's `p`), adjusted as min(1, p × family).
 * - Words follow the quantity and the change of the value, not the direction: a duration that
 *   shrinks is "x% faster", a rate that grows "x% faster", an amount "x's <label> is y% lower than
 *   z's". The percentage is relative to the baseline mean, so for durations "37.5% faster" means
 *   37.5% less time, and "12.0% slower" 12% more time.
 * - The CI is on the same scale as the printed percentage: the ratio of means on the log scale
 *   for positive samples, Fieller's otherwise (see relativeDifference). An unbounded end prints
 *   as "unbounded" (UNBOUNDED_INTERVAL_TEXT).
 * - Not significant: "no measurable difference" only when the interval of the relative change
 *   lies within ±margin; otherwise "not enough repetitions to be sure" with what
 *   the interval cannot exclude (fsync 13.7/6.7/8.0 s vs syncfs 0.75/0.33/0.03 s, p = 0.050 at
 *   n = 3 + 3, is not "no difference").
 * - A baseline mean ≤ 0 (a failure rate of 0% against 8.96%): the absolute difference, its
 *   Welch interval at the same level and its Welch test decide, in the metric's unit.
 * - n is printed in the order the labels appear: candidate + baseline.
 * - "insufficient-data": either side has fewer than minN values, or neither side has any spread
 *   and the means are equal.
 */
export function verdict(input: VerdictInput): Verdict {
  const { baseline, candidate, direction } = input;
  const { alpha, minN, quantity, family, margin } = checkedOptions(input);

  const level = 1 - alpha / family;
  const b = baseline.label;
  const c = candidate.label;
  const nBaseline = baseline.values.length;
  const nCandidate = candidate.values.length;
  const n = `n = ${nCandidate} + ${nBaseline}`;
  const none = { relative: null, ci: null, absolute: null, p: null, pAdjusted: null, family, conclusive: false };
  const insufficient = (sentence: string): Verdict => ({
    kind: 'insufficient-data',
    sentence,
    ...none,
    level,
    nBaseline,
    nCandidate,
  });

  if (nBaseline < minN || nCandidate < minN) {
    return insufficient(`Not enough data to compare ${c} with ${b} (${n}; at least ${minN} runs of each are needed)`);
  }
  // Everything below is scale-free: work on values scaled near 1 so that no sum overflows.
  const k = scaleOf([...baseline.values, ...candidate.values]);
  const xb = scaled(baseline.values, k);
  const xc = scaled(candidate.values, k);
  const meanBaseline = sum(xb) / nBaseline;
  const meanCandidate = sum(xc) / nCandidate;
  const noSpread = sampleVariance(xb) === 0 && sampleVariance(xc) === 0;
  if (noSpread && meanBaseline === meanCandidate) {
    return insufficient(
      `${c} and ${b} cannot be compared: every run of both gave ${meanOf(baseline.values)}, so there is no spread to judge by (${n})`,
    );
  }

  const welch = welchTTest(xb, xc);
  const sign = direction === 'lower-is-better' ? -1 : 1;
  // The printed p and its adjusted value, of the test the printed interval inverts.
  const pTexts = (p: number) => {
    const pAdjusted = family > 1 ? Math.min(1, p * family) : null;
    const text = `Welch ${formatP(p, alpha / family)}${pAdjusted !== null ? `, Bonferroni-adjusted ${formatP(pAdjusted, alpha)} (${family} tests)` : ''}`;
    return { text, base: { p, pAdjusted, family, level, nBaseline, nCandidate } };
  };

  if (meanBaseline <= 0) {
    // No relative change from a mean of 0 (or below): the difference in the metric's unit decides.
    const absolute = absoluteDifference(xb, xc, welch.df, level, k);
    const { text: pText, base } = pTexts(welch.p);
    const d = absolute.difference;
    const excludesNone = absolute.ci.low > 0 || absolute.ci.high < 0;
    const kind: VerdictKind =
      excludesNone && d !== 0 ? (sign * d > 0 ? 'faster' : 'slower') : 'no-significant-difference';
    const amount = formatAmount(Math.abs(d), input.unit);
    const ci = formatAbsoluteInterval(
      d >= 0 ? absolute.ci : { low: -absolute.ci.high, high: -absolute.ci.low },
      input.unit,
    );
    const moved = `${c}'s mean is ${amount} ${d >= 0 ? 'higher' : 'lower'} than ${b}'s`;
    const why = `${b}'s mean is ${meanOf(baseline.values)}, so a relative change is undefined: absolute difference, ${formatLevel(level)}% CI ${ci}, ${pText}, ${n}`;
    const sentence =
      kind === 'no-significant-difference'
        ? `No significant difference between ${c} and ${b}: ${moved} (${why})`
        : `${moved} (${why})`;
    return {
      kind,
      sentence,
      relative: null,
      ci: null,
      absolute,
      conclusive: kind !== 'no-significant-difference',
      ...base,
    };
  }

  const difference = relativeDifference(xb, xc, level);
  if (!Number.isFinite(difference.relative)) {
    return insufficient(
      `${c} cannot be compared with ${b} in relative terms: the mean of ${b} is ${meanOf(baseline.values)}, too close to 0 next to ${meanOf(candidate.values)} (${n})`,
    );
  }
  const absolute = absoluteDifference(xb, xc, welch.df, level, k);
  const { text: pText, base } = pTexts(difference.p);
  const relative = sign * difference.relative;
  const ci = sign === 1 ? difference.ci : { low: -difference.ci.high, high: -difference.ci.low };
  const better = relative >= 0;
  // The interval decides, as a paired run's does (sequential.ts decideInterval): within ±margin it
  // is an equivalence, even where it excludes no change (a 3 % change known to ±2 % is no
  // difference worth a verdict); otherwise a change is called only where it excludes no change.
  const within = difference.ci.low >= -margin && difference.ci.high <= margin;
  const significant = !within && (difference.ci.low > 0 || difference.ci.high < 0) && relative !== 0;
  const kind: VerdictKind = significant ? (better ? 'faster' : 'slower') : 'no-significant-difference';
  // Printed on the scale of the words used: the change of the value, down or up.
  const down = difference.relative < 0;
  const shown = Math.abs(difference.relative);
  const shownCi = down ? { low: -difference.ci.high, high: -difference.ci.low } : difference.ci;
  const change = phrase(quantity, down, c, b, formatPercent(shown), input.label);
  const details = `${formatLevel(level)}% CI ${formatInterval(shownCi)}, ${pText}, ${n}`;
  let sentence: string;
  if (significant) sentence = `${change.full} (${details})`;
  else if (within)
    sentence = `${c} and ${b} show no measurable difference: the ${formatLevel(level)}% CI of the change lies within ±${formatPercent(margin)} (${change.short}, ${details})`;
  else
    // One interval, in the convention of the words beside it (not the signed change next to its mirror).
    sentence = `Not enough repetitions to be sure whether ${c} differs from ${b}: ${change.short}, but the ${formatLevel(level)}% CI, ${formatInterval(shownCi)}, cannot exclude a change beyond ±${formatPercent(margin)} (${pText}, ${n})`;
  return { kind, sentence, relative, ci, absolute, conclusive: significant || within, ...base };
}

/** "1-2 is 37.5% faster than 1-1" / "ff80's WAL written is 12.0% lower than ff100's". */
export function phrase(
  quantity: Quantity,
  down: boolean,
  c: string,
  b: string,
  percent: string,
  label: string | undefined,
): { full: string; short: string } {
  if (quantity === 'amount') {
    const what = label ?? 'value';
    const word = down ? 'lower' : 'higher';
    return { full: `${c}'s ${what} is ${percent} ${word} than ${b}'s`, short: `${c}'s ${what} is ${percent} ${word}` };
  }
  // A duration that shrinks, or a rate that grows, is faster.
  const faster = quantity === 'duration' ? down : !down;
  const word = faster ? 'faster' : 'slower';
  return { full: `${c} is ${percent} ${word} than ${b}`, short: `${c} is ${percent} ${word}` };
}

/** c̄ − b̄ and its Welch interval, back at the values' own scale (k was the scaling). */
function absoluteDifference(
  xb: readonly number[],
  xc: readonly number[],
  df: number,
  level: number,
  k: number,
): { difference: number; ci: Interval } {
  const d = sum(xc) / xc.length - sum(xb) / xb.length;
  const se = Math.sqrt(sampleVariance(xb) / xb.length + sampleVariance(xc) / xc.length);
  const half = se === 0 ? 0 : tQuantile(1 - (1 - level) / 2, df) * se;
  return { difference: d / k, ci: { low: (d - half) / k, high: (d + half) / k } };
}

/** "8.96 percentage points", "3.00 MB", "0.500 s". */
function formatAmount(x: number, unit: string | undefined): string {
  const text = Number(x.toPrecision(3)).toLocaleString('en-US', { maximumSignificantDigits: 3 });
  if (unit === '%' || unit === 'percent') return `${text} percentage points`;
  return unit ? `${text} ${unit}` : text;
}

function formatAbsoluteInterval(i: Interval, unit: string | undefined): string {
  const f = (x: number) =>
    Number(x.toPrecision(3)).toLocaleString('en-US', { maximumSignificantDigits: 3 }).replace('-', '−');
  const u = unit === '%' || unit === 'percent' ? ' percentage points' : unit ? ` ${unit}` : '';
  return `${f(i.low)} to ${f(i.high)}${u}`;
}

/**
 * "p = 0.002", "p = 0.91", "p < 0.001": three decimals below 0.01, else two significant digits,
 * with more digits when rounding would move p to the other side of alpha (0.0496 → "p = 0.0496").
 */
export function formatP(p: number, alpha = 0.05): string {
  if (Number.isNaN(p)) throw new RangeError('p must be a number');
  if (p < 0.001) return 'p < 0.001';
  const options = [p < 0.01 ? p.toFixed(3) : p.toPrecision(2), p.toPrecision(3), p.toPrecision(4), String(p)];
  const text = options.find((option) => Number(option) < alpha === p < alpha) ?? String(p);
  return `p = ${text}`;
}

/** 0.3754 → "37.5%", −0.23 → "−23.0%" (a true minus sign, as in typeset tables). */
export function formatPercent(fraction: number): string {
  const text = (fraction * 100).toFixed(1);
  return `${text === '-0.0' ? '0.0' : text.replace('-', '−')}%`;
}

/**
 * The words every report prints for an interval with an end that cannot be bounded (±∞, or null
 * in the contracts' Bounds), in sentences and tables alike.
 */
export const UNBOUNDED_INTERVAL_TEXT = 'unbounded';

export function formatInterval(interval: Interval): string {
  if (!Number.isFinite(interval.low) || !Number.isFinite(interval.high)) return UNBOUNDED_INTERVAL_TEXT;
  return `${formatPercent(interval.low)}–${formatPercent(interval.high)}`;
}

export function formatLevel(level: number): string {
  return String(Number((level * 100).toFixed(1)));
}

function assertLabeledSample(sample: LabeledSample, name: string): void {
  if (typeof sample !== 'object' || sample === null) throw new RangeError(`${name} must be { label, values }`);
  if (typeof sample.label !== 'string' || sample.label.trim() === '') {
    throw new RangeError(`${name}.label must be a non-empty string`);
  }
  assertSample(sample.values, `${name}.values`);
}
