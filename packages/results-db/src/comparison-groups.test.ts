import { describe, expect, it } from 'vitest';
import { ComparisonQuery } from '@tunelab/contracts';
import { groupSamples } from '@tunelab/answers';
import type { SampleRow } from '@tunelab/answers';

const RUN_A = '00000000-0000-4000-8000-00000000000a';
const RUN_B = '00000000-0000-4000-8000-00000000000b';

function row(p: Partial<SampleRow> & Pick<SampleRow, 'variant' | 'repetition' | 'value'>): SampleRow {
  return {
    unit: 's',
    run_id: RUN_A,
    scenario_key: 'demo',
    version_hash: 'a'.repeat(64),
    comparisons: null,
    fingerprint: 'f'.repeat(64),
    hardware_class: '2 cores / 24 GB / SSD',
    cpu_model: 'EPYC',
    storage_kind: 'ssd',
    physical_cores: 2,
    memory_bytes: 24 * 1024 ** 3,
    source: 'measured',
    received_at: new Date('2026-11-22T07:00:00Z'),
    engine: 'postgresql',
    db_version: '15.4',
    major: 15,
    minor: 4,
    point_param: null,
    point_value: null,
    params: {},
    run_warnings: [],
    settings: {},
    ...p,
  };
}

describe('groupSamples (pure)', () => {
  const q = { ...ComparisonQuery.parse({}), metric: 'duration' };
  it('splits groups by sweep point and source, pools runs of one machine, and compares declared pairs', () => {
    const rows = [
      ...[10, 11, 10.5].map((value, i) =>
        row({ variant: 'a', repetition: i + 1, value, point_param: 'vus', point_value: 1 }),
      ),
      ...[5, 5.2, 5.1].map((value, i) =>
        row({ variant: 'b', repetition: i + 1, value, point_param: 'vus', point_value: 1 }),
      ),
      ...[20, 21].map((value, i) =>
        row({
          variant: 'a',
          repetition: i + 1,
          value,
          run_id: RUN_B,
          point_param: 'vus',
          point_value: 8,
          comparisons: [{ baseline: 'b', candidate: 'a' }],
        }),
      ),
      ...[20, 22].map((value, i) =>
        row({
          variant: 'b',
          repetition: i + 1,
          value,
          run_id: RUN_B,
          point_param: 'vus',
          point_value: 8,
          comparisons: [{ baseline: 'b', candidate: 'a' }],
        }),
      ),
      row({ variant: 'a', repetition: 1, value: 9, source: 'published' }),
    ];
    const res = groupSamples(rows, q);
    expect(res.groups.map((g) => [g.source, g.point?.value ?? null])).toEqual([
      ['measured', 1],
      ['measured', 8],
      ['published', null],
    ]);
    const [at1, at8, published] = res.groups;
    expect(at1!.variants.map((v) => [v.variant, v.n])).toEqual([
      ['a', 3],
      ['b', 3],
    ]);
    expect(at1!.pairsFrom).toBe('all-pairs');
    expect(at1!.comparisons[0]!.verdict.kind).toBe('faster');
    expect(at8!.pairsFrom).toBe('declared');
    expect(at8!.comparisons.map((c) => `${c.baseline}>${c.candidate}`)).toEqual(['b>a']);
    expect(published!.warnings.join(' ')).toMatch(/published figures/);
  });

  it('answers no groups for no samples', () => {
    expect(groupSamples([], q).groups).toEqual([]);
  });
});
