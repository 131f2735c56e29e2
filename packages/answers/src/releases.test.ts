import { describe, expect, it } from 'vitest';
import { answerReleaseLine } from './releases.ts';
import type { SampleRow } from './groups.ts';
import { testRow } from './test-rows.ts';

/** `runs` runs of variants a and b (3 repetitions each, b `ratio`× a: 20 % slower) on PostgreSQL 17.`minor`. */
function runsOn(minor: number, runs: number, ratio = 1.2, noisy: boolean | null = null): SampleRow[] {
  return Array.from({ length: runs }, (_, i) => {
    const run_id = `00000000-0000-4000-8000-${String(minor).padStart(4, '0')}${String(i).padStart(8, '0')}`;
    const received_at = new Date(Date.UTC(2026, 0, 1, 0, minor * 1000 + i));
    return ['a', 'b'].flatMap((variant) =>
      [1, 2, 3].map((repetition) =>
        testRow({
          variant,
          repetition,
          value: (variant === 'a' ? 1 : ratio) * (1 + 0.01 * ((i + repetition) % 5)),
          run_id,
          received_at,
          db_version: `17.${minor}`,
          minor,
          server_release: `17.${minor}`,
          noisy,
        }),
      ),
    );
  }).flat();
}

/** The release line of `rows` (duration, measured, by class; no scenario folders). */
const lineOf = (rows: SampleRow[]) =>
  answerReleaseLine({ rows, filters: { metric: 'duration', source: 'measured', groupBy: 'class' }, docs: new Map() });

describe('a release line over many runs', () => {
  it('counts every run of a release, not the runs a group links (at most 100)', () => {
    const line = lineOf([...runsOn(2, 130), ...runsOn(3, 4)])!;
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

describe('runs on one release', () => {
  it('have no release line, as no series can span two releases', () => {
    expect(lineOf(runsOn(2, 12))).toBeUndefined();
    // A second release makes a line of the same rows' series.
    const line = lineOf([...runsOn(2, 12), ...runsOn(3, 2)])!;
    expect(line.releases).toEqual(['17.2', '17.3']);
  });
});

describe('a change and its reversal', () => {
  // No blocks: 17.3 raises the ratio by 10.5 %, and 17.4 brings it back.
  const reversal = () => lineOf([...runsOn(1, 6), ...runsOn(2, 6), ...runsOn(3, 6, 1.2 * 1.105), ...runsOn(4, 6)])!;

  it('are reported alike: a threshold is a factor, so a fall by ÷1.105 counts as a rise by ×1.105 does', () => {
    // The threshold is the scenario's margin, 10 %; 17.4's fall is −9.5 % on a linear scale, the same factor down.
    const line = reversal();
    const [series] = line.series;
    expect(series!.threshold).toMatchObject({ basis: 'margin', value: 0.1 });
    const steps = Object.fromEntries(series!.steps.map((x) => [x.to, x]));
    expect(steps['17.3']!.change).toBeCloseTo(0.105, 3);
    expect(steps['17.4']!.change).toBeCloseTo(1 / 1.105 - 1, 3);
    expect([steps['17.2']!.reported, steps['17.3']!.reported, steps['17.4']!.reported]).toEqual([false, true, true]);
  });

  it('print the interval adjusted with the p: it excludes 0 exactly when the step is significant', () => {
    const steps = reversal().series[0]!.steps;
    const significant = steps.filter((x) => x.adjusted.p <= 0.05).length;
    expect(significant).toBeGreaterThan(0);
    expect(significant).toBeLessThan(steps.length);
    for (const x of steps) {
      // Benjamini–Yekutieli: 1 − R·q/m, R of the m steps significant after BH.
      expect(x.adjusted.level).toBeCloseTo(1 - (significant * 0.05) / steps.length, 12);
      const { low, high } = x.adjusted.ci;
      expect(low! > 0 || high! < 0).toBe(x.adjusted.p <= 0.05);
      // Wider than the step's own 95 % interval.
      expect(low!).toBeLessThan(x.ci95.low!);
      expect(high!).toBeGreaterThan(x.ci95.high!);
      expect(x.sentence).toContain(`${Number((x.adjusted.level * 100).toFixed(1))}% CI`);
    }
  });
});

describe('a change measured on a busy machine', () => {
  const line = (noisy: [boolean, boolean]) =>
    // 17.3 raises the ratio by 30 %, far above the 10 % margin; its runs flagged noisy or not.
    lineOf([...runsOn(2, 6, 1.2, noisy[0]), ...runsOn(3, 6, 1.2 * 1.3, noisy[1])])!.series[0]!;

  it('is not reported when every run on one side was flagged noisy, and says which release to measure again', () => {
    const quiet = line([false, false]);
    expect(quiet.steps[0]).toMatchObject({ to: '17.3', reported: true });
    const busy = line([false, true]);
    expect(busy.releases.map((r) => [r.release, r.runs, r.noisyRuns])).toEqual([
      ['17.2', 6, 0],
      ['17.3', 6, 6],
    ]);
    // The same figures, not reported.
    expect(busy.steps[0]).toMatchObject({ change: quiet.steps[0]!.change, p: quiet.steps[0]!.p, reported: false });
    expect(busy.steps[0]!.sentence).toMatch(
      /not reported: every run on 17\.3 was flagged noisy .* measure 17\.3 again/,
    );
  });

  it('is reported when some runs of each side were quiet', () => {
    const mixed = lineOf([
      ...runsOn(2, 6, 1.2, false),
      ...runsOn(3, 3, 1.2 * 1.3, true),
      ...runsOn(3, 3, 1.2 * 1.3, false).map((r) => ({ ...r, run_id: r.run_id.replace(/^0/, '1') })),
    ])!.series[0]!;
    expect(mixed.releases[1]).toMatchObject({ release: '17.3', runs: 6, noisyRuns: 3 });
    expect(mixed.steps[0]).toMatchObject({ to: '17.3', reported: true });
  });
});
