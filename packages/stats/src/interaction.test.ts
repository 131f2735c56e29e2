import { describe, expect, it } from 'vitest';
import { adjustPValues, interactionTest, type Moments } from './index.ts';

const m = (n: number, mean: number, sd: number, min = mean - sd): Moments => ({ n, mean, sd, min });

describe('interactionTest', () => {
  it('finds no interaction when the pair’s ratio is the same under both conditions', () => {
    const a = { baseline: m(5, 100, 5), candidate: m(5, 60, 3) };
    const b = { baseline: m(5, 200, 10), candidate: m(5, 120, 6) };
    const r = interactionTest(a, b);
    expect(r.method).toBe('log-ratio');
    expect(r.estimate).toBeCloseTo(1, 12);
    expect(r.p).toBeCloseTo(1, 12);
    expect(r.ci.low).toBeLessThan(1);
    expect(r.ci.high).toBeGreaterThan(1);
  });

  it('is exact without spread, and switches to differences for values ≤ 0', () => {
    const flat = (x: number) => m(3, x, 0, x);
    expect(
      interactionTest({ baseline: flat(2), candidate: flat(1) }, { baseline: flat(4), candidate: flat(2) }),
    ).toMatchObject({ estimate: 1, p: 1 });
    expect(
      interactionTest({ baseline: flat(2), candidate: flat(1) }, { baseline: flat(4), candidate: flat(1) }).p,
    ).toBe(0);
    const r = interactionTest(
      { baseline: m(4, 0, 1, -1), candidate: m(4, 3, 1) },
      { baseline: m(4, 1, 1), candidate: m(4, 2, 1) },
    );
    expect(r.method).toBe('difference');
    expect(r.estimate).toBeCloseTo(2, 12);
  });

  it('rejects cells it cannot test', () => {
    const ok = m(3, 1, 0.1);
    expect(() => interactionTest({ baseline: m(1, 1, 0), candidate: ok }, { baseline: ok, candidate: ok })).toThrow(
      /a\.baseline\.n/,
    );
    expect(() =>
      interactionTest({ baseline: ok, candidate: ok }, { baseline: ok, candidate: m(3, Number.NaN, 1) }),
    ).toThrow(/b\.candidate\.mean/);
  });
});

describe('adjustPValues', () => {
  it('never lowers a p-value, keeps the order of the raw ones, and rejects what is not a p', () => {
    const ps = [0.04, 0.001, 0.3, 0.02];
    for (const method of ['holm', 'benjamini-hochberg'] as const) {
      const adjusted = adjustPValues(ps, method);
      adjusted.forEach((p, i) => expect(p).toBeGreaterThanOrEqual(ps[i]!));
      expect(adjusted[1]).toBeLessThanOrEqual(adjusted[3]!);
    }
    expect(adjustPValues([])).toEqual([]);
    expect(() => adjustPValues([0.1, 1.2])).toThrow(/ps\[1\]/);
  });
});
