import { describe, expect, it } from 'vitest';
import { groupSamples, type SampleRow } from './groups.ts';

function rows(variant: string, values: readonly number[]): SampleRow[] {
  return values.map((value, i) => ({
    variant,
    point_param: null,
    point_value: null,
    repetition: i + 1,
    value,
    unit: 's',
    run_id: `00000000-0000-4000-8000-00000000000${variant === 'a' ? 1 : 2}`,
    scenario_key: 'noisy',
    version_hash: 'a'.repeat(64),
    comparisons: null,
    fingerprint: 'b'.repeat(64),
    hardware_class: '2 cores',
    cpu_model: 'cpu',
    storage_kind: 'ssd',
    physical_cores: 2,
    memory_bytes: 2 * 1024 ** 3,
    source: 'measured',
    received_at: new Date('2026-01-01T00:00:00Z'),
    engine: 'postgresql',
    db_version: '17.2',
    major: 17,
    minor: 2,
    params: {},
    run_warnings: [],
    settings: {},
  }));
}

describe('mean intervals of durations', () => {
  it('never go below 0; a group says when one was cut there', () => {
    // The noisy 2-core VM: the t interval of a's mean is −0.69 … 5.73 s.
    const result = groupSamples([...rows('a', [0.9, 4.1, 0.2, 6.3, 1.1]), ...rows('b', [2.0, 2.1, 1.9, 2.05, 1.95])], {
      metric: 'duration',
      source: 'measured',
      groupBy: 'hardware',
    });
    const group = result.groups[0]!;
    const a = group.variants.find((v) => v.variant === 'a')!;
    const b = group.variants.find((v) => v.variant === 'b')!;
    expect(a.ci95).toEqual({ low: 0, high: expect.closeTo(5.7344, 3) });
    expect(b.ci95!.low).toBeGreaterThan(1.8);
    expect(group.warnings.filter((w) => /cut at 0/.test(w))).toEqual([
      'the 95% CI of the mean of a is cut at 0: the runs are too few or too spread out to bound the mean from below',
    ]);
  });
});

describe('the major runs are grouped by', () => {
  const on = (engine: string, version: string, major: number, minor: number, runId: string) =>
    rows('a', [1, 1.1, 0.9]).map((r) => ({ ...r, engine, db_version: version, major, minor, run_id: runId }));

  it('keeps MariaDB 10.6 and 10.11 apart (both stored as major 10), and PostgreSQL 17.2 with 17.4', () => {
    const result = groupSamples(
      [
        ...on('mariadb', '10.6.18-MariaDB', 10, 6, '00000000-0000-4000-8000-000000000011'),
        ...on('mariadb', '10.11.9-MariaDB', 10, 11, '00000000-0000-4000-8000-000000000012'),
        ...on('postgresql', '17.2', 17, 2, '00000000-0000-4000-8000-000000000013'),
        ...on('postgresql', '17.4', 17, 4, '00000000-0000-4000-8000-000000000014'),
      ],
      { metric: 'duration', source: 'measured', groupBy: 'class' },
    );
    const versions = result.groups.map((g) => g.databaseVersions.map((d) => d.version).sort());
    expect(versions).toHaveLength(3);
    expect(versions).toContainEqual(['10.6.18-MariaDB']);
    expect(versions).toContainEqual(['10.11.9-MariaDB']);
    expect(versions).toContainEqual(['17.2', '17.4']);
  });
});
