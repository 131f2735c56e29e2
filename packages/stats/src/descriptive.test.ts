import { describe, expect, it } from 'vitest';
import {
  coefficientOfVariation,
  confidenceIntervalMean,
  findOutliers,
  geometricMean,
  geometricMeanOfRatios,
  mannWhitneyU,
  mean,
  median,
  relativeDifference,
  sampleStdDev,
  standardError,
  summarize,
  welchTTest,
} from './index.ts';

describe('bad input is a RangeError that names the argument', () => {
  const oneSample = {
    mean,
    median,
    sampleStdDev,
    standardError,
    coefficientOfVariation,
    confidenceIntervalMean,
    geometricMean,
    summarize,
    findOutliers,
  };

  it.each(Object.entries(oneSample))('%s rejects empty, NaN and infinite values', (_name, fn) => {
    expect(() => fn([])).toThrow(new RangeError('values must not be empty'));
    expect(() => fn([1, Number.NaN, 3])).toThrow(new RangeError('values[1] must be a finite number (got NaN)'));
    expect(() => fn([1, 2, Number.POSITIVE_INFINITY])).toThrow(
      new RangeError('values[2] must be a finite number (got Infinity)'),
    );
  });

  it.each([
    ['welchTTest', welchTTest],
    ['mannWhitneyU', mannWhitneyU],
  ] as const)('%s names a and b', (_name, fn) => {
    expect(() => fn([], [1, 2])).toThrow(/^a must/);
    expect(() => fn([1, 2], [1, Number.NEGATIVE_INFINITY])).toThrow(
      new RangeError('b[1] must be a finite number (got -Infinity)'),
    );
  });

  it('relativeDifference names baseline, candidate and level', () => {
    expect(() => relativeDifference([], [1, 2])).toThrow(/^baseline must/);
    expect(() => relativeDifference([1, 2], [Number.NaN, 2])).toThrow(/^candidate\[0\]/);
    expect(() => relativeDifference([1, 2], [1, 2], 1.5)).toThrow(/^level must be/);
    expect(() => relativeDifference([-1, 1], [1, 2])).toThrow(/baseline has mean 0/);
  });

  it('needs two values wherever a spread is estimated', () => {
    expect(() => sampleStdDev([3])).toThrow(new RangeError('values must have at least 2 values (got 1)'));
    expect(() => confidenceIntervalMean([3])).toThrow(RangeError);
    expect(() => welchTTest([1], [1, 2])).toThrow(/^a must have at least 2 values/);
    expect(() => confidenceIntervalMean([1, 2], 0)).toThrow(/^level must be/);
  });

  it('geometric means need positive values', () => {
    expect(() => geometricMean([1, 0, 2])).toThrow(/values\[1\] must be > 0/);
    expect(() => geometricMeanOfRatios([])).toThrow(/pairs must not be empty/);
    expect(() => geometricMeanOfRatios([{ baseline: 1, candidate: Number.NaN }])).toThrow(/pairs\[0\]\.candidate/);
    expect(() => coefficientOfVariation([-1, 1])).toThrow(/mean 0/);
  });

  it('the exact Mann–Whitney test refuses ties', () => {
    expect(() => mannWhitneyU([1, 2, 3], [3, 4, 5], { method: 'exact' })).toThrow(/tied values/);
    expect(mannWhitneyU([1, 2, 3], [3, 4, 5], { method: 'auto' }).method).toBe('asymptotic');
  });
});

describe('summarize', () => {
  it('reports a single run without inventing a spread', () => {
    expect(summarize([42])).toEqual({
      n: 1,
      mean: 42,
      median: 42,
      sd: null,
      se: null,
      cv: null,
      ci95: null,
      ci95TruncatedAtZero: false,
      min: 42,
      max: 42,
      outliers: [],
      overflow: false,
    });
  });

  it('flags outliers by modified z-score, not by the values they distort', () => {
    // median 10, MAD 0.1: 25 has modified z ≈ 101, 10.4 has ≈ 2.7.
    expect(summarize([10, 10.1, 9.9, 10.4, 25, 9.8, 10]).outliers).toEqual([4]);
  });

  it('flags nothing when more than half the values are equal (MAD = 0)', () => {
    expect(findOutliers([5, 5, 5, 5, 100])).toEqual([]);
  });

  it('leaves the input order alone', () => {
    const values = [3, 1, 2];
    expect(median(values)).toBe(2);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('degenerate comparisons', () => {
  it('Welch on constant samples: certain when means differ, nothing when equal', () => {
    expect(welchTTest([2, 2, 2], [1, 1, 1])).toEqual({ t: Infinity, df: 4, p: 0 });
    expect(welchTTest([1, 1, 1], [1, 1, 1])).toEqual({ t: 0, df: 4, p: 1 });
  });

  it('Mann–Whitney on all-equal values has p = 1', () => {
    expect(mannWhitneyU([4, 4, 4], [4, 4])).toEqual({ u: 3, p: 1, method: 'asymptotic' });
  });

  it('Fieller: a baseline mean indistinguishable from 0 gives an unbounded interval', () => {
    const result = relativeDifference([1, -0.5, 2, 0.1], [5, 6, 7, 6]);
    expect(result.ci).toEqual({ low: -Infinity, high: Infinity });
  });

  it('no spread on either side collapses the interval to the estimate (log ratio and Fieller)', () => {
    expect(relativeDifference([4, 4], [5, 5])).toMatchObject({ method: 'log-ratio', ci: { low: 0.25, high: 0.25 } });
    expect(relativeDifference([4, 4], [0, 0])).toMatchObject({ method: 'fieller', ci: { low: -1, high: -1 } });
  });

  it('log ratio: a noisy baseline near 0 gives a wide interval that still keeps the ratio above 0', () => {
    const result = relativeDifference([0.9, 4.1, 0.2, 6.3, 1.1], [0.1, 0.3, 0.05, 0.2, 0.15]);
    expect(result.method).toBe('log-ratio');
    // Fieller's set for these data is [−159.0%, −98.2%] (scripts/reference.py, fieller95): a negative ratio.
    expect(result.ci.low).toBeGreaterThan(-1);
    expect(result.ci.low).toBeCloseTo(-0.98236, 4);
    expect(result.ci.high).toBeCloseTo(-0.77148, 4);
  });

  it('the mean interval of a sample with no negative value is cut at 0, and says so', () => {
    const cut = confidenceIntervalMean([10, 12]);
    expect(cut.low).toBe(0);
    expect(cut.truncatedAtZero).toBe(true);
    expect(cut.high).toBeCloseTo(23.706, 3);
    // A sample that can be negative keeps the plain t interval.
    expect(confidenceIntervalMean([-1, 12]).low).toBeLessThan(0);
    expect(confidenceIntervalMean([-1, 12]).truncatedAtZero).toBe(false);
    expect(summarize([0.9, 4.1, 0.2, 6.3, 1.1])).toMatchObject({ ci95: { low: 0 }, ci95TruncatedAtZero: true });
  });

  it('the exact Mann–Whitney distribution is a distribution', () => {
    // Completely separated samples of 4 and 5: P(U ≥ 20) = 1/C(9,4) = 1/126, doubled.
    expect(mannWhitneyU([10, 11, 12, 13], [1, 2, 3, 4, 5], { method: 'exact' }).p).toBeCloseTo(2 / 126, 14);
    expect(mannWhitneyU([1, 4, 5, 8], [2, 3, 6, 7], { method: 'exact' }).p).toBe(1);
  });
});
