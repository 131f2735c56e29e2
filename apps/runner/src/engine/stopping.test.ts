import { describe, expect, it } from 'vitest';
import { assessStability, comparedVariants, decideStop, formatCvPercent } from './stopping.ts';

const doc = {
  variants: [{ key: 'a' }, { key: 'b' }, { key: 'c' }] as never,
  comparisons: [{ baseline: 'a', candidate: 'b' }],
  metrics: [
    { key: 'duration', source: 'timed', unit: 's', better: 'lower' },
    { key: 'size', source: 'relation_size', unit: 'bytes' },
  ] as never,
};
const samples = (values: Record<string, number[]>) =>
  Object.entries(values).flatMap(([variant, xs]) => xs.map((value) => ({ variant, metric: 'duration', value })));

describe('until-stable stopping rule', () => {
  it('judges only variants in a comparison pair, or all when there are none', () => {
    expect(comparedVariants(doc)).toEqual(['a', 'b']);
    expect(comparedVariants({ ...doc, comparisons: [] })).toEqual(['a', 'b', 'c']);
  });

  it('ignores uncompared variants and non-timed metrics', () => {
    const s = assessStability(
      doc,
      [...samples({ a: [1, 1, 1], b: [2, 2, 2], c: [1, 5, 9] }), { variant: 'a', metric: 'size', value: 99 }],
      0.03,
    );
    expect(s.stable).toBe(true);
    expect(s.cvs.map((c) => c.variant)).toEqual(['a', 'b']);
  });

  it('stops when every compared CV is at or below the threshold', () => {
    const d = decideStop(doc, samples({ a: [1, 1.01, 0.99], b: [2, 2, 2] }), 3, {
      maxRepetitions: 10,
      cvThreshold: 0.03,
    });
    expect(d).toMatchObject({ stopped: 'stable', repetitions: 3 });
    expect(d?.reason).toBe("stable: all compared variants' CV ≤ 3% after 3 repetitions (highest: a = 1.0%)");
  });

  it('asks for another round while a compared CV is above the threshold', () => {
    expect(
      decideStop(doc, samples({ a: [1, 1.2, 0.8], b: [2, 2, 2] }), 3, { maxRepetitions: 10, cvThreshold: 0.03 }),
    ).toBeNull();
  });

  it('stops at the maximum and names the variants still above the threshold, worst first', () => {
    const d = decideStop(doc, samples({ a: [1, 1.05, 0.95], b: [2, 2.4, 1.6] }), 10, {
      maxRepetitions: 10,
      cvThreshold: 0.03,
    });
    expect(d?.stopped).toBe('max-repetitions');
    expect(d?.reason).toBe('max-repetitions reached (10): CV of b = 20.0%, a = 5.0% > 3%');
  });

  it('stops before a round that would pass the time budget, judged by the last round', () => {
    const unstable = samples({ a: [1, 1.2, 0.8], b: [2, 2, 2] });
    const rule = { maxRepetitions: 10, cvThreshold: 0.03, budgetSeconds: 60 };
    expect(decideStop(doc, unstable, 3, rule, { seconds: 45, roundSeconds: 14 })).toBeNull();
    const d = decideStop(doc, unstable, 3, rule, { seconds: 45, roundSeconds: 16 });
    expect(d?.stopped).toBe('time-budget');
    expect(d?.reason).toBe(
      'time budget reached (60 s): 45 s measured, and another round (~16 s) would pass it; CV of a = 20.0% > 3%',
    );
    // Stable first: a stable run stops as stable whatever its time; without a budget, time never stops it.
    expect(
      decideStop(doc, samples({ a: [1, 1, 1], b: [2, 2, 2] }), 3, rule, { seconds: 99, roundSeconds: 9 })?.stopped,
    ).toBe('stable');
    expect(
      decideStop(doc, unstable, 3, { maxRepetitions: 10, cvThreshold: 0.03 }, { seconds: 1e6, roundSeconds: 1e6 }),
    ).toBeNull();
  });

  it('treats all-zero values as stable and a zero mean otherwise as unstable', () => {
    expect(assessStability(doc, samples({ a: [0, 0, 0], b: [0, 0, 0] }), 0.03).stable).toBe(true);
    expect(assessStability(doc, samples({ a: [-1, 0, 1], b: [1, 1, 1] }), 0.03).unstable[0]).toMatchObject({
      variant: 'a',
      cv: Infinity,
    });
  });

  it('formats thresholds as people write them', () => {
    expect(formatCvPercent(0.03)).toBe('3%');
    expect(formatCvPercent(0.005)).toBe('0.5%');
    expect(formatCvPercent(0.000001)).toBe('0.0001%');
    expect(formatCvPercent(10)).toBe('1000%');
  });
});
