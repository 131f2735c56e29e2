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
