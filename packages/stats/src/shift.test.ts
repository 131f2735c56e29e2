import { describe, expect, it } from 'vitest';
import reference from './change-point-reference-values.json' with { type: 'json' };
import { welchShift } from './shift.ts';

// Values from scripts/change-point-reference.py (SciPy's ttest_ind_from_stats, equal_var=False, and t.ppf).
const close = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(Math.max(1e-6 * Math.abs(expected), 1e-12));

describe('welchShift against SciPy', () => {
  it.each(reference.shifts)('$name', (c) => {
    const s = welchShift(c.before, c.after);
    close(s.t, c.t);
    close(s.df, c.df);
    close(s.p, c.p);
    close(s.low, c.low);
    close(s.high, c.high);
  });
  it('refuses a side with one value, by name', () => {
    expect(() => welchShift({ n: 1, mean: 0, sd: 0 }, { n: 3, mean: 0, sd: 1 })).toThrow(/before/);
  });
  it('answers p = 0 for two spreadless sides that differ, p = 1 when equal', () => {
    expect(welchShift({ n: 3, mean: 0, sd: 0 }, { n: 3, mean: 1, sd: 0 }).p).toBe(0);
    expect(welchShift({ n: 3, mean: 1, sd: 0 }, { n: 3, mean: 1, sd: 0 }).p).toBe(1);
  });
});
