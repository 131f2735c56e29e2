import { describe, expect, it } from 'vitest';
import { relativeDifference, welchTTest } from '@tunelab/stats';
import { groupSamples, type SampleRow } from './groups.ts';
import { testRow } from './test-rows.ts';

function rows(variant: string, values: readonly number[]): SampleRow[] {
  return values.map((value, i) =>
    testRow({
      variant,
      repetition: i + 1,
      value,
      run_id: `00000000-0000-4000-8000-00000000000${variant === 'a' ? 1 : 2}`,
      scenario_key: 'noisy',
    }),
  );
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

describe('multiplicity within one answer', () => {
  const at = (point: number, xs: SampleRow[], extra: Partial<SampleRow> = {}) =>
    xs.map((r) => ({ ...r, point_param: 'vus', point_value: point, ...extra }));
  const q = { metric: 'duration', source: 'measured', groupBy: 'class' } as const;
  // One pair at three sweep points: significant on its own at 1, not after Holm over the three.
  const data = {
    1: { a: [10, 10.4, 9.8, 10.1], b: [9.5, 9.9, 9.4, 9.7] },
    2: { a: [10, 10.5, 9.6, 10.2], b: [10.1, 9.9, 10.3, 9.8] },
    4: { a: [10, 10.2, 9.9, 10.3], b: [10.2, 10.0, 9.7, 10.4] },
  };
  const all = Object.entries(data).flatMap(([point, v]) => [
    ...at(Number(point), rows('a', v.a)),
    ...at(Number(point), rows('b', v.b)),
  ]);

  it('decides every pair × point of one class and version at 1 − 0.05/family (Bonferroni), the family of the data', () => {
    const groups = groupSamples(all, q).groups;
    expect(groups).toHaveLength(3);
    for (const g of groups) {
      const i = [1, 2, 4].indexOf(g.point!.value);
      const v = Object.values(data)[i]!;
      const c = g.comparisons[0]!;
      // Welch on the raw values stays a description; the decision is the interval's.
      expect(c.welch!.p).toBeCloseTo(welchTTest(v.a, v.b).p, 12);
      const one = relativeDifference(v.a, v.b, 1 - 0.05 / 3);
      expect(c.adjusted).toEqual({ method: 'bonferroni', p: expect.closeTo(Math.min(1, one.p * 3), 12), family: 3 });
      expect(c.verdict.significant).toBe(one.ci.low > 0 || one.ci.high < 0);
    }
    const one = groups.find((g) => g.point!.value === 1)!.comparisons[0]!;
    // Significant alone (its 95% interval excludes no change), not over the three points.
    const alone = relativeDifference(data[1].a, data[1].b, 0.95);
    expect(alone.ci.high).toBeLessThan(0);
    expect(one.verdict.kind).toBe('no-significant-difference');
    expect(one.verdict.sentence).toMatch(/98\.3% CI .*Welch p = 0\.0\d+, Bonferroni-adjusted p = 0\.\d+ \(3 tests\)/);
  });

  it('never puts two server majors or classes in one family', () => {
    const split = [
      ...at(1, rows('a', data[1].a)),
      ...at(1, rows('b', data[1].b)),
      ...at(2, rows('a', data[2].a), { major: 16 }),
      ...at(2, rows('b', data[2].b), { major: 16 }),
    ];
    for (const g of groupSamples(split, q).groups) expect(g.comparisons[0]!.adjusted!.family).toBe(1);
  });

  it('leaves an article’s figures as the article read them (not adjusted)', () => {
    const published = all.map((r) => ({ ...r, source: 'published' }));
    for (const g of groupSamples(published, { ...q, source: 'published' }).groups)
      expect(g.comparisons[0]!.adjusted).toMatchObject({ family: 1 });
  });
});

describe('a zero baseline', () => {
  it('gets the absolute difference and its test, not insufficient-data', () => {
    const fail = groupSamples(
      [...rows('a', [0, 0, 0, 0]), ...rows('b', [8.9, 9.1, 8.95, 8.9])].map((r) => ({ ...r, unit: '%' })),
      { metric: 'compress_fail_pct', source: 'measured', groupBy: 'class' },
    ).groups[0]!.comparisons[0]!;
    expect(fail.verdict.kind).toBe('slower');
    expect(fail.improvement).toBeNull();
    expect(fail.difference).toBeCloseTo(8.9625, 10);
    expect(fail.differenceCi95!.low).toBeGreaterThan(8.5);
    expect(fail.verdict.sentence).toMatch(/^b's mean is 8\.96 percentage points higher than a's/);
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
