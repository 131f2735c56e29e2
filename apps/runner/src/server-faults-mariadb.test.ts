/**
 * A run that changed a global setting (innodb_buffer_pool_size) loses
 * its server mid-stream. The CLI runs as a real child process against a real TCP proxy in front of
 * the test MariaDB; what is left (schemas, the buffer pool) is checked on a direct connection.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlDriver } from './engines/mysql/driver.ts';
import { cleanupRun, runPrefix } from './engine/run-scenario.ts';
import { DEFAULT_CLEANUP_RETRY_S } from './engine/stall.ts';
import { EXIT } from './exit-codes.ts';
import { runTunelab } from './test-support/cli.ts';
import { checkQuery, TEST_MYSQL_URL } from './test-support/mysql.ts';
import { startTcpProxy, type TcpProxy } from '@tunelab/test-support';

const bufferPool = async () => Number((await checkQuery('SELECT @@GLOBAL.innodb_buffer_pool_size AS b'))[0]?.b);
const schemasOf = async (runId: string) =>
  (
    await checkQuery(
      'SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE LEFT(SCHEMA_NAME, CHAR_LENGTH(?)) = ? ORDER BY 1',
      [runPrefix(runId), runPrefix(runId)],
    )
  ).map((r) => String(r.s));

let tmp: string;
let proxy: TcpProxy;
let poolBefore: number;
const runIds: string[] = [];
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-faults-maria-'));
  const u = new URL(TEST_MYSQL_URL);
  proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 3306) });
  poolBefore = await bufferPool();
});
afterAll(async () => {
  await proxy.close();
  for (const id of runIds) await cleanupRun(mysqlDriver, TEST_MYSQL_URL, id).catch(() => {});
  await rm(tmp, { recursive: true, force: true });
});

function newRun(extraEnv: Record<string, string> = {}) {
  const runId = randomUUID();
  runIds.push(runId);
  const env = {
    TUNELAB_RUNS_DIR: path.join(tmp, 'runs'),
    TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'),
    TUNELAB_LEDGER_DIR: path.join(tmp, `ledger-${runId.slice(0, 8)}`),
    ...extraEnv,
  };
  const args = ['run', 'innodb-compression-insert', '--target', proxy.url(TEST_MYSQL_URL), '--repetitions', '1'];
  // The run's pool must differ from the one found, or a pool left unrestored could not be seen (a
  // shared server may already run at the scenario's 16 MiB, left there by an interrupted run).
  const poolMb = poolBefore === 16 * 1024 * 1024 ? 32 : 16;
  for (const p of [
    'rows=50000000',
    'max_seconds=60',
    'threads=2',
    'batch_rows=50',
    'sample_every_rows=1000',
    `buffer_pool_mb=${poolMb}`,
  ])
    args.push('--param', p);
  return { runId, env, args: [...args, '--run-id', runId] };
}

/** Runs the CLI and calls `during` once, 400 ms after the first unit's stream starts. */
const runWith = (r: ReturnType<typeof newRun>, during: () => void) => {
  let fired = false;
  return runTunelab(r.args, r.env, (all) => {
    if (fired || !/1\/\d+ variant \S+ repetition 1…/.test(all)) return;
    fired = true;
    setTimeout(during, 400);
  });
};
const lastLine = (stderr: string) => stderr.trim().split('\n').at(-1) ?? '';

describe('a MariaDB server connection that dies mid-stream', () => {
  it('cut for 3 s: one sentence naming the stage, the buffer pool restored, no schema left', async () => {
    const r0 = newRun();
    const r = await runWith(r0, () => void proxy.cut().then(() => setTimeout(() => void proxy.restore(), 3_000)));
    expect(lastLine(r.stderr)).toMatch(
      /^tunelab: the run failed while measuring: .*; every database of this run was dropped$/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(EXIT.RUN_FAILED);
    expect(await schemasOf(r0.runId)).toEqual([]);
    expect(await bufferPool()).toBe(poolBefore);
  }, 120_000);

  it('cut for good: exit 5 naming the schemas and the buffer pool; `tunelab cleanup` puts both right', async () => {
    const r0 = newRun({ TUNELAB_CLEANUP_RETRY_S: '2' });
    const r = await runWith(r0, () => void proxy.cut());
    const left = await schemasOf(r0.runId);
    const poolDuring = await bufferPool();
    await proxy.restore();
    const sentence = lastLine(r.stderr);
    expect(r.code).toBe(EXIT.LEFT_BEHIND);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(left.length).toBeGreaterThan(0);
    expect(poolDuring).not.toBe(poolBefore);
    for (const s of left) {
      expect(sentence).toContain(s);
      expect(sentence).toContain(`DROP DATABASE IF EXISTS \`${s}\``);
    }
    expect(sentence).toContain(`innodb_buffer_pool_size was ${poolBefore}`);
    expect(sentence).toContain(`SET GLOBAL innodb_buffer_pool_size = ${poolBefore}`);
    console.log(`MariaDB permanent cut: ${left.length} schemas left, buffer pool ${poolDuring} (was ${poolBefore})`);

    // `tunelab cleanup` from the record: schemas dropped, buffer pool back. The server is back, so
    // the default retry budget, not the 2 s the run had to give up quickly (the machine may be loaded).
    const backEnv = { ...r0.env, TUNELAB_CLEANUP_RETRY_S: String(DEFAULT_CLEANUP_RETRY_S) };
    const c = await runTunelab(['cleanup', '--target', proxy.url(TEST_MYSQL_URL)], backEnv);
    expect(c.stdout).toContain(`earlier run ${r0.runId}`);
    expect(c.stdout).toContain(`restored innodb_buffer_pool_size = ${poolBefore}`);
    expect(c.code).toBe(EXIT.OK);
    expect(await schemasOf(r0.runId)).toEqual([]);
    expect(await bufferPool()).toBe(poolBefore);
  }, 180_000);
});
