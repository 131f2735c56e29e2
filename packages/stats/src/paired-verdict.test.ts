import { describe, expect, it } from 'vitest';
import { pairedVerdict } from './paired-verdict.ts';

const base = [10, 12, 9, 11, 10.5, 12.5, 9.5, 11.2];
const times = (xs: readonly number[], f: number, wobble = 0.02) =>
  xs.map((x, i) => x * f * (1 + (i % 2 === 0 ? wobble : -wobble)));

describe('pairedVerdict', () => {
  it('calls a large difference in the words of the metric, with the interval that decided it', () => {
    const v = pairedVerdict({
      baseline: { label: 'vacuum', values: base },
      candidate: { label: 'full-rewrite', values: times(base, 0.6) },
      direction: 'lower-is-better',
    });
    expect(v.decision).toBe('differs');
    expect(v.kind).toBe('faster');
    expect(v.beyondMargin).toBe(true);
    expect(v.relative).toBeCloseTo(0.4, 2);
    expect(v.ci.low).toBeGreaterThan(0.1);
    expect(v.sentence).toMatch(
      /^full-rewrite is 40\.\d% faster than vacuum \(95% CI .*always valid, p [<=] .*8 paired blocks\)$/,
    );
  });

  it('block-level load cancels: the same 10 % change under 3x load swings is decided, as Welch could not', () => {
    const load = [1, 3, 1.5, 2.8, 1, 2.2, 1.2, 3];
    const b = base.map((x, i) => x * load[i]!);
    const v = pairedVerdict({
      baseline: { label: 'a', values: b },
      candidate: { label: 'b', values: times(b, 1.3, 0.01) },
      direction: 'lower-is-better',
    });
    expect(v.decision).toBe('differs');
    expect(v.kind).toBe('slower');
    expect(v.sentence).toMatch(/^b is 30\.\d% slower than a/);
  });

  it('equivalent within the margin, and says so', () => {
    const v = pairedVerdict({
      baseline: { label: 'a', values: [...base, ...base, ...base] },
      candidate: { label: 'b', values: times([...base, ...base, ...base], 1.01, 0.01) },
      direction: 'lower-is-better',
    });
    expect(v.decision === 'equivalent' || v.decision === 'differs').toBe(true);
    expect(v.conclusive).toBe(true);
    const wide = pairedVerdict({
      baseline: { label: 'a', values: [...base, ...base, ...base] },
      candidate: { label: 'b', values: times([...base, ...base, ...base], 1.0, 0.03) },
      direction: 'lower-is-better',
      margin: 0.1,
    });
    expect(wide.decision).toBe('equivalent');
    expect(wide.sentence).toMatch(/^b and a are equivalent within ±10\.0%: /);
  });

  it('undecided names the smallest difference it could have seen; noise beyond the margin is unstable', () => {
    const few = pairedVerdict({
      baseline: { label: 'a', values: [10, 11, 12] },
      candidate: { label: 'b', values: [10.5, 11.2, 12.9] },
      direction: 'lower-is-better',
    });
    expect(few.decision).toBe('undecided');
    expect(few.conclusive).toBe(false);
    expect(few.sentence).toMatch(
      /^Undecided whether b differs from a after only 3 paired blocks: a decision waits for 6/,
    );
    const undecided = pairedVerdict({
      baseline: { label: 'a', values: [10, 11, 12, 10, 11, 12] },
      candidate: { label: 'b', values: [10.5, 11.2, 12.9, 10.1, 11.9, 12.2] },
      direction: 'lower-is-better',
    });
    expect(undecided.decision).toBe('undecided');
    expect(undecided.sentence).toMatch(
      /^Undecided whether b differs from a: .*6 paired blocks could only have detected differences above \d/,
    );
    const noisy = pairedVerdict({
      baseline: { label: 'a', values: base },
      candidate: { label: 'b', values: base.map((x, i) => x * (i % 2 === 0 ? 1.5 : 0.7)) },
      direction: 'lower-is-better',
    });
    expect(noisy.decision).toBe('unstable');
    expect(noisy.sentence).toMatch(
      /^Unstable: b against a varies by \d+\.\d% from block to block, more than the ±10\.0% margin/,
    );
  });

  it('the family widens every interval: a difference decided alone may not be among 20 decisions', () => {
    const input = {
      baseline: { label: 'a', values: base.slice(0, 6) },
      candidate: { label: 'b', values: times(base.slice(0, 6), 0.85, 0.03) },
      direction: 'lower-is-better' as const,
    };
    const alone = pairedVerdict(input);
    const many = pairedVerdict({ ...input, family: 20 });
    expect(many.ci.high - many.ci.low).toBeGreaterThan(alone.ci.high - alone.ci.low);
    expect(many.pAdjusted).toBeCloseTo(Math.min(1, alone.p * 20), 12);
    expect(many.sentence).toMatch(/over 20 decisions \(Bonferroni\)/);
    // Each interval is printed at its own level, 1 − 0.05/20, as verdict() prints it; 95 % is the family's.
    expect(alone.sentence).toContain('(95% CI ');
    expect(many.sentence).toContain('99.8% CI ');
    expect(many.level).toBe(0.95);
  });

  it('rates: higher is better, and the improvement is the ratio − 1', () => {
    const v = pairedVerdict({
      baseline: { label: 'plain', values: base },
      candidate: { label: 'compressed', values: times(base, 0.5) },
      direction: 'higher-is-better',
    });
    expect(v.kind).toBe('slower');
    expect(v.relative).toBeCloseTo(-0.5, 2);
  });

  it('decides nothing on fewer than 6 blocks, however alike they are', () => {
    const input = {
      baseline: { label: 'a', values: [1, 2, 3] },
      candidate: { label: 'b', values: [0.5, 1, 1.5] },
      direction: 'lower-is-better' as const,
    };
    expect(pairedVerdict(input).decision).toBe('undecided');
    expect(pairedVerdict(input).conclusive).toBe(false);
    expect(pairedVerdict({ ...input, minBlocks: 3 }).decision).toBe('differs');
  });

  it('refuses bad input with a sentence', () => {
    const ok = { baseline: { label: 'a', values: [1, 2, 3] }, candidate: { label: 'b', values: [1, 2, 3] } };
    expect(() => pairedVerdict({ ...ok, direction: 'lower-is-better', family: 0 })).toThrow(/family/);
    expect(() => pairedVerdict({ ...ok, direction: 'lower-is-better', margin: 1 })).toThrow(/margin/);
    expect(() =>
      pairedVerdict({ ...ok, candidate: { label: 'b', values: [1, 2] }, direction: 'lower-is-better' }),
    ).toThrow(/equal lengths/);
  });
});
