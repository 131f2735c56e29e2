/**
 * The hardware class as an answer axis: the real `tunelab run vacuum-index-cleanup` run against
 * PostgreSQL 17 on this 2-core VM (tests/fixtures/real-runs/versions), answered by `answerRun`,
 * and copies of it labelled as other machines — one with 8 cores and 32 GB, one inside the
 * like-article run's envelope (emulated) — with the durations of 1-1 and 1-2 replaced where a case
 * needs known figures; then put side by side by `answerClasses`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hardwareClassOf, RunSubmission } from '@tunelab/contracts';
import { loadScenario } from '@tunelab/scenarios';
import { answerRun } from './run.ts';
import { answerClasses } from './classes.ts';

const FIXTURES = new URL('../../../tests/fixtures/', import.meta.url);
const submission = (file: string) =>
  RunSubmission.parse(
    (JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as { submission: unknown }).submission,
  );
const PG17 = submission('real-runs/versions/vacuum-index-cleanup-pg17.json');
const PG14 = submission('real-runs/versions/vacuum-index-cleanup-pg14.json');
const LIKE = submission('vacuum-index-cleanup-like-article-1GB.json');

const GIB = 1024 ** 3;
/** The machines the copies are labelled as. */
const HARDWARE = {
  here: PG17.hardware,
  big: { ...PG17.hardware, physicalCores: 8, logicalCpus: 8, memoryBytes: 32 * GIB },
  emulated: { ...PG17.hardware, measured: LIKE.hardware.measured, envelope: LIKE.hardware.envelope },
};
type Machine = keyof typeof HARDWARE;
const CLASS = {
  here: '2 cores / 24 GB / unknown disk',
  big: '8 cores / 32 GB / unknown disk',
  emulated: '2 cores / 2.7 GB of 24 GB / SSD-like, emulated',
};
type Durations = { '1-1': number[]; '1-2': number[] };

describe('answerClasses', async () => {
  const scenario = await loadScenario(
    fileURLToPath(new URL('../../../scenarios/vacuum-index-cleanup', import.meta.url)),
  );
  /** The 17 run on each machine, with its 1-x durations replaced where given (2-x kept). */
  const on = (machines: Partial<Record<Machine, Durations | null>>, base = PG17) =>
    (Object.entries(machines) as [Machine, Durations | null][]).flatMap(([machine, durations]) => {
      const samples = base.samples.map((x) => {
        const set = durations?.[x.variant as keyof Durations];
        return x.metric === 'duration' && set ? { ...x, value: set[x.repetition - 1]! } : x;
      });
      return answerRun({
        doc: scenario.doc,
        published: scenario.published,
        run: RunSubmission.parse({ ...base, hardware: HARDWARE[machine], samples }),
        metric: 'duration',
        runId: `run-${machine}-${base.database.major}`,
      }).groups;
    });
  const pairOf = (v: ReturnType<typeof answerClasses>) => v.comparisons.find((c) => c.baseline === '1-1')!;

  it('labels the copies as the classes the tests name', () => {
    for (const m of Object.keys(HARDWARE) as Machine[]) expect(hardwareClassOf(HARDWARE[m])).toBe(CLASS[m]);
  });

  it('says "the hardware changes the answer" when the interaction test holds, and names both classes', () => {
    // 20% faster here, 20% slower on the 8-core machine: a ratio of ratios of 0.8 / 1.2.
    const steady = { '1-1': [10, 10.1, 9.9] };
    const groups = on({ here: { ...steady, '1-2': [8, 8.1, 7.9] }, big: { ...steady, '1-2': [12, 12.1, 11.9] } });
    const v = answerClasses(groups);
    expect(v.measured).toEqual([
      { engine: 'postgresql', major: 17, server: 'PostgreSQL 17', classes: [CLASS.here, CLASS.big] },
    ]);
    const c = pairOf(v);
    expect(c).toMatchObject({ engine: 'postgresql', major: 17, server: 'PostgreSQL 17', unit: 's' });
    expect(c.conditions).toBe('PostgreSQL 17 · rows = 800,000');
    expect(c.rows.map((r) => [r.hardwareClass, r.emulated, r.verdict.kind])).toEqual([
      [CLASS.here, false, 'faster'],
      [CLASS.big, false, 'slower'],
    ]);
    // Every figure of a row is its group's own.
    for (const r of c.rows) {
      const g = groups.find((x) => x.group.key === r.group)!;
      const pair = g.pairs.find((p) => p.baseline === '1-1' && p.candidate === '1-2')!;
      expect(r).toMatchObject({
        improvement: pair.measured!.improvement,
        ci95: pair.measured!.ci95,
        verdict: pair.measured!.verdict,
        pAdjusted: pair.measured!.adjusted!.p,
        agreement: pair.agreement,
      });
      expect(r.baseline).toEqual({ n: 3, mean: g.group.variants.find((x) => x.variant === '1-1')!.mean });
    }
    expect(c.interactions).toHaveLength(1);
    const i = c.interactions[0]!;
    expect([i.a, i.b]).toEqual([CLASS.here, CLASS.big]);
    // SciPy reference (REF below): estimate 0.8 / 1.2 by construction, se of its log 0.01191,
    // Welch–Satterthwaite df 7.36, p 2.28e-9.
    expect(i.method).toBe('log-ratio');
    expect(i.estimate).toBeCloseTo(0.8 / 1.2, 12);
    expect(i.df).toBeCloseTo(REF.changes.df, 6);
    expect(i.p).toBeCloseTo(REF.changes.p, 14);
    expect(i.ci95.low).toBeCloseTo(REF.changes.low, 9);
    expect(i.ci95.high).toBeCloseTo(REF.changes.high, 9);
    // Holm over the two pairs of this major and conditions (2-1→2-2 is the real run's on both: ratio 1).
    expect(i.adjusted).toMatchObject({ method: 'holm', family: 2 });
    expect(i.adjusted.p).toBeCloseTo(2 * REF.changes.p, 14);
    expect(i.differs).toBe(true);
    expect(c.hardwareChangesAnswer).toBe(true);
    expect(c.sameVerdict).toBe(false);
    expect(c.summary).toMatch(
      /^The hardware changes the answer: 1-2 ÷ 1-1 on 2 cores \/ 24 GB \/ virtual or unknown disk is 0\.667× what it is on 8 cores \/ 32 GB \/ virtual or unknown disk \(95% CI 0\.6\d*–0\.6\d*\), Holm-adjusted interaction p < 0\.001 over 2 tests; verdicts per class: 1-2 better than 1-1 on 2 cores \/ 24 GB \/ virtual or unknown disk; 1-2 worse than 1-1 on 8 cores \/ 32 GB \/ virtual or unknown disk\.$/,
    );
    // The pair measured unchanged on both machines: the same ratio, no evidence.
    const same = v.comparisons.find((x) => x.baseline === '2-1')!;
    expect(same.interactions[0]!.estimate).toBeCloseTo(1, 12);
    expect(same.hardwareChangesAnswer).toBe(false);
    expect(v.sentence).toBe(
      `Measured: PostgreSQL 17 on 2 cores / 24 GB / virtual or unknown disk and 8 cores / 32 GB / virtual or unknown disk; the same pairs under equal conditions side by side: 2 cores / 24 GB / virtual or unknown disk and 8 cores / 32 GB / virtual or unknown disk on PostgreSQL 17.`,
    );
  });

  it('says "no evidence" when the verdicts differ but the pair’s ratio is the same on both classes', () => {
    // 20% faster on both; steady here (significant), noisy on the 8-core machine (not significant).
    const v = answerClasses(
      on({
        here: { '1-1': [10, 10.1, 9.9], '1-2': [8, 8.1, 7.9] },
        big: { '1-1': [10, 13, 7], '1-2': [8, 10.4, 5.6] },
      }),
    );
    const c = pairOf(v);
    expect(c.rows.map((r) => r.verdict.kind)).toEqual(['faster', 'no-significant-difference']);
    expect(c.sameVerdict).toBe(false);
    expect(c.hardwareChangesAnswer).toBe(false);
    const i = c.interactions[0]!;
    expect(i.estimate).toBeCloseTo(1, 12);
    expect(i.p).toBeCloseTo(REF.same.p, 12);
    expect(i.df).toBeCloseTo(REF.same.df, 6);
    expect(i.differs).toBe(false);
    expect(c.summary).toMatch(
      /^No evidence that the hardware changes the answer \(interaction tests of 1-2 ÷ 1-1 on PostgreSQL 17 between 2 cores \/ 24 GB \/ virtual or unknown disk and 8 cores \/ 32 GB \/ virtual or unknown disk: smallest Holm-adjusted p = 1\.0 over 2 tests\); verdicts per class: 1-2 better than 1-1 on 2 cores \/ 24 GB \/ virtual or unknown disk; not enough repetitions to be sure on 8 cores \/ 32 GB \/ virtual or unknown disk\.$/,
    );
  });

  it('decides by the Holm-adjusted p over the major’s family, not the raw one', () => {
    // 1-2 ÷ 1-1 is 0.8 here and 0.9 on the 8-core machine: raw p 0.037, but two tests in the family.
    const v = answerClasses(
      on({
        here: { '1-1': [10, 10.1, 9.9], '1-2': [8, 8.4, 7.6] },
        big: { '1-1': [10, 10.1, 9.9], '1-2': [9, 9.4, 8.6] },
      }),
    );
    const i = pairOf(v).interactions[0]!;
    expect(i.estimate).toBeCloseTo(0.8 / 0.9, 12);
    expect(i.p).toBeCloseTo(REF.holm.p, 12);
    expect(i.adjusted).toEqual({ method: 'holm', p: expect.closeTo(2 * REF.holm.p, 12) as number, family: 2 });
    expect(i.differs).toBe(false);
    expect(pairOf(v).hardwareChangesAnswer).toBe(false);
    expect(pairOf(v).summary).toMatch(
      /^No evidence that the hardware changes the answer \(.*: smallest Holm-adjusted p = 0\.074 over 2 tests\)/,
    );
  });

  it('puts an emulated class beside the others, last, and its row says it is emulated', () => {
    const groups = on({ emulated: null, here: null, big: null });
    const v = answerClasses(groups);
    expect(v.measured[0]!.classes).toEqual([CLASS.here, CLASS.big, CLASS.emulated]);
    for (const c of v.comparisons) {
      expect(c.rows.map((r) => [r.hardwareClass, r.emulated])).toEqual([
        [CLASS.here, false],
        [CLASS.big, false],
        [CLASS.emulated, true],
      ]);
      // Three classes: three interactions per pair, Holm over both pairs' six.
      expect(c.interactions.map((i) => [i.a, i.b])).toEqual([
        [CLASS.here, CLASS.big],
        [CLASS.here, CLASS.emulated],
        [CLASS.big, CLASS.emulated],
      ]);
      for (const i of c.interactions) {
        expect(i.adjusted.family).toBe(6);
        // The same measurements on every class: the same ratio, exactly.
        expect(i.estimate).toBeCloseTo(1, 12);
      }
      expect(c.summary).toMatch(/ and 2 cores \/ 2\.7 GB of 24 GB \/ SSD-like \(emulated\): smallest Holm-adjusted p /);
    }
    // The emulated row's agreement is the emulated group's own ("under emulated conditions").
    const emulated = groups.find((g) => g.group.hardware.class === CLASS.emulated)!;
    expect(emulated.pairs.every((p) => / under emulated conditions/.test(p.sentence))).toBe(true);
  });

  it('with one class per server, has no comparison and says which classes are measured', () => {
    const one = answerClasses(on({ here: null }));
    expect(one.comparisons).toEqual([]);
    expect(one.measured).toEqual([{ engine: 'postgresql', major: 17, server: 'PostgreSQL 17', classes: [CLASS.here] }]);
    expect(one.sentence).toBe(
      'Measured: PostgreSQL 17 on 2 cores / 24 GB / virtual or unknown disk; no server has the same pair under equal conditions on two hardware classes yet.',
    );
    expect(answerClasses([])).toEqual({
      measured: [],
      comparisons: [],
      sentence: 'No hardware class is measured yet.',
    });
  });

  it('at fleet scale groups the classes by their answer and shows the interaction only where it differs', () => {
    // Eight machines of eight classes (2–16 cores, 24–64 GB): on five 1-2 is 20% faster, on three
    // 20% slower; the 2-x pair is the run's own on every one.
    const steady = { '1-1': [10, 10.1, 9.9] };
    const machines = [2, 4, 8, 16].flatMap((cores) =>
      [24, 64].map((gb) => ({ ...PG17.hardware, physicalCores: cores, logicalCpus: cores, memoryBytes: gb * GIB })),
    );
    const groups = machines.flatMap((hardware, i) => {
      const durations: Durations = { ...steady, '1-2': i < 5 ? [8, 8.1, 7.9] : [12, 12.1, 11.9] };
      const samples = PG17.samples.map((x) => {
        const set = durations[x.variant as keyof Durations];
        return x.metric === 'duration' && set ? { ...x, value: set[x.repetition - 1]! } : x;
      });
      return answerRun({
        doc: scenario.doc,
        published: scenario.published,
        run: RunSubmission.parse({ ...PG17, hardware, samples }),
        metric: 'duration',
        runId: `run-fleet-${i}`,
      }).groups;
    });
    const v = answerClasses(groups);
    const classes = machines.map((m) => hardwareClassOf(m));
    expect(new Set(classes).size).toBe(8);
    // The sentence counts the classes instead of naming each twice.
    expect(v.sentence).toBe(
      'Measured: PostgreSQL 17 on 8 hardware classes; the same pairs under equal conditions side by side: 8 hardware classes on PostgreSQL 17.',
    );
    const c = pairOf(v);
    expect(c.rows).toHaveLength(8);
    expect(c.interactions).toHaveLength(28);
    expect(c.verdictGroups.map((g) => [g.words, g.kind, new Set(g.classes)])).toEqual([
      ['1-2 better than 1-1', 'faster', new Set(classes.slice(0, 5))],
      ['1-2 worse than 1-1', 'slower', new Set(classes.slice(5))],
    ]);
    // Within each group the ratios are equal (no test differs): only the 5 × 3 pairs between the groups are listed.
    expect(c.changes).toHaveLength(1);
    const change = c.changes[0]!;
    expect(change).toMatchObject({ a: 0, b: 1, tests: 15, differing: 15 });
    expect(change.strongest.differs).toBe(true);
    expect(classes.slice(0, 5)).toContain(change.strongest.a);
    expect(classes.slice(5)).toContain(change.strongest.b);
    expect(change.strongest.adjusted.family).toBe(c.interactions[0]!.adjusted.family);
    expect(c.summary).toMatch(
      /; verdicts per class: 1-2 better than 1-1 on 5 hardware classes; 1-2 worse than 1-1 on 3 hardware classes\.$/,
    );
    // The 2-x pair: the same run on every class, so one group and no change.
    const other = v.comparisons.find((x) => x.baseline === '2-1')!;
    expect(other.verdictGroups).toHaveLength(1);
    expect(other.verdictGroups[0]!.classes).toHaveLength(8);
    expect(other.changes).toEqual([]);
    expect(other.summary).toMatch(
      /^No evidence that the hardware changes the answer \(interaction tests of 2-2 ÷ 2-1 on PostgreSQL 17 between 8 hardware classes: /,
    );
  });

  it('never puts two majors or two parameter values side by side', () => {
    // PostgreSQL 14 on one machine, 17 on another: two classes, but not under equal conditions.
    const majors = answerClasses([...on({ here: null }, PG14), ...on({ big: null })]);
    expect(majors.comparisons).toEqual([]);
    expect(majors.measured.map((m) => [m.server, m.classes])).toEqual([
      ['PostgreSQL 14', [CLASS.here]],
      ['PostgreSQL 17', [CLASS.big]],
    ]);
    const other = RunSubmission.parse({ ...PG17, params: { rows: 2000 } });
    const scales = answerClasses([...on({ here: null }, other), ...on({ big: null })]);
    expect(scales.comparisons).toEqual([]);
  });
});

/**
 * SciPy 1.17, independently of @tunelab/stats, from the durations of the two cases:
 *   cells = [(n, x.mean(), x.std(ddof=1)) for x in (a_1-1, a_1-2, b_1-1, b_1-2)]; u = (s / m)² / n
 *   d = ln(m₂ / m₁) − ln(m₄ / m₃); se = √Σu; df = (Σu)² / Σ(u² / (n − 1))
 *   p = 2 · stats.t.sf(|d / se|, df); ci = exp(d ± stats.t.ppf(0.975, df) · se)
 */
const REF = {
  changes: { df: 7.361019422705857, p: 2.2838722392921964e-9, low: 0.6483302252316006, high: 0.6855217096899608 },
  same: { df: 4.011388474071071, p: 1 },
  holm: { p: 0.03707476177017118 },
};
