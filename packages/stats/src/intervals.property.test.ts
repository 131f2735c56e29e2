import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  confidenceIntervalMean,
  interactionTest,
  mean,
  relativeDifference,
  sampleStdDev,
  summarize,
  verdict,
  type Direction,
  type Quantity,
} from './index.ts';

// Positive samples as benchmarks give them (durations, rates, sizes), from steady to wildly noisy:
// values across six orders of magnitude, 2 to 12 per side. That range
// keeps the ratio's bounds well inside the double range.
const positive = fc.double({ min: 1e-3, max: 1e3, noNaN: true, noDefaultInfinity: true });
const sample = fc.array(positive, { minLength: 2, maxLength: 12 });
// A steady sample around a level: the case where a noisy baseline used to give a CI past 100%.
const steady = fc
  .tuple(positive, fc.array(fc.double({ min: 0.5, max: 1.5, noNaN: true }), { minLength: 2, maxLength: 8 }))
  .map(([level, factors]) => factors.map((f) => level * f));
const anySample = fc.oneof(sample, steady);
const direction = fc.constantFrom<Direction>('lower-is-better', 'higher-is-better');

describe('intervals on the scale of a positive quantity', () => {
  it('the interval of the ratio of means stays above 0 (relative difference > −100%)', () => {
    fc.assert(
      fc.property(anySample, anySample, fc.constantFrom(0.9, 0.95, 0.99), (baseline, candidate, level) => {
        const result = relativeDifference(baseline, candidate, level);
        expect(result.method).toBe('log-ratio');
        expect(result.ratioCi.low).toBeGreaterThan(0);
        // ratio − 1 rounds to −1 only when the ratio's bound is below the double's resolution at 1.
        expect(result.ci.low).toBeGreaterThanOrEqual(-1);
        if (result.ratioCi.low >= Number.EPSILON) expect(result.ci.low).toBeGreaterThan(-1);
        expect(result.ci.low).toBeLessThanOrEqual(result.relative * (1 + 1e-12) + 1e-12);
        expect(result.ci.high).toBeGreaterThanOrEqual(result.relative * (1 - 1e-12) - 1e-12);
      }),
      { numRuns: 300 },
    );
  });

  it('no improvement interval reaches the impossible side (lower is better: < 100%)', () => {
    fc.assert(
      fc.property(anySample, anySample, direction, (baseline, candidate, dir) => {
        const result = verdict({
          baseline: { label: 'b', values: baseline },
          candidate: { label: 'c', values: candidate },
          direction: dir,
          minN: 2,
        });
        if (result.ci === null) return;
        // Lower is better: the improvement is 1 − ratio < 1. Higher is better: ratio − 1 > −1.
        // (Equal to the limit only when the ratio's bound is below the double's resolution at 1.)
        const tiny = relativeDifference(baseline, candidate).ratioCi.low < Number.EPSILON;
        if (dir === 'lower-is-better') expect(result.ci.high).toBeLessThanOrEqual(1);
        else expect(result.ci.low).toBeGreaterThanOrEqual(-1);
        if (!tiny && dir === 'lower-is-better') expect(result.ci.high).toBeLessThan(1);
        if (!tiny && dir === 'higher-is-better') expect(result.ci.low).toBeGreaterThan(-1);
        expect(result.sentence).not.toMatch(/−∞|∞|NaN/);
      }),
      { numRuns: 300 },
    );
  });

  it('no mean interval bound is negative', () => {
    fc.assert(
      fc.property(anySample, fc.constantFrom(0.9, 0.95, 0.99), (values, level) => {
        const ci = confidenceIntervalMean(values, level);
        expect(ci.low).toBeGreaterThanOrEqual(0);
        expect(ci.high).toBeGreaterThanOrEqual(ci.low);
        expect(ci.truncatedAtZero).toBe(ci.low === 0);
        const summary = summarize(values);
        expect(summary.ci95?.low).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it('no sentence shows a shrink of more than 100% or a negative size of a positive quantity', () => {
    const quantity = fc.constantFrom<Quantity>('duration', 'rate', 'amount');
    fc.assert(
      fc.property(anySample, anySample, direction, quantity, (baseline, candidate, dir, q) => {
        const result = verdict({
          baseline: { label: 'b', values: baseline },
          candidate: { label: 'c', values: candidate },
          direction: dir,
          quantity: q,
          label: 'WAL',
          minN: 2,
        });
        const s = result.sentence;
        expect(s).not.toMatch(/−∞|∞|NaN/);
        // A duration is at most 100% faster, a rate at most 100% slower, an amount at most 100% lower.
        const shrink = q === 'duration' ? 'faster' : q === 'rate' ? 'slower' : 'lower';
        for (const m of s.matchAll(new RegExp(`(\\d+\\.\\d)% ${shrink}`, 'g')))
          expect(Number(m[1])).toBeLessThanOrEqual(100);
        // The interval of a shrink, printed beside it ("95% CI a%–b%"), never passes 100% either.
        const shown = /is ([\d.]+)% (faster|slower|lower|higher).*?95% CI,? (−?[\d.]+)%–(−?[\d.]+)%/.exec(s);
        if (shown && shown[2] === shrink) expect(Number(shown[4])).toBeLessThanOrEqual(100);
        // One interval per sentence: never the signed change beside its mirror image.
        expect(s.match(/95% CI/g)?.length ?? 0).toBeLessThanOrEqual(1);
        if (result.ci && dir === 'lower-is-better') expect(result.ci.high).toBeLessThanOrEqual(1);
        if (result.ci && dir === 'higher-is-better') expect(result.ci.low).toBeGreaterThanOrEqual(-1);
      }),
      { numRuns: 300 },
    );
  });

  it('the ratio of ratios of an interaction test stays above 0', () => {
    const moments = (xs: number[]) => ({ n: xs.length, mean: mean(xs), sd: sampleStdDev(xs), min: Math.min(...xs) });
    fc.assert(
      fc.property(anySample, anySample, anySample, anySample, (b1, c1, b2, c2) => {
        const r = interactionTest(
          { baseline: moments(b1), candidate: moments(c1) },
          { baseline: moments(b2), candidate: moments(c2) },
        );
        expect(r.method).toBe('log-ratio');
        expect(r.estimate).toBeGreaterThan(0);
        expect(r.ci.low).toBeGreaterThanOrEqual(0);
        expect(r.ci.low).toBeLessThanOrEqual(r.estimate * (1 + 1e-12));
        expect(r.ci.high).toBeGreaterThanOrEqual(r.estimate * (1 - 1e-12));
        expect(r.p).toBeGreaterThanOrEqual(0);
        expect(r.p).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });
});
