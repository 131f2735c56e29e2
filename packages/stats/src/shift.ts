import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { assertProbability } from './validate.ts';

/** A sample given by its size, mean and sd (n − 1 denominator). */
export type SampleMoments = { n: number; mean: number; sd: number };

export type Shift = {
  /** mean(after) − mean(before). */
  estimate: number;
  se: number;
  /** Welch's t and Welch–Satterthwaite df. */
  t: number;
  df: number;
  /** Two-sided p. */
  p: number;
  /** The (1 − alpha) interval of the estimate. */
  low: number;
  high: number;
};

/**
 * Welch's test of a shift in the mean between two independent samples given by their moments,
 * as scipy.stats.ttest_ind_from_stats(…, equal_var=False): how the mean log ratio of a pair moved
 * from one server release to the next, each release's blocks an independent sample. With no
 * spread on either side it answers t = ±∞, p = 0 when the means differ and p = 1 when they do not.
 */
export function welchShift(before: SampleMoments, after: SampleMoments, alpha = 0.05): Shift {
  assertProbability(alpha, 'alpha');
  for (const [name, m] of [
    ['before', before],
    ['after', after],
  ] as const) {
    if (!(Number.isInteger(m.n) && m.n >= 2) || !Number.isFinite(m.mean) || !(m.sd >= 0))
      throw new RangeError(`${name} must have n ≥ 2, a finite mean and an sd ≥ 0`);
  }
  const estimate = after.mean - before.mean;
  const vb = before.sd ** 2 / before.n;
  const va = after.sd ** 2 / after.n;
  if (va + vb === 0) {
    const df = before.n + after.n - 2;
    const t = estimate === 0 ? 0 : Math.sign(estimate) * Infinity;
    return { estimate, se: 0, t, df, p: estimate === 0 ? 1 : 0, low: estimate, high: estimate };
  }
  const se = Math.sqrt(va + vb);
  const ra = va / (va + vb);
  const rb = vb / (va + vb);
  const df = 1 / (ra ** 2 / (after.n - 1) + rb ** 2 / (before.n - 1));
  const t = estimate / se;
  const q = tQuantile(1 - alpha / 2, df);
  return {
    estimate,
    se,
    t,
    df,
    p: Math.min(1, 2 * tCdf(-Math.abs(t), df)),
    low: estimate - q * se,
    high: estimate + q * se,
  };
}
