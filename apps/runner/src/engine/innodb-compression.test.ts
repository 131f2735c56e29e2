import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { mysqlDriver } from '../engines/mysql/driver.ts';
import { Interrupted, RunFailed, UsageError } from '../errors.ts';
import { DEFAULT_SCENARIOS_DIR, loadScenario, type LoadedScenario } from '@tunelab/scenarios';
import { checkQuery, mysqlTargetAs, TEST_MYSQL_URL } from '../test-support/mysql.ts';
import { cleanupRun, runPrefix, runScenario } from './run-scenario.ts';

const TINY = { rows: '3000', sample_every_rows: '1000', threads: '2', batch_rows: '50' };
const bufferPool = async () => Number((await checkQuery('SELECT @@GLOBAL.innodb_buffer_pool_size AS b'))[0]?.b);
const leftovers = async (runId: string) =>
  (
    await checkQuery(
      'SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE LEFT(SCHEMA_NAME, CHAR_LENGTH(?)) = ?',
      [runPrefix(runId), runPrefix(runId)],
    )
  ).map((r) => r.s);

let scenario: LoadedScenario;
let poolBefore: number;
const runIds: string[] = [];
beforeAll(async () => {
  scenario = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'innodb-compression-insert'));
  poolBefore = await bufferPool();
});
afterAll(async () => {
  for (const id of runIds) await cleanupRun(mysqlDriver, TEST_MYSQL_URL, id);
});
const newRunId = () => {
  const id = randomUUID();
  runIds.push(id);
  return id;
};

/** A stream far longer than the test: `during` runs once, shortly after the first unit starts. */
function streamUntil(runId: string, during: () => void | Promise<void>, signal?: AbortSignal) {
  let fired = false;
  return runScenario({
    scenario,
    target: TEST_MYSQL_URL,
    params: { ...TINY, rows: '50000000', max_seconds: '60' },
    repetitions: 1,
    runId,
    signal,
    onEvent: (e) => {
      if (e.type !== 'unit-start' || fired) return;
      fired = true;
      setTimeout(() => void during(), 400);
    },
  });
}

describe('innodb-compression-insert on MariaDB (tiny scale)', () => {
  it('measures every variant, records the curves against rows, notes crossings, and restores the buffer pool', async () => {
    const runId = newRunId();
    const { submission: run } = await runScenario({
      scenario,
      target: TEST_MYSQL_URL,
      params: { ...TINY, buffer_pool_mb: '24' },
      repetitions: 1,
      runId,
    });
    expect(RunSubmission.safeParse(run).success).toBe(true);
    expect(run.database.engine).toBe('mariadb');
    expect(Number(run.database.settings.innodb_buffer_pool_size)).toBe(24 * 1024 * 1024);
    for (const v of ['uncompressed', 'compressed-kbs4', 'page-compressed']) {
      for (const m of [
        'rows_per_s',
        'rows_per_s_tail',
        'tablespace_size',
        'bytes_written_per_row',
        'compress_fail_pct',
        'rows_inserted',
      ])
        expect(
          run.samples.find((s) => s.variant === v && s.metric === m),
          `${v} ${m}`,
        ).toBeDefined();
      expect(run.samples.find((s) => s.variant === v && s.metric === 'rows_inserted')?.value).toBe(3000);
      const curve = run.timeSeries.filter((p) => p.variant === v && p.metric === 'rows_per_s');
      // A point per 1000 rows as the stream passes it, and the end. Under load the sampler may wake
      // a batch or two late (x = 1050) or, while one sample is read, the writers may pass the next
      // mark (2000 skipped): what holds is one point per 1000-row bucket, in order, ending at 3000.
      const xs = curve.map((p) => p.x);
      expect(xs.length, JSON.stringify(xs)).toBeGreaterThanOrEqual(2);
      expect(xs.at(-1)).toBe(3000);
      expect(xs[0]).toBeGreaterThanOrEqual(1000);
      const buckets = xs.map((x) => Math.floor(x / 1000));
      expect(buckets, JSON.stringify(xs)).toEqual([...new Set(buckets)].sort((a, b) => a - b));
      expect(run.timeSeries.some((p) => p.variant === v && p.metric === 'cpu_iowait_pct')).toBe(true);
    }
    const value = (v: string, m: string) => run.samples.find((s) => s.variant === v && s.metric === m)!.value;
    expect(value('uncompressed', 'compress_fail_pct')).toBe(0);
    expect(value('compressed-kbs4', 'tablespace_size')).toBeLessThan(value('uncompressed', 'tablespace_size'));
    expect(run.notes.find((n) => n.kind === 'global-settings')?.text).toContain(
      `innodb_buffer_pool_size ${poolBefore} → ${24 * 1024 * 1024}`,
    );
    expect(run.notes.filter((n) => n.kind === 'crossover').map((n) => n.text.split(':')[0])).toEqual([
      'uncompressed vs compressed-kbs4',
      'uncompressed vs page-compressed',
    ]);
    expect(await bufferPool()).toBe(poolBefore);
    expect(await leftovers(runId)).toEqual([]);
  });

  it('restores the buffer pool and drops everything when a variant fails', async () => {
    const runId = newRunId();
    const broken = {
      ...scenario,
      sqlFiles: new Map(scenario.sqlFiles).set(
        'table-compressed.sql',
        'CREATE TABLE test (NO int) ROW_FORMAT=NO_SUCH_FORMAT',
      ),
    };
    await expect(
      runScenario({ scenario: broken, target: TEST_MYSQL_URL, params: TINY, repetitions: 1, runId }),
    ).rejects.toThrow(/NO_SUCH_FORMAT|syntax/i);
    expect(await bufferPool()).toBe(poolBefore);
    expect(await leftovers(runId)).toEqual([]);
  });

  it('restores the buffer pool and drops everything on Ctrl-C in the middle of a stream', async () => {
    const runId = newRunId();
    const ac = new AbortController();
    await expect(streamUntil(runId, () => ac.abort(), ac.signal)).rejects.toBeInstanceOf(Interrupted);
    expect(await bufferPool()).toBe(poolBefore);
    expect(await leftovers(runId)).toEqual([]);
  });

  it("the server dropping the run's connections mid-stream: a clear error, the buffer pool restored, nothing left", async () => {
    const runId = newRunId();
    const prefix = runPrefix(runId);
    let killed = 0;
    // What a crash does to in-flight sessions: every connection of the stream dies at once. On a
    // loaded machine the stream's sessions may not be in the run's database yet when `during`
    // fires: look again until they are (the stream runs far longer than this waits).
    const run = streamUntil(runId, async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const sessions = await checkQuery(
          'SELECT ID AS id FROM information_schema.PROCESSLIST WHERE LEFT(DB, CHAR_LENGTH(?)) = ?',
          [prefix, prefix],
        );
        if (sessions.length > 0 || Date.now() > deadline) {
          for (const { id } of sessions) await checkQuery(`KILL CONNECTION ${Number(id)}`).catch(() => undefined);
          killed = sessions.length;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    const error = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(killed).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(RunFailed);
    expect(String((error as Error).message)).toMatch(
      /^the run failed while measuring: .*(connection|killed|lost|closed).*; every database of this run was dropped$/i,
    );
    expect(String((error as Error).message)).not.toMatch(/\n\s+at /);
    expect(await bufferPool()).toBe(poolBefore);
    expect(await leftovers(runId)).toEqual([]);
  });

  it('refuses a user without SET GLOBAL before creating anything, and PostgreSQL scenarios refuse mysql://', async () => {
    const user = `tunelab_r${randomBytes(4).toString('hex')}`;
    await checkQuery(`CREATE USER '${user}'@'%' IDENTIFIED BY 'pw'`);
    await checkQuery(`GRANT ALL ON \`tunelab\\_%\`.* TO '${user}'@'%'`);
    try {
      const runId = newRunId();
      const target = mysqlTargetAs(user, 'pw', '');
      await expect(runScenario({ scenario, target, params: TINY, repetitions: 1, runId })).rejects.toThrow(RunFailed);
      await expect(runScenario({ scenario, target, params: TINY, repetitions: 1, runId })).rejects.toThrow(
        /may not change the global variable innodb_buffer_pool_size.*nothing was changed or created/,
      );
      expect(await leftovers(runId)).toEqual([]);
    } finally {
      await checkQuery(`DROP USER IF EXISTS '${user}'@'%'`);
    }
    const vacuum = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-index-cleanup'));
    await expect(
      runScenario({ scenario: vacuum, target: TEST_MYSQL_URL, repetitions: 1, runId: newRunId() }),
    ).rejects.toThrow(UsageError);
  });
});
