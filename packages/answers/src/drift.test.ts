/**
 * Changes over time within one release: a planted step in the middle of a dated series of runs is
 * found at the run where it starts, a flat series and a series with one odd run give none, and
 * fewer than six runs are too few to say.
 */
import { describe, expect, it } from 'vitest';
import { releaseDrift, DRIFT_MIN_SEGMENT } from './drift.ts';
import type { SampleRow } from './groups.ts';
import { testRow } from './test-rows.ts';

/** Runs of three paired blocks each, `ratios[i]` the true ratio of run i, received a day apart. */
function runs(ratios: readonly number[]): SampleRow[] {
  return ratios.flatMap((ratio, i) =>
    [1, 2, 3].flatMap((block) =>
      (['a', 'b'] as const).map((variant) =>
        testRow({
          variant,
          repetition: block,
          position: variant === 'a' ? 1 : 2,
          // A wobble per block that both variants share, and a small one of the candidate's own.
          value:
            (1 + 0.3 * ((block * 7 + i) % 3)) * (variant === 'a' ? 1 : ratio * (1 + 0.01 * (((block + i) % 3) - 1))),
          run_id: `run-${String(i).padStart(2, '0')}`,
          received_at: new Date(Date.UTC(2026, 0, 1 + i)),
        }),
      ),
    ),
  );
}

describe('changes over time on one release', () => {
  it('finds a planted 15 % step at the run where it starts', () => {
    const d = releaseDrift(runs([...Array<number>(8).fill(1.2), ...Array<number>(8).fill(1.38)]), 'a', 'b')!;
    expect(d.runs).toBe(16);
    expect(d.changes).toHaveLength(1);
    const [c] = d.changes;
    expect(c!.runsBefore).toBe(8);
    expect(c!.run).toBe('run-08');
    expect(c!.at).toBe('2026-01-09T00:00:00.000Z');
    expect(c!.change).toBeCloseTo(0.15, 2);
    expect(c!.p).toBeLessThan(0.001);
    expect(d.sentence).toMatch(
      /^b \/ a changed over time on this release: from ×1\.20 to ×1\.38 \(\+15\.0%, p < 0\.001\) from the run received 2026-01-09/,
    );
  });

  it('finds none in a flat series, nor at one odd run', () => {
    expect(releaseDrift(runs(Array<number>(16).fill(1.2)), 'a', 'b')!.changes).toEqual([]);
    // One odd run among steady ones (a 1 % wobble): a segment of one run, not a change.
    const odd = Array.from({ length: 16 }, (_, i) => (i === 8 ? 1.6 : 1.2 * (1 + 0.01 * (((i * 5) % 3) - 1))));
    expect(releaseDrift(runs(odd), 'a', 'b')!.changes).toEqual([]);
  });

  it('says nothing with fewer than two segments of runs', () => {
    expect(releaseDrift(runs(Array<number>(2 * DRIFT_MIN_SEGMENT - 1).fill(1.2)), 'a', 'b')).toBeNull();
  });
});
