/**
 * The server version as an answer axis over real runs: `tunelab run vacuum-index-cleanup` at the
 * default scale on this machine against PostgreSQL 14 and 17 (managed servers from the npm
 * registry) and the local PostgreSQL 15 (tests/fixtures/real-runs), each answered on its own by
 * `answerRun`, then put side by side by `answerVersions`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { loadScenario } from '@tunelab/scenarios';
import { answerRun } from './run.ts';
import { answerVersions } from './versions.ts';

const FIXTURES = new URL('../../../tests/fixtures/real-runs/', import.meta.url);
const run = (file: string) =>
  RunSubmission.parse(
    (JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as { submission: unknown }).submission,
  );
const RUNS = {
  14: run('versions/vacuum-index-cleanup-pg14.json'),
  15: run('vacuum-index-cleanup.json'),
  17: run('versions/vacuum-index-cleanup-pg17.json'),
};

describe('answerVersions', async () => {
  const scenario = await loadScenario(
    fileURLToPath(new URL('../../../scenarios/vacuum-index-cleanup', import.meta.url)),
  );
  const answered = (majors: (keyof typeof RUNS)[]) =>
    majors.flatMap(
      (m) =>
        answerRun({
          doc: scenario.doc,
          published: scenario.published,
          run: RUNS[m],
          metric: 'duration',
          runId: `run-${m}`,
        }).groups,
    );

  it('puts the same pair on one class side by side per major, oldest first, with the groups’ own figures', () => {
    const groups = answered([17, 14, 15]);
    const v = answerVersions(groups);
    expect(v.measured).toEqual([
      { hardwareClass: groups[0]!.group.hardware.class, engine: 'postgresql', majors: [14, 15, 17] },
    ]);
    // The 15 run was made with an earlier version of the scenario: never side by side with the others.
    expect(RUNS[15].scenario.version).not.toBe(RUNS[14].scenario.version);
    expect(RUNS[17].scenario.version).toBe(RUNS[14].scenario.version);
    expect(v.comparisons.map((c) => [`${c.baseline}→${c.candidate}`, c.rows.map((r) => r.major)])).toEqual([
      ['1-1→1-2', [14, 17]],
      ['2-1→2-2', [14, 17]],
    ]);
    for (const c of v.comparisons)
      for (const r of c.rows) {
        const g = groups.find((x) => x.group.key === r.group)!;
        const pair = g.pairs.find((p) => p.baseline === c.baseline && p.candidate === c.candidate)!;
        expect(r.improvement).toBe(pair.measured!.improvement);
        expect(r.ci95).toEqual(pair.measured!.ci95);
        expect(r.verdict).toEqual(pair.measured!.verdict);
        expect(r.pAdjusted).toBe(pair.measured!.adjusted!.p);
        expect(r.baseline!.mean).toBe(g.group.variants.find((x) => x.variant === c.baseline)!.mean);
      }
  });

  it('with one major per class, has no comparison and says which versions are measured', () => {
    const v = answerVersions(answered([17]));
    expect(v.comparisons).toEqual([]);
    expect(v.sentence).toMatch(/^Measured on PostgreSQL 17 only — .* on PostgreSQL 17; no hardware class/);
    expect(answerVersions([]).sentence).toBe('No server version is measured yet.');
  });

  it('names a MariaDB major by its release line (10.11, not 10), in the sentence and the conditions', async () => {
    const innodb = await loadScenario(
      fileURLToPath(new URL('../../../scenarios/innodb-compression-insert', import.meta.url)),
    );
    const mariadb = run('innodb-compression-insert.json');
    expect(mariadb.database).toMatchObject({ engine: 'mariadb', major: 10, minor: 11 });
    const groups = answerRun({
      doc: innodb.doc,
      published: innodb.published,
      run: mariadb,
      metric: innodb.doc.metrics[0]!.key,
    }).groups;
    const v = answerVersions(groups);
    expect(v.sentence).toMatch(/^Measured on MariaDB 10\.11 only — .* on MariaDB 10\.11; /);
    expect(v.sentence).not.toMatch(/MariaDB 10(?![.\d])/);
    expect(groups[0]!.name).toContain('MariaDB 10.11');
  });

  it('never puts two parameter values side by side', () => {
    // A copy of the 14 run labelled with another scale is another group: it never pairs with the 17 run.
    const other = RunSubmission.parse({ ...RUNS[14], params: { rows: 2000 } });
    const groups = [
      ...answerRun({ doc: scenario.doc, published: scenario.published, run: other, metric: 'duration' }).groups,
      ...answered([17]),
    ];
    expect(answerVersions(groups).comparisons).toEqual([]);
  });

  /** The 14 and 17 runs with their 1-x durations replaced (2-x kept): one group per major. */
  const withDurations = (durations: Record<14 | 17, { '1-1': number[]; '1-2': number[] }>) =>
    ([14, 17] as const).flatMap((major) => {
      const base = RUNS[major];
      const samples = base.samples.map((x) => {
        const set = durations[major][x.variant as '1-1' | '1-2'] as number[] | undefined;
        return x.metric === 'duration' && set ? { ...x, value: set[x.repetition - 1]! } : x;
      });
      return answerRun({
        doc: scenario.doc,
        published: scenario.published,
        run: RunSubmission.parse({ ...base, samples }),
        metric: 'duration',
        runId: `run-${major}`,
      }).groups;
    });
  const pairOf = (v: ReturnType<typeof answerVersions>) => v.comparisons.find((c) => c.baseline === '1-1')!;

  it('tests whether the version changes the answer (interaction), rather than comparing two verdict labels', () => {
    const groups = answered([14, 17]);
    const v = answerVersions(groups);
    for (const c of v.comparisons) {
      expect(c.interactions).toHaveLength(1);
      const i = c.interactions[0]!;
      expect([i.a, i.b]).toEqual([17, 14]);
      expect(i.method).toBe('log-ratio');
      expect(i.ci95.low).toBeGreaterThan(0);
      // Holm over both pairs of the class: the adjusted p is at least the raw one.
      expect(i.adjusted).toMatchObject({ method: 'holm', family: 2 });
      expect(i.adjusted.p).toBeGreaterThanOrEqual(i.p);
      expect(i.differs).toBe(i.adjusted.p < 0.05);
      expect(c.versionChangesAnswer).toBe(i.differs);
    }
  });

  it('says "no evidence" when the verdicts differ but the pair’s ratio is the same on both majors', () => {
    // 20% faster on both; steady on 14 (significant), noisy on 17 (not significant).
    const v = answerVersions(
      withDurations({
        14: { '1-1': [10, 10.1, 9.9], '1-2': [8, 8.1, 7.9] },
        17: { '1-1': [10, 13, 7], '1-2': [8, 10.4, 5.6] },
      }),
    );
    const c = pairOf(v);
    expect(c.rows.map((r) => r.verdict.kind)).toEqual(['faster', 'no-significant-difference']);
    expect(c.sameVerdict).toBe(false);
    expect(c.versionChangesAnswer).toBe(false);
    expect(c.interactions[0]!.estimate).toBeCloseTo(1, 2);
    expect(c.summary).toMatch(
      /^No evidence that the version changes the answer \(interaction tests between PostgreSQL 14 and 17: smallest Holm-adjusted p = /,
    );
    expect(c.summary).not.toMatch(/verdict changes/);
    // The noisy side says what its own verdict says: not "no difference", too few repetitions.
    expect(c.summary).toMatch(
      /verdicts per version: 1-2 better than 1-1 on 14; not enough repetitions to be sure on 17\.$/,
    );
  });

  it('says "no measurable difference on" a version only where the verdict is conclusive', () => {
    const v = answerVersions(
      withDurations({
        14: { '1-1': [10, 10.05, 9.95], '1-2': [10.02, 10.03, 9.97] },
        17: { '1-1': [10, 13, 7], '1-2': [10, 12.5, 7.6] },
      }),
    );
    const c = pairOf(v);
    expect(c.rows.map((r) => r.verdict.kind)).toEqual(['no-significant-difference', 'no-significant-difference']);
    expect(c.sameVerdict).toBe(false);
    expect(c.summary).toMatch(
      /verdicts per version: no measurable difference on 14; not enough repetitions to be sure on 17\.$/,
    );
  });

  it('says "the version changes the answer" when the interaction test holds', () => {
    const v = answerVersions(
      withDurations({
        14: { '1-1': [10, 10.1, 9.9], '1-2': [8, 8.1, 7.9] },
        17: { '1-1': [10, 10.1, 9.9], '1-2': [12, 12.1, 11.9] },
      }),
    );
    const c = pairOf(v);
    expect(c.versionChangesAnswer).toBe(true);
    expect(c.interactions[0]!.estimate).toBeCloseTo(1.5, 2);
    expect(c.summary).toMatch(
      /^The version changes the answer: 1-2 ÷ 1-1 on 17 is 1\.5× what it is on 14 \(95% CI 1\.\d+–1\.\d+\), Holm-adjusted interaction p [=<] /,
    );
  });
});
