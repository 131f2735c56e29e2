import { describe, expect, it } from 'vitest';
import reference from './scale-reference-values.json' with { type: 'json' };
import { crossingScale, extrapolationFactor, heldOutErrors, logLogFit, pairAtScale, predictAt } from './scale.ts';

// Values from scripts/scale-reference.py (statsmodels, SciPy); every figure agrees to 4 digits.
const RELATIVE_TOLERANCE = 1e-4;

function expectClose(actual: number | null | undefined, expected: number, what: string): void {
  if (actual === null || actual === undefined) throw new Error(`${what}: got ${String(actual)}`);
  const tolerance = Math.max(Math.abs(expected) * RELATIVE_TOLERANCE, 1e-12);
  expect(Math.abs(actual - expected), `${what}: ${actual} vs reference ${expected}`).toBeLessThanOrEqual(tolerance);
}

describe.each(reference.cases)('$name', (c) => {
  const baseline = logLogFit(c.baseline)!;
  const candidate = logLogFit(c.candidate)!;

  it('fits each variant like statsmodels', () => {
    for (const [side, fit] of [
      ['baseline', baseline],
      ['candidate', candidate],
    ] as const) {
      const ref = c.fits[side];
      expectClose(fit.slope, ref.slope, `${side} slope`);
      expectClose(fit.intercept, ref.intercept, `${side} intercept`);
      expectClose(fit.residualSd, ref.residualSd, `${side} residual sd`);
      expect(fit.df).toBe(ref.df);
    }
  });

  it.each(c.predictions)('predicts the baseline at $x with its confidence and prediction intervals', (ref) => {
    const got = predictAt(baseline, ref.x);
    expectClose(got.estimate, ref.estimate, 'estimate');
    expectClose(got.ci.low, ref.ci.low, 'ci low');
    expectClose(got.ci.high, ref.ci.high, 'ci high');
    expectClose(got.pi.low, ref.pi.low, 'pi low');
    expectClose(got.pi.high, ref.pi.high, 'pi high');
    expect(got.pi.low).toBeLessThanOrEqual(got.ci.low);
    expect(got.ci.low).toBeGreaterThan(0);
  });

  it.each(c.pairs)('answers candidate ÷ baseline at $x', (ref) => {
    const got = pairAtScale(baseline, candidate, ref.x);
    expectClose(got.ratio, ref.ratio, 'ratio');
    expectClose(got.ci.low, ref.ci.low, 'ci low');
    expectClose(got.ci.high, ref.ci.high, 'ci high');
    expectClose(got.pi.low, ref.pi.low, 'pi low');
    expectClose(got.pi.high, ref.pi.high, 'pi high');
    expectClose(got.df, ref.df, 'df');
    expectClose(got.p, ref.p, 'p');
  });

  it('finds the crossing and its interval (or that it has none)', () => {
    const got = crossingScale(baseline, candidate)!;
    expectClose(got.x, c.crossing.x, 'crossing');
    expect(got.lowerAbove).toBe(c.crossing.lowerAbove);
    if (c.crossing.interval === null) expect(got.interval).toBeNull();
    else {
      expectClose(got.interval?.low, c.crossing.interval.low, 'crossing low');
      expectClose(got.interval?.high, c.crossing.interval.high, 'crossing high');
    }
  });

  it('predicts each measured scale from the others like a refit', () => {
    const got = heldOutErrors(c.baseline);
    expect(got.map((h) => h.x)).toEqual(c.heldOut.map((h) => h.x));
    got.forEach((h, i) => {
      expectClose(h.predicted, c.heldOut[i]!.predicted, `held-out ${h.x}`);
      expectClose(h.errorPct, c.heldOut[i]!.errorPct, `held-out error ${h.x}`);
    });
  });
});

describe('answers at a scale: edges', () => {
  const pts = [1, 2, 4].flatMap((x) => [0.9, 1, 1.1].map((k) => ({ x: x * 1000, y: x * k })));

  it('refuses to fit fewer than three points, one scale, or values that are not positive', () => {
    expect(logLogFit(pts.slice(0, 2))).toBeNull();
    expect(logLogFit([1, 2, 3].map((y) => ({ x: 10, y })))).toBeNull();
    expect(logLogFit([0, -1, 5].map((y, i) => ({ x: 10 * (i + 1), y })))).toBeNull();
  });

  it('says how far a scale lies outside the measured range', () => {
    const fit = logLogFit(pts)!;
    expect(predictAt(fit, 2000).extrapolation).toBe(1);
    expect(predictAt(fit, 40_000).extrapolation).toBe(10);
    expect(predictAt(fit, 250).extrapolation).toBe(4);
    expect(extrapolationFactor({ min: 10, max: 20 }, 15)).toBe(1);
  });

  it('throws a RangeError for a scale that is not a positive number', () => {
    const fit = logLogFit(pts)!;
    for (const bad of [0, -5, Number.NaN, Infinity]) expect(() => predictAt(fit, bad)).toThrow(RangeError);
    expect(() => predictAt(fit, 10, 1)).toThrow(RangeError);
  });

  it('has no crossing for parallel lines', () => {
    const fit = logLogFit(pts)!;
    const twice = logLogFit(pts.map((p) => ({ x: p.x, y: 2 * p.y })))!;
    expect(crossingScale(fit, twice)).toBeNull();
    expect(pairAtScale(fit, twice, 3000).ratio).toBeCloseTo(2, 10);
  });
});
