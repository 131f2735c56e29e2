import { describe, expect, it } from 'vitest';
import reference from './sequential-reference-values.json' with { type: 'json' };
import {
  confidenceSequence,
  decideInterval,
  logRatios,
  pairedTTest,
  SEQUENTIAL_PRIOR_SCALES,
  sequentialMultiplier,
  tBayesFactor,
  tEValue,
} from './sequential.ts';
import { seededRandom } from './random.ts';

// Values from scripts/sequential-reference.py (SciPy); every figure must agree to 4 significant digits.
const RELATIVE_TOLERANCE = 1e-4;
function expectClose(actual: number, expected: number, what: string): void {
  const tolerance = Math.max(Math.abs(expected) * RELATIVE_TOLERANCE, 1e-12);
  expect(Math.abs(actual - expected), `${what}: ${actual} vs reference ${expected}`).toBeLessThanOrEqual(tolerance);
}

describe('against SciPy', () => {
  it('uses the prior scales the reference was made with', () => {
    expect([...SEQUENTIAL_PRIOR_SCALES]).toEqual(reference.scales);
  });

  describe.each(reference.cases)('$name', (c) => {
    const d = logRatios(c.baseline, c.candidate);
    it('pairs the blocks like ttest_rel on the logs', () => {
      const t = pairedTTest(d);
      expectClose(t.mean, c.mean, 'mean log ratio');
      expectClose(t.sd, c.sd, 'sd');
      expectClose(t.t, c.pairedT.t, 't');
      expect(t.df).toBe(c.pairedT.df);
      expectClose(t.p, c.pairedT.p, 'p');
    });
    it('gives the Bayes factors of the integrated noncentral t', () => {
      const t = pairedTTest(d).t;
      for (const [g, expected] of Object.entries(c.bayesFactors))
        expectClose(tBayesFactor(t, d.length, Number(g)), expected, `BF at g = ${g}`);
      expectClose(tEValue(t, d.length), c.eValue, 'mixture e-value');
    });
    it.each(c.sequences)('bounds the mean at alpha $alpha like brentq', (s) => {
      const cs = confidenceSequence(d, s.alpha);
      if (s.multiplier === null) {
        expect(cs.multiplier).toBe(Number.POSITIVE_INFINITY);
        return;
      }
      expectClose(cs.multiplier, s.multiplier, 'multiplier');
      expectClose(cs.low, s.low, 'low');
      expectClose(cs.high, s.high, 'high');
      // One model: 0 is outside the interval exactly when the always-valid p is at most alpha.
      expect(cs.low > 0 || cs.high < 0).toBe(cs.p <= s.alpha);
    });
  });
});

describe('confidenceSequence', () => {
  it('is unbounded with too few blocks to reach 1/alpha', () => {
    expect(sequentialMultiplier(2, 0.05)).toBe(Number.POSITIVE_INFINITY);
    const cs = confidenceSequence([0.1, 0.2], 0.05);
    expect(cs.low).toBe(Number.NEGATIVE_INFINITY);
    expect(cs.high).toBe(Number.POSITIVE_INFINITY);
  });
  it('narrows as blocks accumulate and is wider than the fixed-n interval', () => {
    const widths = [5, 10, 20, 40].map((n) => sequentialMultiplier(n, 0.05) / Math.sqrt(n));
    for (let i = 1; i < widths.length; i++) expect(widths[i]!).toBeLessThan(widths[i - 1]!);
    // t(0.975, 19) = 2.093: the price of looking after every block.
    expect(sequentialMultiplier(20, 0.05)).toBeGreaterThan(2.093);
  });
  it('refuses bad input with a sentence', () => {
    expect(() => confidenceSequence([0.1], 0.05)).toThrow(/at least 2 blocks/);
    expect(() => confidenceSequence([0.1, Number.NaN], 0.05)).toThrow(/finite/);
    expect(() => confidenceSequence([0.1, 0.2], 1.5)).toThrow(RangeError);
    expect(() => logRatios([1, 2], [1])).toThrow(/equal lengths/);
    expect(() => logRatios([1, 0], [1, 1])).toThrow(/positive/);
    expect(() => tBayesFactor(1, 5, 0)).toThrow(/g must be/);
  });
  it('a constant log ratio is decided as soon as an infinite t can reach 1/alpha', () => {
    const cs = confidenceSequence([0.2, 0.2, 0.2, 0.2, 0.2], 0.05);
    expect(cs.low).toBeCloseTo(0.2, 12);
    expect(cs.high).toBeCloseTo(0.2, 12);
    expect(cs.p).toBeLessThan(0.05);
  });
});

describe('decideInterval', () => {
  const m = 0.1;
  it('equivalent within ±10 %, differs when no change is excluded, beyond the margin when all of it is', () => {
    expect(decideInterval({ low: Math.log(0.95), high: Math.log(1.05) }, m)).toEqual({
      decision: 'equivalent',
      beyondMargin: false,
    });
    expect(decideInterval({ low: Math.log(1.02), high: Math.log(1.3) }, m)).toEqual({
      decision: 'differs',
      beyondMargin: false,
    });
    expect(decideInterval({ low: Math.log(1.15), high: Math.log(1.3) }, m)).toEqual({
      decision: 'differs',
      beyondMargin: true,
    });
    expect(decideInterval({ low: Math.log(0.5), high: Math.log(0.85) }, m).beyondMargin).toBe(true);
    expect(decideInterval({ low: Math.log(0.9), high: Math.log(1.2) }, m).decision).toBe('undecided');
    expect(() => decideInterval({ low: 0, high: 0 }, 0)).toThrow(/margin/);
  });
});

/**
 * The guarantee, shown by simulation: normal log ratios (sd 0.15), a look after every block from
 * the 3rd to the 60th, stopping at the first look that excludes the true mean. The confidence
 * sequence misses at most alpha of the time; the fixed-n t interval looked at the same way misses
 * far more often (why the runner does not use it to stop).
 */
describe('repeated looks do not inflate the error rate', () => {
  const trials = 400;
  const looks = { first: 3, last: 60 };
  function simulate(trueMean: number, miss: (d: number[]) => boolean, seed: number): number {
    const random = seededRandom(seed);
    const normal = () => {
      const u = Math.max(random(), 1e-12);
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    };
    let misses = 0;
    for (let i = 0; i < trials; i++) {
      const d: number[] = [];
      for (let n = 1; n <= looks.last; n++) {
        d.push(trueMean + 0.15 * normal());
        if (n >= looks.first && miss(d)) {
          misses++;
          break;
        }
      }
    }
    return misses / trials;
  }
  it('A/A: the confidence sequence ever excludes no change in at most 5 % of runs', () => {
    const rate = simulate(0, (d) => confidenceSequence(d, 0.05).p <= 0.05, 40);
    expect(rate).toBeLessThanOrEqual(0.05);
  });
  it('a true 20 % effect: the sequence ever excludes the truth in at most 5 % of runs', () => {
    const truth = Math.log(0.8);
    const rate = simulate(
      truth,
      (d) => {
        const cs = confidenceSequence(d, 0.05);
        return cs.low > truth || cs.high < truth;
      },
      41,
    );
    expect(rate).toBeLessThanOrEqual(0.05);
  });
  it('the fixed-n t-test looked at after every block would call an A/A a difference far more often', () => {
    const rate = simulate(0, (d) => pairedTTest(d).p <= 0.05, 40);
    expect(rate).toBeGreaterThan(0.2);
  });
});
