/**
 * Paired, sequential comparisons of two variants measured in blocks (a block runs every variant
 * once, in a random order, from the same template): the unit of evidence is a block's log ratio
 * ln(candidate / baseline), so load and drift that hit a block hit both variants and cancel.
 *
 * - `pairedTTest`: the fixed-n paired t-test on the log ratios (SciPy's `ttest_rel` on the logs).
 * - `confidenceSequence`: an always-valid confidence sequence for the mean log ratio, the set of
 *   means whose e-value stays below 1/alpha. The e-value is the Bayes factor of the one-sample
 *   t-test with the right-Haar prior on the unknown sd and a normal prior N(0, g) on the
 *   standardised effect (Rouder et al. 2009, eq. 11 at a fixed g), averaged over
 *   SEQUENTIAL_PRIOR_SCALES. For normal log ratios it is a test martingale in the filtration of
 *   the t statistics (Lai 1976; Pérez-Ortiz, Lardy, de Heide & Grünwald 2024, "E-statistics,
 *   group invariance and anytime-valid testing"), so by Ville's inequality the probability that
 *   the sequence ever excludes the true mean, however often it is looked at and whenever the run
 *   stops, is at most alpha. Its p-value, min(1, 1/e), is valid at any stopping time.
 *
 * The interval, the test and the decision words all come from this one model: 0 lies outside the
 * interval exactly when p ≤ alpha.
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { assertProbability } from './validate.ts';

/** The prior scales g of the standardised effect the e-value averages over (an even mixture). */
export const SEQUENTIAL_PRIOR_SCALES: readonly number[] = [1, 10, 100];

export type PairedTTest = { n: number; mean: number; sd: number; se: number; t: number; df: number; p: number };

/** ln(candidate_i / baseline_i) per block; every value must be a positive finite number. */
export function logRatios(baseline: readonly number[], candidate: readonly number[]): number[] {
  if (baseline.length !== candidate.length)
    throw new RangeError(`paired samples must have equal lengths (got ${baseline.length} and ${candidate.length})`);
  return baseline.map((b, i) => {
    const c = candidate[i]!;
    if (!(b > 0 && c > 0 && Number.isFinite(b) && Number.isFinite(c)))
      throw new RangeError(`paired values must be positive finite numbers (block ${i + 1}: ${b}, ${c})`);
    return Math.log(c) - Math.log(b);
  });
}

function moments(d: readonly number[]): { n: number; mean: number; sd: number } {
  const n = d.length;
  if (n < 2) throw new RangeError(`a paired analysis needs at least 2 blocks (got ${n})`);
  for (const x of d) if (!Number.isFinite(x)) throw new RangeError('log ratios must be finite');
  let mean = 0;
  for (const x of d) mean += x / n;
  let ss = 0;
  for (const x of d) ss += (x - mean) ** 2;
  return { n, mean, sd: Math.sqrt(ss / (n - 1)) };
}

/** The one-sample t-test of the log ratios against 0 (two-sided). t is ±Infinity when sd = 0 and mean ≠ 0. */
export function pairedTTest(d: readonly number[]): PairedTTest {
  const { n, mean, sd } = moments(d);
  const se = sd / Math.sqrt(n);
  const df = n - 1;
  const t = se === 0 ? (mean === 0 ? 0 : Math.sign(mean) * Number.POSITIVE_INFINITY) : mean / se;
  const p = Number.isFinite(t) ? Math.min(1, 2 * tCdf(-Math.abs(t), df)) : 0;
  return { n, mean, sd, se, t, df, p };
}

/**
 * The Bayes factor of H1 (standardised effect ~ N(0, g)) against H0 (no effect) for a one-sample t
 * statistic `t` of `n` values: (1 + ng)^(−1/2) · [(1 + t²/ν) / (1 + t²/(ν(1 + ng)))]^((ν+1)/2),
 * ν = n − 1. Equal to the ratio of the noncentral-t and central-t densities integrated over the
 * prior (checked against SciPy's `nct` and `quad`).
 */
export function tBayesFactor(t: number, n: number, g: number): number {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`n must be an integer >= 2 (got ${n})`);
  if (!(g > 0 && Number.isFinite(g))) throw new RangeError(`g must be a positive number (got ${g})`);
  const nu = n - 1;
  const a = 1 + n * g;
  if (!Number.isFinite(t)) return Math.pow(a, nu / 2);
  const t2 = t * t;
  return Math.exp(-0.5 * Math.log(a) + ((nu + 1) / 2) * (Math.log1p(t2 / nu) - Math.log1p(t2 / (nu * a))));
}

/** The mixture e-value over SEQUENTIAL_PRIOR_SCALES. */
export function tEValue(t: number, n: number, scales: readonly number[] = SEQUENTIAL_PRIOR_SCALES): number {
  let e = 0;
  for (const g of scales) e += tBayesFactor(t, n, g) / scales.length;
  return e;
}

/**
 * The |t| at which the mixture e-value reaches 1/alpha after n values: the confidence sequence is
 * mean ± multiplier · sd/√n. Infinity when even an infinite t cannot reach it (too few blocks).
 */
export function sequentialMultiplier(
  n: number,
  alpha: number,
  scales: readonly number[] = SEQUENTIAL_PRIOR_SCALES,
): number {
  assertProbability(alpha, 'alpha');
  const target = 1 / alpha;
  if (tEValue(Number.POSITIVE_INFINITY, n, scales) <= target) return Number.POSITIVE_INFINITY;
  let low = 0;
  let high = 1;
  while (tEValue(high, n, scales) < target) high *= 2;
  // Bisection on a monotone function of |t|: 200 halvings reach the double's resolution.
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const mid = (low + high) / 2;
    if (tEValue(mid, n, scales) < target) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

export type ConfidenceSequence = {
  n: number;
  /** Mean and sd of the log ratios. */
  mean: number;
  sd: number;
  /** The interval of the mean log ratio at level 1 − alpha, valid at every look (±Infinity: unbounded). */
  low: number;
  high: number;
  /** Half its width on the log scale (Infinity with too few blocks). */
  halfWidth: number;
  multiplier: number;
  alpha: number;
  /** The e-value against "no difference" and its always-valid p-value, min(1, 1/e). */
  eValue: number;
  p: number;
};

/** The always-valid confidence sequence of the mean log ratio after the blocks so far (see the module). */
export function confidenceSequence(
  d: readonly number[],
  alpha: number,
  scales: readonly number[] = SEQUENTIAL_PRIOR_SCALES,
): ConfidenceSequence {
  assertProbability(alpha, 'alpha');
  const { n, mean, sd } = moments(d);
  const multiplier = sequentialMultiplier(n, alpha, scales);
  const se = sd / Math.sqrt(n);
  const halfWidth = Number.isFinite(multiplier) ? multiplier * se : Number.POSITIVE_INFINITY;
  const t = se === 0 ? (mean === 0 ? 0 : Number.POSITIVE_INFINITY) : mean / se;
  const eValue = tEValue(t, n, scales);
  return {
    n,
    mean,
    sd,
    low: mean - halfWidth,
    high: mean + halfWidth,
    halfWidth,
    multiplier,
    alpha,
    eValue,
    p: Math.min(1, 1 / eValue),
  };
}

export type SequentialDecision = 'differs' | 'equivalent' | 'undecided';

/**
 * What an interval of the log ratio decides against a margin m (a fraction: 0.1 = ±10 %), in the
 * relative change the reports print (ratio − 1): `equivalent` when the whole interval of the change
 * lies within ±m (a TOST-style interval inclusion), else `differs` when it excludes no change, else
 * `undecided`. `beyondMargin`: the whole interval of the change lies beyond ±m (a difference that
 * matters, decided; a run stops on it or on `equivalent`).
 */
export function decideInterval(
  cs: Pick<ConfidenceSequence, 'low' | 'high'>,
  margin: number,
): { decision: SequentialDecision; beyondMargin: boolean } {
  if (!(margin > 0 && margin < 1)) throw new RangeError(`margin must be in (0, 1) (got ${margin})`);
  const up = Math.log1p(margin);
  const down = Math.log1p(-margin);
  if (cs.low >= down && cs.high <= up) return { decision: 'equivalent', beyondMargin: false };
  if (cs.low > 0 || cs.high < 0) return { decision: 'differs', beyondMargin: cs.low > up || cs.high < down };
  return { decision: 'undecided', beyondMargin: false };
}
