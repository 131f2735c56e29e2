import { meanOf, sampleVariance, scaled, scaleOf, sum, type Interval } from './descriptive.ts';
import { relativeDifference } from './relative-difference.ts';
import { welchTTest } from './significance.ts';
import { assertProbability, assertSample } from './validate.ts';

export type Direction = 'lower-is-better' | 'higher-is-better';
export type VerdictKind = 'faster' | 'slower' | 'no-significant-difference' | 'insufficient-data';
export type LabeledSample = { label: string; values: readonly number[] };

export type VerdictInput = {
  baseline: LabeledSample;
  candidate: LabeledSample;
  direction: Direction;
  /** Significance level of the Welch test; the CI level is 1 − alpha. Default 0.05. */
  alpha?: number;
  /** Fewest runs per variant worth a verdict. Default 3, at least 2. */
  minN?: number;
};

export type Verdict = {
  kind: VerdictKind;
  sentence: string;
  /**
   * The candidate's improvement over the baseline in the metric's direction, as a fraction of the
   * baseline mean: (b̄ − c̄)/b̄ when lower is better, (c̄ − b̄)/b̄ when higher is better. Negative
   * means the candidate is worse. Null when there is no verdict.
   */
  relative: number | null;
  /**
   * Interval for `relative` at level 1 − alpha, from relativeDifference's interval of the ratio
   * of means (on the log scale when every value is > 0, else Fieller's). When lower is better the
   * improvement is 1 − ratio, so for positive samples this interval stays below 1 (100%): no
   * duration can shrink by more than all of it.
   */
  ci: Interval | null;
  /** Two-sided Welch t-test p-value. */
  p: number | null;
  level: number;
  nBaseline: number;
  nCandidate: number;
};

/**
 * Turns two variants' samples into a verdict and a sentence a report can print as is, e.g.
 * "1-2 is 37.5% faster than 1-1 (95% CI 21.8%–50.1%, Welch p = 0.002, n = 5 + 5)".
 *
 * - "faster"/"slower" need Welch p < alpha; the word is "faster"/"slower" in both directions
 *   (a higher throughput reads naturally as faster). The percentage is always relative to the
 *   baseline mean, so for durations "37.5% faster" means 37.5% less time than the baseline, and
 *   "12.0% slower" 12% more time.
 * - The CI is on the same scale as the printed percentage (for "slower" it is the interval of the
 *   increase). Significance comes from the Welch test on the difference and the interval from the
 *   ratio of means (log scale for positive samples, Fieller otherwise: see relativeDifference), so
 *   in borderline cases one may just exclude 0 and the other not. An interval with an end that
 *   cannot be bounded prints as "unbounded" (UNBOUNDED_INTERVAL_TEXT).
 * - n is printed in the order the labels appear: candidate + baseline.
 * - "insufficient-data": either side has fewer than minN values, neither side has any spread
 *   and the means are equal, or the baseline mean is ≤ 0 (no relative difference).
 */
export function verdict(input: VerdictInput): Verdict {
  const { baseline, candidate, direction } = input;
  const alpha = input.alpha ?? 0.05;
  const minN = input.minN ?? 3;
  assertLabeledSample(baseline, 'baseline');
  assertLabeledSample(candidate, 'candidate');
  if (direction !== 'lower-is-better' && direction !== 'higher-is-better') {
    throw new RangeError(`direction must be 'lower-is-better' or 'higher-is-better' (got ${String(direction)})`);
  }
  assertProbability(alpha, 'alpha');
  if (!Number.isInteger(minN) || minN < 2) throw new RangeError(`minN must be an integer >= 2 (got ${String(minN)})`);

  const level = 1 - alpha;
  const b = baseline.label;
  const c = candidate.label;
  const nBaseline = baseline.values.length;
  const nCandidate = candidate.values.length;
  const n = `n = ${nCandidate} + ${nBaseline}`;
  const insufficient = (sentence: string): Verdict => ({
    kind: 'insufficient-data',
    sentence,
    relative: null,
    ci: null,
    p: null,
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
  if (meanBaseline <= 0) {
    return insufficient(
      `${c} cannot be compared with ${b} in relative terms: the mean of ${b} is ${meanOf(baseline.values)} (${n})`,
    );
  }

  const { p } = welchTTest(xb, xc);
  const difference = relativeDifference(xb, xc, level);
  if (!Number.isFinite(difference.relative)) {
    return insufficient(
      `${c} cannot be compared with ${b} in relative terms: the mean of ${b} is ${meanOf(baseline.values)}, too close to 0 next to ${meanOf(candidate.values)} (${n})`,
    );
  }
  const sign = direction === 'lower-is-better' ? -1 : 1;
  const relative = sign * difference.relative;
  const ci = sign === 1 ? difference.ci : { low: -difference.ci.high, high: -difference.ci.low };
  const better = relative >= 0;
  const kind: VerdictKind = p < alpha && relative !== 0 ? (better ? 'faster' : 'slower') : 'no-significant-difference';
  // Printed on the scale of the word used: "x% slower" shows the interval of the increase.
  const shown = better ? relative : -relative;
  const shownCi = better ? ci : { low: -ci.high, high: -ci.low };
  const word = better ? 'faster' : 'slower';
  const details = `${formatLevel(level)}% CI ${formatInterval(shownCi)}, Welch ${formatP(p, alpha)}, ${n}`;
  const sentence =
    kind === 'no-significant-difference'
      ? `${c} and ${b} show no significant difference (${c} is ${formatPercent(shown)} ${word}, ${details})`
      : `${c} is ${formatPercent(shown)} ${word} than ${b} (${details})`;
  return { kind, sentence, relative, ci, p, level, nBaseline, nCandidate };
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

function formatInterval(interval: Interval): string {
  if (!Number.isFinite(interval.low) || !Number.isFinite(interval.high)) return UNBOUNDED_INTERVAL_TEXT;
  return `${formatPercent(interval.low)}–${formatPercent(interval.high)}`;
}

function formatLevel(level: number): string {
  return String(Number((level * 100).toFixed(1)));
}

function assertLabeledSample(sample: LabeledSample, name: string): void {
  if (typeof sample !== 'object' || sample === null) throw new RangeError(`${name} must be { label, values }`);
  if (typeof sample.label !== 'string' || sample.label.trim() === '') {
    throw new RangeError(`${name}.label must be a non-empty string`);
  }
  assertSample(sample.values, `${name}.values`);
}
