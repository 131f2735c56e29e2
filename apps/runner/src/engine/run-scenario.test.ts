import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { databasesWithPrefix, TEST_PG_URL } from '../test-support/pg.ts';
import { renderRunTable } from '../report/table.ts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { cleanupRun, runPrefix, runScenario, type RunEvent } from './run-scenario.ts';
import { postgresDriver } from '../engines/postgresql/driver.ts';
import { TargetUnreachable, UsageError } from '../errors.ts';

const runIds: string[] = [];
afterAll(async () => {
  for (const id of runIds) await cleanupRun(postgresDriver, TEST_PG_URL, id);
});

/** A fresh run id, cleaned up after this file whatever the run left. */
function newRunId(): string {
  const runId = crypto.randomUUID();
  runIds.push(runId);
  return runId;
}
/** Runs on the test server under a fresh run id. */
async function runOnTestServer(options: Omit<Parameters<typeof runScenario>[0], 'target' | 'runId'>) {
  const runId = newRunId();
  return { runId, result: await runScenario({ target: TEST_PG_URL, runId, ...options }) };
}
const loadKey = (key: string) => loadScenario(path.join(DEFAULT_SCENARIOS_DIR, key));

describe('vacuum-index-cleanup end to end (tiny scale)', async () => {
  const scenario = await loadKey('vacuum-index-cleanup');
  const events: RunEvent[] = [];
  const { runId, result } = await runOnTestServer({
    scenario,
    params: { rows: '3000' },
    repetitions: 2,
    onEvent: (e) => events.push(e),
  });
  const run = result.submission;

  it('produces a valid submission with every metric for every variant × repetition', () => {
    expect(RunSubmission.safeParse(run).success).toBe(true);
    expect(run.scenario).toMatchObject({ key: 'vacuum-index-cleanup', version: scenario.version });
    expect(run.params).toEqual({ rows: 3000 });
    expect(run.options).toEqual({ repetitions: 2, scale: 'default' });
    for (const v of ['1-1', '1-2', '2-1', '2-2'])
      for (const rep of [1, 2])
        for (const m of [
          'duration',
          'table_size_after',
          'index_size_after',
          'total_size_after',
          'dead_tuples_before',
          'wal_bytes',
          'restore_duration',
        ])
          expect(
            run.samples.find((s) => s.variant === v && s.repetition === rep && s.metric === m),
            `${v}#${rep} ${m}`,
          ).toBeDefined();
    expect(run.samples.find((s) => s.variant === 'fixture' && s.metric === 'build_duration')?.value).toBeGreaterThan(0);
  });

  it("describes the server without this connection's own settings", () => {
    expect(run.database.engine).toBe('postgresql');
    expect(run.database.major).toBeGreaterThanOrEqual(12);
    expect(run.database.version).toMatch(/^PostgreSQL /);
    expect(run.database.settings.application_name).toBeUndefined();
  });

  it('names the default a setting the article changed runs at, never a bare "(default)"', () => {
    // The local server leaves synchronous_commit at its default (on); the article ran with off.
    expect(run.warnings).toContain(
      'server setting synchronous_commit is on (the default) here; the published run used off',
    );
    expect(run.warnings.join('\n')).not.toMatch(/is \(default\)/);
  });

  it('runs blocks: each repetition every variant once, in the order recorded, each sample with its place', () => {
    const order = run.order ?? [];
    expect(order.map((o) => o.repetition)).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
    for (const r of [1, 2]) {
      const block = order.filter((o) => o.repetition === r).map((o) => o.variant);
      expect([...block].sort()).toEqual(['1-1', '1-2', '2-1', '2-2']);
      // Every sample of a unit carries the unit's place in its block.
      block.forEach((variant, i) => {
        const places = run.samples.filter((s) => s.variant === variant && s.repetition === r).map((s) => s.position);
        expect(new Set(places)).toEqual(new Set([i + 1]));
      });
    }
  });

  it('measures what the article describes: one dead tuple per row, removed by every variant', () => {
    const dead = run.samples.filter((s) => s.metric === 'dead_tuples_before').map((s) => s.value);
    expect(new Set(dead)).toEqual(new Set([3000]));
    // All of them are removable unless a concurrent transaction on the shared server holds back
    // the xmin horizon — which the runner then reports as a warning.
    const held = run.warnings.some((w) => /not yet removable/.test(w));
    for (const s of run.samples.filter((x) => x.metric === 'dead_tuples_after')) {
      if (held) expect(s.value).toBeLessThanOrEqual(3000);
      else expect(s.value).toBe(0);
    }
    // VACUUM FULL rewrites the table; plain VACUUM only frees space inside it.
    const size = (v: string) =>
      run.samples.find((s) => s.variant === v && s.repetition === 1 && s.metric === 'table_size_after')!.value;
    expect(size('2-1')).toBeLessThan(size('1-1'));
  });

  it('keeps the server VACUUM VERBOSE output as notes', () => {
    const note = run.notes.find((n) => n.kind === 'server-output' && n.variant === '1-1' && n.repetition === 1);
    expect(note?.text).toMatch(/vacuuming ".*idx_test_table"/);
  });

  it('restores the identical fixture before every variant × repetition', () => {
    const before = result.snapshots.filter((s) => s.at === 'before');
    expect(before).toHaveLength(8);
    const first = JSON.stringify({ sizes: before[0]!.sizes, tuples: before[0]!.tupleStats });
    for (const s of before) expect(JSON.stringify({ sizes: s.sizes, tuples: s.tupleStats })).toBe(first);
    expect(before[0]!.tupleStats.idx_test_table?.tuple_count).toBe(3000);
  });

  it('reports restore vs rebuild', () => {
    expect(result.fixture.restoreSeconds).toHaveLength(8);
    expect(result.fixture.ratio).toBeGreaterThan(0);
    expect(run.notes.some((n) => n.kind === 'fixture-snapshot')).toBe(true);
  });

  it('renders the article-style table', () => {
    const table = renderRunTable(scenario, run);
    // Two blocks: the paired verdict decides nothing before six.
    expect(table).toContain(
      'Undecided whether 1-2 differs from 1-1 after only 2 paired blocks: a decision waits for 6',
    );
    expect(table).toContain('Undecided whether 2-2 differs from 2-1 after only 2 paired blocks');
    // Which way the ratio goes depends on this machine's load (a tiny fixture restores in about
    // the time it takes to build); the line must be there and say one of the three things.
    expect(table).toMatch(
      /fixture: built once in [\d.]+ s; restored from the template 8× in [\d.]+ s on average — restore (is [\d.]+× faster than|takes about as long as|takes [\d.]+× as long as) a rebuild/,
    );
    // Without --until-stable: no CV column, no stopping rule (the noise line names its probes' CV).
    expect(table.replace(/^noise: .*$/m, '')).not.toMatch(/CV|stopped:/);
    expect(table).toMatch(/^noise: /m);
    expect(run.notes.some((n) => n.kind === 'stopping-rule')).toBe(false);
    expect(run.options?.untilStable).toBeUndefined();
  });

  it('records the CPU probe robust CV beside its CV, and the noise line names both', () => {
    expect(run.noise?.cpuProbe.robustCvPct).toEqual(expect.any(Number));
    expect(renderRunTable(scenario, run)).toMatch(/^noise: .*CPU probe CV [\d.]+ % \(robust [\d.]+ %\)/m);
  });

  it('leaves no database behind', async () => {
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
    expect(events.some((e) => e.type === 'phase' && e.phase === 'cleanup')).toBe(true);
  });
});

describe('vacuum-full-rewrite end to end (tiny scale)', async () => {
  const scenario = await loadKey('vacuum-full-rewrite');
  const { runId, result } = await runOnTestServer({ scenario, params: { rows: '2000' }, repetitions: 2 });
  const run = result.submission;
  const mean = (v: string, m: string) => {
    const xs = run.samples.filter((s) => s.variant === v && s.metric === m).map((s) => s.value);
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };

  it('compares the four ways and shows which ones shrink the table', () => {
    expect(RunSubmission.safeParse(run).success).toBe(true);
    for (const v of ['vacuum', 'full-rewrite', 'vacuum-reindex', 'cluster'])
      expect(mean(v, 'duration')).toBeGreaterThan(0);
    expect(mean('full-rewrite', 'table_size_after')).toBeLessThan(mean('vacuum', 'table_size_after'));
    expect(mean('cluster', 'table_size_after')).toBeLessThan(mean('vacuum', 'table_size_after'));
    expect(mean('vacuum-reindex', 'index_size_after')).toBeLessThan(mean('vacuum', 'index_size_after'));
  });

  it('restores identically and cleans up', async () => {
    const before = result.snapshots.filter((s) => s.at === 'before').map((s) => JSON.stringify(s.sizes));
    expect(new Set(before).size).toBe(1);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });
});

describe('failures', () => {
  it('drops everything when a step fails', async () => {
    const scenario = await loadKey('vacuum-index-cleanup');
    const broken = {
      ...scenario,
      doc: {
        ...scenario.doc,
        variants: [
          {
            key: 'bad',
            label: 'bad',
            steps: [
              {
                action: 'timed' as const,
                metric: 'duration',
                steps: [{ action: 'sql' as const, sql: 'SELECT * FROM no_such_table' }],
              },
            ],
          },
        ],
      },
    };
    const runId = newRunId();
    await expect(
      runScenario({ scenario: broken, target: TEST_PG_URL, params: { rows: '100' }, repetitions: 1, runId }),
    ).rejects.toThrow(/no_such_table/);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });

  it('reports an unreachable target as TargetUnreachable', async () => {
    const scenario = await loadKey('vacuum-index-cleanup');
    await expect(
      runScenario({ scenario, target: 'postgres://postgres@127.0.0.1:1/postgres', repetitions: 1 }),
    ).rejects.toBeInstanceOf(TargetUnreachable);
  });

  it('rejects an out-of-range parameter as a UsageError', async () => {
    const scenario = await loadKey('vacuum-index-cleanup');
    const refused = runScenario({ scenario, target: TEST_PG_URL, params: { rows: '0' } });
    await expect(refused).rejects.toThrow(/rows=0: expected at least 1/);
    await expect(refused).rejects.toBeInstanceOf(UsageError);
  });
});

describe('--until-stable (tiny scale)', async () => {
  const scenario = await loadKey('vacuum-full-rewrite');
  const stopNote = (run: RunSubmission) => run.notes.filter((n) => n.kind === 'stopping-rule');

  it('keeps adding whole interleaved rounds up to --max-repetitions while a CV is above the threshold', async () => {
    const events: RunEvent[] = [];
    const { runId, result } = await runOnTestServer({
      scenario,
      params: { rows: '500' },
      untilStable: { maxRepetitions: 4, cvThreshold: 0.000001 },
      onEvent: (e) => events.push(e),
    });
    const run = result.submission;
    expect(RunSubmission.safeParse(run).success).toBe(true);
    expect(run.params).toEqual({ rows: 500 });
    expect(run.options).toEqual({
      repetitions: 4,
      scale: 'default',
      untilStable: { startRepetitions: 3, maxRepetitions: 4, cvThreshold: 0.000001, source: 'option' },
    });
    expect(result.stopping).toMatchObject({ stopped: 'max-repetitions', repetitions: 4 });
    expect(stopNote(run)).toHaveLength(1);
    expect(stopNote(run)[0]!.text).toMatch(/^max-repetitions reached \(4\): CV of \S+ = [\d.]+%.* > 0\.0001%$/);
    // Whole blocks: every variant once in each repetition, in a random order.
    const keys = scenario.doc.variants.map((v) => v.key).sort();
    for (const r of [1, 2, 3, 4])
      expect(
        run.order
          ?.filter((o) => o.repetition === r)
          .map((o) => o.variant)
          .sort(),
      ).toEqual(keys);
    expect(run.order?.map((o) => o.repetition)).toEqual([1, 2, 3, 4].flatMap((r) => keys.map(() => r)));
    // Progress: the total grows one round at a time, bounded by maxTotal.
    const starts = events.filter((e): e is Extract<RunEvent, { type: 'unit-start' }> => e.type === 'unit-start');
    expect(starts.map((e) => e.index)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(starts[0]).toMatchObject({ total: 12, maxTotal: 16 });
    expect(starts[15]).toMatchObject({ total: 16, maxTotal: 16 });
    const stability = events.filter((e) => e.type === 'stability');
    expect(stability.map((e) => e.stopped)).toEqual([undefined, 'max-repetitions']);
    expect(stability[0]!.message).toMatch(/adding repetition 4 \(max 4\)/);
    expect(renderRunTable(scenario, run)).toMatch(/\nstopped: max-repetitions reached \(4\): CV of /);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });

  it('stops after the starting count (at least 3) once every compared CV is within the threshold', async () => {
    const { runId, result } = await runOnTestServer({
      scenario,
      params: { rows: '500' },
      repetitions: 1,
      untilStable: { cvThreshold: 10 },
    });
    const run = result.submission;
    expect(run.options).toEqual({
      repetitions: 3,
      scale: 'default',
      untilStable: { startRepetitions: 3, maxRepetitions: 10, cvThreshold: 10, source: 'option' },
    });
    expect(result.stopping?.stopped).toBe('stable');
    expect(stopNote(run)[0]!.text).toMatch(/^stable: all compared variants' CV ≤ 1000% after 3 repetitions/);
    expect(run.order).toHaveLength(3 * scenario.doc.variants.length);
    const table = renderRunTable(scenario, run);
    expect(table).toMatch(/mean +CV\n/);
    expect(table).toMatch(/\nstopped: stable: /);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });

  // scenario.yaml repetitions.until_stable: the rule as the scenario's default (vacuum-index-cleanup
  // declares one; this file's scenario is smaller, so it gets one here).
  const declaring = (until_stable: NonNullable<typeof scenario.doc.repetitions.until_stable>) => ({
    ...scenario,
    doc: { ...scenario.doc, decision: undefined, repetitions: { ...scenario.doc.repetitions, until_stable } },
  });

  it("a scenario's declared rule is the default: a run without --repetitions adds rounds, and stops at its time budget", async () => {
    const events: RunEvent[] = [];
    const { runId, result } = await runOnTestServer({
      scenario: declaring({ cv_threshold: 0.000001, max_repetitions: 50, budget_seconds: 1 }),
      params: { rows: '500' },
      onEvent: (e) => events.push(e),
    });
    const run = result.submission;
    expect(RunSubmission.safeParse(run).success).toBe(true);
    // Three rounds of four tiny variants take more than a second: no fourth round is added.
    expect(run.options).toEqual({
      repetitions: 3,
      scale: 'default',
      untilStable: {
        startRepetitions: 3,
        maxRepetitions: 50,
        cvThreshold: 0.000001,
        budgetSeconds: 1,
        source: 'scenario',
      },
    });
    expect(result.stopping).toMatchObject({ stopped: 'time-budget', repetitions: 3 });
    expect(stopNote(run)[0]!.text).toMatch(
      /^time budget reached \(1 s\): \d+ s measured, and another round \(~\d+ s\) would pass it; CV of \S+ = [\d.]+%.* > 0\.0001%$/,
    );
    const phase = events.find((e) => e.type === 'phase' && e.phase === 'measure');
    expect(phase && 'message' in phase ? phase.message : '').toMatch(
      /× 3–50 repetitions, until every compared variant's CV ≤ 0\.0001% or 1 s of measuring \(the scenario's default; --repetitions N runs exactly N\)$/,
    );
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });

  it("--repetitions N runs exactly N, and --until-stable's own bounds replace the scenario's", async () => {
    const declared = declaring({ cv_threshold: 0.000001, max_repetitions: 50, budget_seconds: 600 });
    const exact = await runOnTestServer({ scenario: declared, params: { rows: '500' }, repetitions: 2 });
    expect(exact.result.submission.options).toEqual({ repetitions: 2, scale: 'default' });
    expect(exact.result.stopping).toBeUndefined();
    const own = await runOnTestServer({
      scenario: declared,
      params: { rows: '500' },
      untilStable: { cvThreshold: 10 },
    });
    expect(own.result.submission.options?.untilStable).toEqual({
      startRepetitions: 3,
      maxRepetitions: 10,
      cvThreshold: 10,
      source: 'option',
    });
  });

  it('a maximum below the starting count is a usage error, before any database exists', async () => {
    const runId = crypto.randomUUID();
    const refused = runScenario({
      scenario,
      target: TEST_PG_URL,
      params: { rows: '500' },
      repetitions: 5,
      runId,
      untilStable: { maxRepetitions: 4 },
    });
    await expect(refused).rejects.toThrow(/--max-repetitions 4 is below the starting count of 5 repetitions/);
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });
});

describe('the sequential design (every scenario’s default; tiny scale)', async () => {
  const scenario = await loadKey('vacuum-full-rewrite');

  it('adds blocks from the 6th until every declared pair is decided, or the budget is spent, and records why', async () => {
    const events: RunEvent[] = [];
    const { runId, result } = await runOnTestServer({
      scenario,
      params: { rows: '2000' },
      budgetSeconds: 40,
      onEvent: (e) => events.push(e),
    });
    const run = result.submission;
    expect(RunSubmission.safeParse(run).success).toBe(true);
    const blocks = run.options!.repetitions;
    expect(blocks).toBeGreaterThanOrEqual(6);
    expect(run.options?.sequential).toEqual({
      metric: 'duration',
      margin: 0.1,
      budgetSeconds: 40,
      maxBlocks: 60,
      source: 'option',
      stopped: expect.stringMatching(/^(decided|time-budget)$/),
    });
    // The first look is after the 6th block; each later block is one look.
    const looks = events.filter((e) => e.type === 'stability');
    expect(looks).toHaveLength(blocks - 5);
    expect(looks.every((e) => e.type === 'stability' && e.rule === 'sequential')).toBe(true);
    const last = looks.at(-1)!;
    const note = run.notes.find((n) => n.kind === 'stopping-rule')!.text;
    if (run.options?.sequential?.stopped === 'decided') {
      // The decision the runner stopped on is the one its table prints: every pair conclusive.
      expect(note).toMatch(
        /^decided after \d+ blocks \(duration, margin ±10\.0%\): vacuum vs full-rewrite (differs|equivalent), /,
      );
      const table = renderRunTable(scenario, run);
      expect(table).not.toMatch(/Undecided|Unstable/);
    } else expect(note).toMatch(/^time budget reached \(40 s\)/);
    expect(last.type === 'stability' && last.stopped).toBe(run.options?.sequential?.stopped);
    for (let r = 1; r <= blocks; r++)
      expect(
        run.order
          ?.filter((o) => o.repetition === r)
          .map((o) => o.variant)
          .sort(),
      ).toEqual(['cluster', 'full-rewrite', 'vacuum', 'vacuum-reindex']);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  }, 180_000);

  it('a scenario’s decision is the default, --repetitions N runs exactly N blocks, --budget goes with neither', async () => {
    const exact = await runOnTestServer({ scenario, params: { rows: '500' }, repetitions: 2 });
    expect(exact.result.submission.options).toEqual({ repetitions: 2, scale: 'default' });
    for (const bad of [{ repetitions: 3 }, { untilStable: { cvThreshold: 0.1 } }, { scale: 'published' as const }]) {
      const runId = crypto.randomUUID();
      const refused = runScenario({ scenario, target: TEST_PG_URL, runId, budgetSeconds: 60, ...bad });
      await expect(refused).rejects.toBeInstanceOf(UsageError);
      await expect(refused).rejects.toThrow(/--budget/);
      expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
    }
  }, 120_000);
});
