import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { assertProbability, assertSample } from './validate.ts';

export type Interval = { low: number; high: number };
export type ConfidenceInterval = Interval & {
  level: number;
  /** True when the t interval reached below 0 for a sample with no negative value and `low` was set to 0. */
  truncatedAtZero: boolean;
};

export function mean(values: readonly number[]): number {
  assertSample(values, 'values');
  return meanOf(values);
}

export function median(values: readonly number[]): number {
  assertSample(values, 'values');
  return sortedMedian([...values].sort((x, y) => x - y));
}

/**
 * Sample standard deviation with Bessel's correction (divides by n − 1). Computed on values
 * scaled near 1 (see `scaleOf`), so it is +Infinity only when the true figure exceeds the double
 * range, never because a square overflowed on the way.
 */
export function sampleStdDev(values: readonly number[]): number {
  assertSample(values, 'values', 2);
  const k = scaleOf(values);
  return k === 1 ? Math.sqrt(sampleVariance(values)) : Math.sqrt(sampleVariance(scaled(values, k))) / k;
}

export function standardError(values: readonly number[]): number {
  return sampleStdDev(values) / Math.sqrt(values.length);
}

/** sd / mean; undefined (RangeError) when the mean is 0. Scale-free, so computed on scaled values. */
export function coefficientOfVariation(values: readonly number[]): number {
  assertSample(values, 'values', 2);
  const xs = scaled(values, scaleOf(values));
  const sd = Math.sqrt(sampleVariance(xs));
  const m = sum(xs) / xs.length;
  if (m === 0) throw new RangeError('values have mean 0, so their coefficient of variation is undefined');
  return sd / Math.abs(m);
}

/** Makes the MAD a consistent estimator of σ for normal data (1 / Φ⁻¹(3/4)). */
export const MAD_SCALE = 1.4826;

/** The median of `values` and their MAD, the median of |x − median| (unscaled): findOutliers' and the robust CV's. */
export function medianAndMad(values: readonly number[]): { center: number; mad: number } {
  const center = sortedMedian([...values].sort((x, y) => x - y));
  const mad = sortedMedian(values.map((value) => Math.abs(value - center)).sort((x, y) => x - y));
  return { center, mad };
}

/**
 * 1.4826 · MAD / |median| (scipy.stats.median_abs_deviation(x, scale='normal') / |median|): the
 * coefficient of variation's robust counterpart, an estimate of sd / mean for normal data that one
 * slow value among several barely moves. Of eight repetitions of about 17 ms with one at 22 ms the
 * CV is 10.3 %, this 1.2 %; with every repetition spread it is about the CV (10.3 and 11.4 % for
 * 24–32 ms; reference.py's last case). Scale-free, so computed on scaled values. Undefined
 * (RangeError) when the median is 0.
 */
export function robustCoefficientOfVariation(values: readonly number[]): number {
  assertSample(values, 'values', 2);
  const { center, mad } = medianAndMad(scaled(values, scaleOf(values)));
  if (center === 0) throw new RangeError('values have median 0, so their robust coefficient of variation is undefined');
  return (MAD_SCALE * mad) / Math.abs(center);
}

/**
 * Two-sided Student t interval for the (arithmetic) mean: mean ± t(1 − (1 − level)/2, n − 1) · se.
 *
 * A sample with no negative value is taken to measure a quantity that cannot be negative
 * (durations, rates, sizes: everything TuneLab times or counts), so its mean is ≥ 0, and a t
 * interval reaching below 0 is cut at 0 with `truncatedAtZero` set. Cutting keeps the coverage
 * (the true mean lies in the cut part with the same probability) and keeps the interval about
 * the arithmetic mean that is printed beside it; the log-scale (geometric) interval would be
 * about another quantity, the geometric mean. The flag tells a report to say that the data
 * cannot bound the mean from below.
 */
export function confidenceIntervalMean(values: readonly number[], level = 0.95): ConfidenceInterval {
  assertSample(values, 'values', 2);
  assertProbability(level, 'level');
  const m = meanOf(values);
  const halfWidth = tQuantile(1 - (1 - level) / 2, values.length - 1) * standardError(values);
  const low = m - halfWidth;
  const truncatedAtZero = low < 0 && values.every((value) => value >= 0);
  return { low: truncatedAtZero ? 0 : low, high: m + halfWidth, level, truncatedAtZero };
}

/** exp(mean(ln x)); every value must be > 0. */
export function geometricMean(values: readonly number[]): number {
  assertSample(values, 'values');
  values.forEach((value, index) => {
    if (value <= 0) throw new RangeError(`values[${index}] must be > 0 for a geometric mean (got ${value})`);
  });
  return Math.exp(sum(values.map(Math.log)) / values.length);
}

export type RatioPair = { baseline: number; candidate: number };

/**
 * Geometric mean of candidate/baseline over scenarios: the one-number summary ClickBench uses
 * across queries (https://github.com/ClickHouse/ClickBench#results-usage-and-scoreboards).
 * `shift` is added to both sides first; ClickBench adds 0.01 s so that near-zero timings do not
 * dominate. Below 1 means the candidate is smaller (faster, for durations) overall.
 */
export function geometricMeanOfRatios(pairs: readonly RatioPair[], options: { shift?: number } = {}): number {
  const shift = options.shift ?? 0;
  if (!Number.isFinite(shift) || shift < 0) throw new RangeError(`shift must be a finite number >= 0 (got ${shift})`);
  if (pairs.length === 0) throw new RangeError('pairs must not be empty');
  const ratios = pairs.map((pair, index) => {
    for (const side of ['baseline', 'candidate'] as const) {
      const value = pair[side];
      if (typeof value !== 'number' || !Number.isFinite(value) || value + shift <= 0) {
        throw new RangeError(`pairs[${index}].${side} must be a finite number > 0 (got ${String(value)})`);
      }
    }
    return (pair.candidate + shift) / (pair.baseline + shift);
  });
  return geometricMean(ratios);
}

// Internal helpers: callers have validated their input.

/**
 * A power of two that brings the largest magnitude of `values` near 1 when they are so large
 * that sums and squares would overflow (or so small that squares would underflow); 1 otherwise.
 * Multiplying by a power of two is exact, and every test statistic here (t, p, ratios, CIs of
 * ratios) is scale-free, so the statistics are total over finite input: 1.8e308 gives numbers,
 * not NaN.
 */
export function scaleOf(values: readonly number[]): number {
  let largest = 0;
  for (const value of values) largest = Math.max(largest, Math.abs(value));
  if (largest === 0 || (largest < 2 ** 400 && largest > 2 ** -400)) return 1;
  return 2 ** Math.max(-1000, Math.min(1000, -Math.floor(Math.log2(largest))));
}

export function scaled(values: readonly number[], k: number): readonly number[] {
  return k === 1 ? values : values.map((value) => value * k);
}

/** The mean, finite for any finite input (a plain sum of values near 1.8e308 overflows). */
export function meanOf(values: readonly number[]): number {
  const plain = sum(values) / values.length;
  if (Number.isFinite(plain)) return plain;
  const k = scaleOf(values);
  return sum(scaled(values, k)) / values.length / k;
}

export function sum(values: readonly number[]): number {
  // Neumaier summation keeps long runs of similar timings exact to the last bits.
  let total = 0;
  let compensation = 0;
  for (const value of values) {
    const next = total + value;
    compensation += Math.abs(total) >= Math.abs(value) ? total - next + value : value - next + total;
    total = next;
  }
  return total + compensation;
}

export function sampleVariance(values: readonly number[]): number {
  const m = sum(values) / values.length;
  return sum(values.map((value) => (value - m) ** 2)) / (values.length - 1);
}

export function sortedMedian(sorted: readonly number[]): number {
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}
