import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { sampleVariance, scaled, scaleOf, sum } from './descriptive.ts';
import { assertSample } from './validate.ts';

export type WelchTTest = {
  /** (mean(a) − mean(b)) / √(s²a/na + s²b/nb) */
  t: number;
  /** Welch–Satterthwaite degrees of freedom. */
  df: number;
  /** Two-sided p-value. */
  p: number;
};

/**
 * Welch's unequal-variance t-test, two-sided; matches scipy.stats.ttest_ind(a, b, equal_var=False).
 * Where scipy answers NaN — both samples without spread — this answers t = ±∞, p = 0 when the
 * means differ and t = 0, p = 1 when they are equal, with df = na + nb − 2.
 */
export function welchTTest(rawA: readonly number[], rawB: readonly number[]): WelchTTest {
  assertSample(rawA, 'a', 2);
  assertSample(rawB, 'b', 2);
  // t, df and p do not depend on the scale: huge values are scaled near 1 so nothing overflows.
  const k = scaleOf([...rawA, ...rawB]);
  const a = scaled(rawA, k);
  const b = scaled(rawB, k);
  const difference = sum(a) / a.length - sum(b) / b.length;
  const va = sampleVariance(a) / a.length;
  const vb = sampleVariance(b) / b.length;
  if (va + vb === 0) {
    const df = a.length + b.length - 2;
    return difference === 0 ? { t: 0, df, p: 1 } : { t: Math.sign(difference) * Infinity, df, p: 0 };
  }
  const t = difference / Math.sqrt(va + vb);
  // Welch–Satterthwaite df on the shares of the variance: the textbook (va + vb)² / (va² / …)
  // is 0 / 0 when one group's spread is tiny next to the other's values (va² underflows).
  const ra = va / (va + vb);
  const rb = vb / (va + vb);
  const df = 1 / (ra ** 2 / (a.length - 1) + rb ** 2 / (b.length - 1));
  return { t, df, p: Math.min(1, 2 * tCdf(-Math.abs(t), df)) };
}

export type MannWhitneyMethod = 'asymptotic' | 'exact' | 'auto';

export type MannWhitneyU = {
  /** U of the first sample: the number of pairs (x in a, y in b) with x > y, ties counting ½. */
  u: number;
  /** Two-sided p-value. */
  p: number;
  method: 'asymptotic' | 'exact';
};

/**
 * Mann–Whitney U test, two-sided. Matches scipy.stats.mannwhitneyu(a, b, use_continuity=True,
 * alternative='two-sided') for the same `method` (scipy ≥ 1.7):
 * - 'asymptotic' (default): normal approximation with the tie-corrected variance
 *   na·nb/12 · ((n + 1) − Σ(t³ − t) / (n(n − 1))) and a continuity correction of ½;
 * - 'exact': the permutation distribution of U; only for samples without ties (RangeError otherwise);
 * - 'auto': scipy's rule — exact when either sample has ≤ 8 values and there are no ties.
 * When every value is identical the p-value is 1.
 */
export function mannWhitneyU(
  a: readonly number[],
  b: readonly number[],
  options: { method?: MannWhitneyMethod } = {},
): MannWhitneyU {
  assertSample(a, 'a');
  assertSample(b, 'b');
  const requested = options.method ?? 'asymptotic';
  if (!['asymptotic', 'exact', 'auto'].includes(requested)) {
    throw new RangeError(`options.method must be 'asymptotic', 'exact' or 'auto' (got ${String(requested)})`);
  }
  const na = a.length;
  const nb = b.length;
  const { ranks, tieTerm } = rankWithTies([...a, ...b]);
  const u1 = sum(ranks.slice(0, na)) - (na * (na + 1)) / 2;
  const u = Math.max(u1, na * nb - u1);
  const hasTies = tieTerm > 0;
  if (requested === 'exact' && hasTies) {
    throw new RangeError("a and b contain tied values; the exact Mann–Whitney p-value needs method 'asymptotic'");
  }
  const method = requested === 'auto' ? ((na <= 8 || nb <= 8) && !hasTies ? 'exact' : 'asymptotic') : requested;
  if (method === 'exact') {
    return { u: u1, p: Math.min(1, 2 * exactUpperTail(Math.round(u), na, nb)), method };
  }
  const n = na + nb;
  const sd = Math.sqrt(((na * nb) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  if (sd === 0) return { u: u1, p: 1, method };
  const z = (u - (na * nb) / 2 - 0.5) / sd;
  return { u: u1, p: Math.min(1, 2 * normalCdf(-z, 0, 1)), method };
}

/** Average ranks (1-based) and Σ(t³ − t) over groups of t tied values. */
function rankWithTies(values: readonly number[]): { ranks: number[]; tieTerm: number } {
  const order = values.map((value, index) => ({ value, index })).sort((x, y) => x.value - y.value);
  const ranks = new Array<number>(values.length).fill(0);
  let tieTerm = 0;
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && order[end]?.value === order[start]?.value) end += 1;
    const averageRank = (start + 1 + end) / 2;
    for (let k = start; k < end; k += 1) {
      const entry = order[k];
      if (entry) ranks[entry.index] = averageRank;
    }
    const t = end - start;
    tieTerm += t ** 3 - t;
    start = end;
  }
  return { ranks, tieTerm };
}

/**
 * P(U ≥ u) under H0 for sample sizes m and n without ties, by the recurrence
 * P[k, j](u) = k/(k+j)·P[k−1, j](u − j) + j/(k+j)·P[k, j−1](u) (the largest value belongs to the
 * first sample with probability k/(k+j) and then beats all j of the second). Probabilities rather
 * than counts keep it exact enough where C(m+n, m) exceeds 2⁵³.
 */
function exactUpperTail(u: number, m: number, n: number): number {
  // previous[j] is the distribution of U for sizes (k − 1, j); index = U.
  let previous: Float64Array[] = Array.from({ length: n + 1 }, () => Float64Array.of(1));
  for (let k = 1; k <= m; k += 1) {
    const current: Float64Array[] = [Float64Array.of(1)];
    for (let j = 1; j <= n; j += 1) {
      const next = new Float64Array(k * j + 1);
      const fromPrevious = previous[j] ?? Float64Array.of(1);
      const fromLeft = current[j - 1] ?? Float64Array.of(1);
      fromPrevious.forEach((probability, value) => {
        next[value + j] = (next[value + j] ?? 0) + (k / (k + j)) * probability;
      });
      fromLeft.forEach((probability, value) => {
        next[value] = (next[value] ?? 0) + (j / (k + j)) * probability;
      });
      current.push(next);
    }
    previous = current;
  }
  const distribution = previous[n] ?? Float64Array.of(1);
  let tail = 0;
  for (let value = u; value < distribution.length; value += 1) tail += distribution[value] ?? 0;
  return tail;
}
