import { describe, expect, it } from 'vitest';
import { mannWhitneyU, relativeDifference, summarize, verdict, welchTTest } from './index.ts';

// A sample of 1.7976931348623157e308 (or 1e155 × repetition) made the statistics
// answer NaN ("p must be a number") and broke every comparison. Every statistic is total over
// finite input: it gives numbers, and spread figures beyond the double range are reported as such.
const MAX = Number.MAX_VALUE;

describe('statistics over extreme finite values', () => {
  it('summarizes values near the double maximum: mean and median finite, spread reported as overflow', () => {
    const s = summarize([MAX, -MAX, MAX, -MAX]);
    expect(Number.isFinite(s.mean)).toBe(true);
    expect(Number.isFinite(s.median)).toBe(true);
    expect(s.overflow).toBe(true);
    expect(s.sd).toBeNull();
    expect(s.ci95).toBeNull();
  });

  it('summarizes 1e155 × repetition with a finite sd (the squares no longer overflow)', () => {
    const s = summarize([1e155, 2e155, 3e155, 4e155, 5e155]);
    expect(s.overflow).toBe(false);
    expect(s.mean).toBeCloseTo(3e155, -140);
    expect(s.sd! / 1e155).toBeCloseTo(Math.sqrt(2.5), 10);
    expect(s.ci95).not.toBeNull();
  });

  it('gives a p-value when the spread of one group is ~1e-170 of the values of the other (found by the POST /v1/runs property test)', () => {
    // The textbook df, (va + vb)² / (va² / (na − 1) + vb² / (nb − 1)), was 0 / 0 here: p was NaN
    // and GET /v1/comparisons and /v1/findings answered 500 ("p must be a number").
    const tiny = [1e-85, 2e-85, 3e-85];
    const r = welchTTest(tiny, [1, 1, 1]);
    expect(r.df).toBeCloseTo(2, 10);
    expect(r.p).toBeGreaterThanOrEqual(0);
    expect(r.p).toBeLessThan(1e-10);
    const v = verdict({
      baseline: { label: '1-1', values: [1, 1, 1] },
      candidate: { label: '1-2', values: tiny },
      direction: 'lower-is-better',
    });
    expect(v.kind).toBe('faster');
    expect(v.p).toEqual(expect.any(Number));
  });

  it('says insufficient data when the baseline mean is ~1e-323 next to 3e18 (the relative difference overflows; found by the property test)', () => {
    // improvement was -Infinity, which the response schema refuses: GET /v1/comparisons answered 500.
    const baseline = [0, 8e-323, 9.4e-323];
    const candidate = [1.863644438542669e-118, 4.17700465439518e-160, 9223372036854758000];
    const r = relativeDifference(baseline, candidate);
    expect(r.ci).toEqual({ low: -Infinity, high: Infinity });
    expect(Number.isNaN(r.df)).toBe(false);
    const v = verdict({
      baseline: { label: '1-1', values: baseline },
      candidate: { label: '1-2', values: candidate },
      direction: 'lower-is-better',
    });
    expect(v.kind).toBe('insufficient-data');
    expect(v.relative).toBeNull();
    expect(v.sentence).toMatch(/too close to 0/);
  });

  it('keeps a finite df when the squared variances underflow (spread ~1e-170 of the means)', () => {
    const r = relativeDifference([1, 1 + 2e-85, 1 + 4e-85], [2, 2 + 2e-85, 2 + 4e-85]);
    expect(Number.isFinite(r.df)).toBe(true);
    expect(r.relative).toBeCloseTo(1, 12);
  });

  it('gives no cv when the mean is so near 0 that sd / mean overflows (found by the property test)', () => {
    // cv was Infinity, which the response schema refuses: GET /v1/comparisons answered 500.
    // Mean 1e-323 / 3, which rounds to 5e-324; sd about 1.
    expect(summarize([1, -1, 1e-323]).cv).toBeNull();
    expect(summarize([1e308, -1e308, 1e-323]).cv).toBeNull();
    expect(summarize([1, 2, 3]).cv).toBeCloseTo(0.5, 12);
  });

  it('gives the same t, df and p for values scaled by 2^1000 as for the values themselves', () => {
    const a = [4.368, 4.311, 4.402, 4.29, 4.35];
    const b = [3.1, 3.05, 3.2, 3.15, 3.12];
    const k = 2 ** 1000;
    const plain = welchTTest(a, b);
    const huge = welchTTest(
      a.map((x) => x * k),
      b.map((x) => x * k),
    );
    expect(huge.p).toBe(plain.p);
    expect(huge.t).toBe(plain.t);
    expect(
      relativeDifference(
        a.map((x) => x * k),
        b.map((x) => x * k),
      ).relative,
    ).toBe(relativeDifference(a, b).relative);
  });

  it('reaches a verdict (with a p-value) on values near the maximum instead of throwing', () => {
    const v = verdict({
      baseline: { label: 'a', values: [MAX, MAX * 0.99, MAX * 0.98] },
      candidate: { label: 'b', values: [MAX * 0.5, MAX * 0.49, MAX * 0.51] },
      direction: 'lower-is-better',
    });
    expect(v.kind).toBe('faster');
    expect(Number.isFinite(v.p)).toBe(true);
    expect(v.sentence).toMatch(/^b is 49\.\d% faster than a \(95% CI/);
    const rd = relativeDifference([MAX, MAX * 0.99], [-MAX, -MAX * 0.99]);
    expect(rd.absolute).toBe(-Infinity);
    expect(Number.isFinite(rd.relative)).toBe(true);
  });

  it('ranks extreme values like any others', () => {
    expect(mannWhitneyU([MAX, MAX / 2, MAX / 3], [-MAX, 1, 2]).p).toBeGreaterThan(0);
  });
});
