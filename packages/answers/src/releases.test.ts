import { describe, expect, it } from 'vitest';
import { answerReleaseLine } from './releases.ts';
import type { SampleRow } from './groups.ts';
import { testRow } from './test-rows.ts';

/** `runs` runs of variants a and b (3 repetitions each, b 20 % slower) on PostgreSQL 17.`minor`. */
function runsOn(minor: number, runs: number): SampleRow[] {
  return Array.from({ length: runs }, (_, i) => {
    const run_id = `00000000-0000-4000-8000-${String(minor).padStart(4, '0')}${String(i).padStart(8, '0')}`;
    const received_at = new Date(Date.UTC(2026, 0, 1, 0, minor * 1000 + i));
    return ['a', 'b'].flatMap((variant) =>
      [1, 2, 3].map((repetition) =>
        testRow({
          variant,
          repetition,
          value: (variant === 'a' ? 1 : 1.2) * (1 + 0.01 * ((i + repetition) % 5)),
          run_id,
          received_at,
          db_version: `17.${minor}`,
          minor,
          server_release: `17.${minor}`,
        }),
      ),
    );
  }).flat();
}

describe('a release line over many runs', () => {
  it('counts every run of a release, not the runs a group links (at most 100)', () => {
    const line = answerReleaseLine({
      rows: [...runsOn(2, 130), ...runsOn(3, 4)],
      filters: { metric: 'duration', source: 'measured', groupBy: 'class' },
      docs: new Map(),
    })!;
    expect(line.releases).toEqual(['17.2', '17.3']);
    const [series] = line.series;
    expect(series!.releases.map((p) => [p.release, p.runs])).toEqual([
      ['17.2', 130],
      ['17.3', 4],
    ]);
    // Drift looks at every run of 17.2 too.
    expect(series!.releases[0]!.drift!.runs).toBe(130);
  });
});
