/**
 * Variants with a `setup` keep one database each for the whole run (fillfactor-hot-updates):
 * cloned and set up by their first unit, measured again by every later block, dropped at the end.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { postgresDriver } from '../engines/postgresql/driver.ts';
import { databasesWithPrefix, TEST_PG_URL } from '../test-support/pg.ts';
import { cleanupRun, runPrefix, runScenario, type RunEvent } from './run-scenario.ts';

const runId = randomUUID();
afterAll(() => cleanupRun(postgresDriver, TEST_PG_URL, runId));

describe('kept databases: fillfactor 100 and 40, two blocks at two user counts (tiny scale)', async () => {
  const loaded = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'fillfactor-hot-updates'));
  const scenario = {
    ...loaded,
    doc: {
      ...loaded.doc,
      variants: loaded.doc.variants.filter((v) => v.key === 'ff100' || v.key === 'ff40'),
      comparisons: [{ baseline: 'ff100', candidate: 'ff40' }],
    },
  };
  const events: RunEvent[] = [];
  // The databases on the server while the second block runs: listed as each of its units but the
  // last starts, so that a listing a busy machine delays still ends before the kept databases are
  // dropped (the next unit needs them).
  const listed: Promise<string[]>[] = [];
  const { submission: run } = await runScenario({
    scenario,
    target: TEST_PG_URL,
    params: { warehouses: '1', vus: '1,2', ramp_up: '0', duration: '1' },
    repetitions: 2,
    runId,
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'unit-start' && e.repetition === 2 && e.index < e.total)
        listed.push(databasesWithPrefix(runPrefix(runId)));
    },
  });
  const during = await Promise.all(listed);
  const samples = (variant: string, metric: string) =>
    run.samples.filter((s) => s.variant === variant && s.metric === metric);

  it('measures every variant at every point in every block', () => {
    expect(RunSubmission.safeParse(run).success).toBe(true);
    for (const v of ['ff100', 'ff40'])
      expect(
        samples(v, 'nopm')
          .map((s) => `${s.repetition}@${s.point?.value}`)
          .sort(),
      ).toEqual(['1@1', '1@2', '2@1', '2@2']);
  });

  it('clones each variant once: one database per variant, kept across blocks and points, none per unit', () => {
    const prefix = runPrefix(runId);
    for (const names of during)
      expect([...names].sort()).toEqual([`${prefix}k_v1`, `${prefix}k_v2`, `${prefix}tpl`].sort());
    expect(during).toHaveLength(3);
    // A restore sample for the unit that cloned, none for the units measured again on the kept database.
    for (const v of ['ff100', 'ff40']) expect(samples(v, 'restore_duration')).toHaveLength(1);
    const done = events.filter((e) => e.type === 'unit-done');
    expect(done.filter((e) => e.restoreSeconds !== undefined)).toHaveLength(2);
  });

  it('each database ages: a window starts where its variant’s previous window left the tables', () => {
    // A block visits the points in order (rounds): 1 then 2 users, block 1 then block 2.
    const sequence = [
      [1, 1],
      [1, 2],
      [2, 1],
      [2, 2],
    ];
    for (const v of ['ff100', 'ff40']) {
      const at = (metric: string, [repetition, users]: number[]) =>
        samples(v, metric).find((s) => s.repetition === repetition && s.point?.value === users)!.value;
      for (let i = 1; i < sequence.length; i++)
        expect(at('stock_heap_before', sequence[i]!), `${v} ${String(sequence[i])}`).toBeGreaterThanOrEqual(
          at('stock_heap_after', sequence[i - 1]!),
        );
    }
    // The setup's fillfactor holds for the whole run: ff40's data is about 2.27× ff100's (the article).
    const first = (v: string) => samples(v, 'database_size_before').find((s) => s.repetition === 1)!.value;
    expect(first('ff40') / first('ff100')).toBeGreaterThan(1.8);
  });

  it('drops the kept databases when measuring ends', async () => {
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });
});
