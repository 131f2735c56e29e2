import { describe, expect, it } from 'vitest';
import reference from './reference-values.json' with { type: 'json' };
import {
  adjustPValues,
  coefficientOfVariation,
  robustCoefficientOfVariation,
  interactionTest,
  confidenceIntervalMean,
  geometricMean,
  geometricMeanOfRatios,
  mannWhitneyU,
  type Moments,
  mean,
  median,
  relativeDifference,
  sampleStdDev,
  standardError,
  summarize,
  welchTTest,
} from './index.ts';

// Values from scripts/reference.py (SciPy); every figure must agree to 4 significant digits.
const RELATIVE_TOLERANCE = 1e-4;

function expectClose(actual: number | null | undefined, expected: number, what: string): void {
  if (actual === null || actual === undefined) throw new Error(`${what}: got ${String(actual)}`);
  const tolerance = Math.max(Math.abs(expected) * RELATIVE_TOLERANCE, 1e-12);
  expect(Math.abs(actual - expected), `${what}: ${actual} vs reference ${expected}`).toBeLessThanOrEqual(tolerance);
}

describe.each(reference.cases)('$name', (testCase) => {
  const sides = [
    ['baseline', testCase.baseline, testCase.summaryBaseline],
    ['candidate', testCase.candidate, testCase.summaryCandidate],
  ] as const;

  it.each(sides)('describes the %s like SciPy', (side, values, expected) => {
    expectClose(mean(values), expected.mean, `${side} mean`);
    expectClose(median(values), expected.median, `${side} median`);
    expectClose(sampleStdDev(values), expected.sd, `${side} sd`);
    expectClose(standardError(values), expected.se, `${side} se`);
    expectClose(coefficientOfVariation(values), expected.cv, `${side} cv`);
    if (expected.robustCv === null) expect(() => robustCoefficientOfVariation(values)).toThrow(RangeError);
    else expectClose(robustCoefficientOfVariation(values), expected.robustCv, `${side} robust cv`);
    if (expected.geometricMean === null) expect(() => geometricMean(values)).toThrow(RangeError);
    else expectClose(geometricMean(values), expected.geometricMean, `${side} geometric mean`);
    const ci99 = confidenceIntervalMean(values, 0.99);
    expectClose(ci99.low, expected.ci99.low, `${side} 99% CI low`);
    expectClose(ci99.high, expected.ci99.high, `${side} 99% CI high`);
    expect(ci99.level).toBe(0.99);
    expect(ci99.truncatedAtZero).toBe(expected.ci99.truncatedAtZero);

    const summary = summarize(values);
    expect(summary.n).toBe(expected.n);
    expectClose(summary.mean, expected.mean, `${side} summary mean`);
    expectClose(summary.median, expected.median, `${side} summary median`);
    expectClose(summary.sd, expected.sd, `${side} summary sd`);
    expectClose(summary.se, expected.se, `${side} summary se`);
    expectClose(summary.cv, expected.cv, `${side} summary cv`);
    expectClose(summary.ci95?.low, expected.ci95.low, `${side} 95% CI low`);
    expectClose(summary.ci95?.high, expected.ci95.high, `${side} 95% CI high`);
    expect(summary.ci95TruncatedAtZero).toBe(expected.ci95.truncatedAtZero);
    expect(summary.min).toBe(expected.min);
    expect(summary.max).toBe(expected.max);
    expect(summary.outliers).toEqual(expected.outliers);
  });

  it('matches scipy.stats.ttest_ind(equal_var=False)', () => {
    const welch = welchTTest(testCase.baseline, testCase.candidate);
    expectClose(welch.t, testCase.welch.t, 't');
    expectClose(welch.df, testCase.welch.df, 'df');
    expectClose(welch.p, testCase.welch.p, 'p');
  });

  it("matches scipy.stats.mannwhitneyu(method='asymptotic', use_continuity=True)", () => {
    const result = mannWhitneyU(testCase.baseline, testCase.candidate);
    expect(result.method).toBe('asymptotic');
    expectClose(result.u, testCase.mannWhitneyAsymptotic.u, 'U');
    expectClose(result.p, testCase.mannWhitneyAsymptotic.p, 'p');
  });

  it.each([
    [0.95, testCase.relativeDifference95],
    [0.9, testCase.relativeDifference90],
  ])('gives the relative-difference interval at level %s (log ratio when all > 0, else Fieller)', (level, expected) => {
    const result = relativeDifference(testCase.baseline, testCase.candidate, level);
    expect(result.method).toBe(expected.method);
    expectClose(result.absolute, expected.absolute, 'absolute');
    expectClose(result.relative, expected.relative, 'relative');
    // null in the reference: an unbounded Fieller set, reported as (−∞, +∞).
    if (expected.ci.low === null) expect(result.ci.low).toBe(-Infinity);
    else expectClose(result.ci.low, expected.ci.low, 'CI low');
    if (expected.ci.high === null) expect(result.ci.high).toBe(Infinity);
    else expectClose(result.ci.high, expected.ci.high, 'CI high');
    expectClose(result.df, expected.df, 'df');
    // The p of the test the interval inverts: no change is outside the interval exactly when p < 1 − level.
    expectClose(result.p, expected.p, 'p');
    if (expected.ci.low !== null) expect(result.ci.low > 0 || result.ci.high < 0).toBe(result.p < 1 - level);
    expect(result.level).toBe(level);
  });
});

const casesWithoutTies = reference.cases.flatMap((testCase) =>
  'mannWhitneyExact' in testCase && testCase.mannWhitneyExact
    ? [{ ...testCase, exact: testCase.mannWhitneyExact }]
    : [],
);

describe.each(casesWithoutTies)("$name: scipy.stats.mannwhitneyu(method='exact')", (testCase) => {
  it('matches the exact permutation p-value', () => {
    const result = mannWhitneyU(testCase.baseline, testCase.candidate, { method: 'exact' });
    expect(result.method).toBe('exact');
    expectClose(result.u, testCase.exact.u, 'U');
    expectClose(result.p, testCase.exact.p, 'p');
    expect(mannWhitneyU(testCase.baseline, testCase.candidate, { method: 'auto' }).method).toBe('exact');
  });
});

describe('geometricMeanOfRatios', () => {
  const expected = reference.geometricMeanOfRatios;
  it('summarizes candidate/baseline across scenarios like scipy.stats.gmean', () => {
    expectClose(geometricMeanOfRatios(expected.pairs), expected.value, 'geometric mean of ratios');
    expectClose(
      geometricMeanOfRatios(expected.pairs, { shift: expected.shift }),
      expected.valueShifted,
      'shifted geometric mean of ratios',
    );
  });
});

const moments = (values: readonly number[]): Moments => ({
  n: values.length,
  mean: mean(values),
  sd: sampleStdDev(values),
  min: Math.min(...values),
});

describe.each(reference.interactions)('interaction $name', (c) => {
  it('tests the pair’s ratio under A against that under B like the SciPy recomputation', () => {
    const pair = (x: { baseline: number[]; candidate: number[] }) => ({
      baseline: moments(x.baseline),
      candidate: moments(x.candidate),
    });
    const result = interactionTest(pair(c.a), pair(c.b));
    expect(result.method).toBe(c.method);
    expectClose(result.estimate, c.estimate, 'estimate');
    expectClose(result.ci.low, c.ci.low, 'CI low');
    expectClose(result.ci.high, c.ci.high, 'CI high');
    expectClose(result.t, c.t, 't');
    expectClose(result.df, c.df, 'df');
    expectClose(result.p, c.p, 'p');
    if (result.method === 'log-ratio') expect(result.ci.low).toBeGreaterThan(0);
  });
});

describe.each(reference.adjustedPValues)('adjusted p-values: $name', (c) => {
  it('gives Holm’s step-down p-values', () => {
    adjustPValues(c.p, 'holm').forEach((p, i) => expectClose(p, c.holm[i]!, `Holm p[${i}]`));
  });
  it('gives Benjamini–Hochberg’s like scipy.stats.false_discovery_control', () => {
    adjustPValues(c.p, 'benjamini-hochberg').forEach((p, i) => expectClose(p, c.benjaminiHochberg[i]!, `BH p[${i}]`));
  });
});
