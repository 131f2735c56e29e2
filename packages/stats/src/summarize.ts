import {
  coefficientOfVariation,
  confidenceIntervalMean,
  MAD_SCALE,
  medianAndMad,
  sampleStdDev,
  meanOf,
  scaled,
  scaleOf,
  sortedMedian,
  standardError,
  type Interval,
} from './descriptive.ts';
import { assertSample } from './validate.ts';

/**
 * Everything a report shows for one variant. Spread figures are null when n = 1 (no spread can
 * be estimated) and `cv` is null when the mean is 0 (or so near 0 that sd / mean overflows).
 */
export type Summary = {
  n: number;
  mean: number;
  median: number;
  sd: number | null;
  se: number | null;
  cv: number | null;
  ci95: Interval | null;
  /**
   * True when `ci95` was cut at 0: the sample has no negative value, and the t interval reached
   * below 0 (see `confidenceIntervalMean`); the data do not bound the mean from below.
   */
  ci95TruncatedAtZero: boolean;
  min: number;
  max: number;
  /** Indices into the input of values flagged by `findOutliers`. */
  outliers: number[];
  /**
   * True when a spread figure (sd, se, CI) exceeds the double range (values near ±1.8e308): those
   * figures are null then, and a report says so instead of failing.
   */
  overflow: boolean;
};

/** Iglewicz & Hoaglin (1993), "How to Detect and Handle Outliers": flag |modified z| > 3.5. */
export const OUTLIER_MODIFIED_Z = 3.5;

/**
 * Indices of values whose modified z-score |x − median| / (1.4826 · MAD) exceeds 3.5.
 * With MAD = 0 (more than half the values equal) nothing is flagged: the scale is unknown.
 */
export function findOutliers(values: readonly number[]): number[] {
  assertSample(values, 'values');
  // Modified z-scores are scale-free; scaled values keep |x − median| from overflowing.
  values = scaled(values, scaleOf(values));
  const { center, mad } = medianAndMad(values);
  if (mad === 0) return [];
  const scale = MAD_SCALE * mad;
  return values.flatMap((value, index) => (Math.abs(value - center) / scale > OUTLIER_MODIFIED_Z ? [index] : []));
}

export function summarize(values: readonly number[]): Summary {
  assertSample(values, 'values');
  const sorted = [...values].sort((x, y) => x - y);
  const m = meanOf(values);
  const hasSpread = values.length >= 2;
  const ci = hasSpread ? confidenceIntervalMean(values, 0.95) : null;
  const sd = hasSpread ? sampleStdDev(values) : null;
  const se = hasSpread ? standardError(values) : null;
  const finiteCi = ci && Number.isFinite(ci.low) && Number.isFinite(ci.high) ? { low: ci.low, high: ci.high } : null;
  const overflow =
    (sd !== null && !Number.isFinite(sd)) ||
    (se !== null && !Number.isFinite(se)) ||
    (ci !== null && finiteCi === null);
  return {
    n: values.length,
    mean: m,
    // The midpoint of two values near ±1.8e308 overflows when added first.
    median: values.length % 2 === 1 ? sortedMedian(sorted) : halfwayOf(sorted),
    sd: sd !== null && Number.isFinite(sd) ? sd : null,
    se: se !== null && Number.isFinite(se) ? se : null,
    cv: hasSpread && m !== 0 ? cvOrNull(values) : null,
    ci95: finiteCi,
    ci95TruncatedAtZero: finiteCi !== null && ci !== null && ci.truncatedAtZero,
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    outliers: findOutliers(values),
    overflow,
  };
}

function halfwayOf(sorted: readonly number[]): number {
  const middle = sorted.length / 2;
  const lower = sorted[middle - 1] ?? Number.NaN;
  const upper = sorted[middle] ?? Number.NaN;
  const plain = (lower + upper) / 2;
  return Number.isFinite(plain) ? plain : lower / 2 + upper / 2;
}

/** sd / |mean|, or null when it overflows or the mean, taken at scale, is 0. */
function cvOrNull(values: readonly number[]): number | null {
  try {
    const cv = coefficientOfVariation(values);
    return Number.isFinite(cv) ? cv : null;
  } catch (e) {
    if (e instanceof RangeError) return null;
    throw e;
  }
}
