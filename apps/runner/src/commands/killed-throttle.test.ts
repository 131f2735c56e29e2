/**
 * A run that throttles a server of the user's (`--like-article` / `--envelope` on the local
 * MariaDB, `--target`) or runs a managed server inside an envelope, killed with SIGKILL (no exit
 * hook runs): what it changed on the host — the MariaDB process in the runner's blkio cgroup, its
 * shrunk buffer pool, the runner's cgroups — is put back by the next `tunelab` command of any kind
 * and by `tunelab cleanup`, from the ledger record written before the change; a throttle whose
 * runner stops renewing its lease (SIGSTOP) is undone while that runner still exists. Throttling
 * the server of `--target` needs `--throttle-target`.
 *
 * Every test restores what it may have left on the shared MariaDB in `afterEach` (the process back
 * in its own blkio cgroup, the buffer pool, its schemas), whatever the code under test did.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HostChangeRecord } from '../engine/host-changes.ts';
import { runPrefix } from '../engine/run-scenario.ts';
import { pidAlive } from '../engines/managed-postgresql/cluster/orphans.ts';
import { EXIT } from '../exit-codes.ts';
import { runTunelab, type CliResult } from '../test-support/cli.ts';
import { checkQuery, openCheckConnection, TEST_MYSQL_URL } from '../test-support/mysql.ts';
import { askMariadb, cgroupV1, envelopeTestHome, isRoot, localMariadbProcess } from '../test-support/envelope.ts';

const home = await envelopeTestHome('h42-killed-throttle-');
const { tmp } = home;
const baseEnv = {
  ...home.env,
  TUNELAB_STORAGE_TIER: 'ssd-like',
  TUNELAB_PROBE_HISTORY: path.join(tmp, 'probe-history.json'),
};
const can = isRoot && cgroupV1;
const BLKIO = '/sys/fs/cgroup/blkio';

let mariadb: { pid: number; cgroups: () => Promise<string> };
let cgroupsBefore = '';
let poolBefore = 0;
const blkioPathOf = (text: string) => /^\d+:blkio:(.*)$/m.exec(text)?.[1] ?? '/';
const bufferPool = async () => Number((await checkQuery('SELECT @@GLOBAL.innodb_buffer_pool_size AS b'))[0]?.b);
const runIds: string[] = [];
const children: number[] = [];

beforeAll(async () => {
  if (!can) return;
  mariadb = await localMariadbProcess();
  cgroupsBefore = await mariadb.cgroups();
  poolBefore = await bufferPool();
  await checkQuery('CREATE DATABASE IF NOT EXISTS h42_latency');
  await checkQuery('CREATE TABLE IF NOT EXISTS h42_latency.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(100))');
});

/** Whatever the code under test did or did not do, the shared MariaDB leaves this file as it came. */
afterEach(async () => {
  if (!can) return;
  for (const pid of children.splice(0)) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  const original = path.join(BLKIO, blkioPathOf(cgroupsBefore));
  const now = blkioPathOf(await mariadb.cgroups());
  if (now !== blkioPathOf(cgroupsBefore)) {
    await writeFile(path.join(original, 'cgroup.procs'), String(mariadb.pid));
    await rmdir(path.join(BLKIO, now)).catch(() => {});
  }
  if ((await bufferPool()) !== poolBefore) askMariadb(`SET GLOBAL innodb_buffer_pool_size = ${poolBefore}`);
  for (const id of runIds.splice(0))
    for (const r of await checkQuery(
      'SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?',
      [`${runPrefix(id)}%`],
    ))
      await checkQuery(`DROP DATABASE IF EXISTS \`${String(r.s)}\``);
});
afterAll(async () => {
  if (can) await checkQuery('DROP DATABASE IF EXISTS h42_latency');
});

/** 40 autocommit INSERTs on a fresh connection: milliseconds in all. */
async function insertLatencyMs(): Promise<number> {
  const conn = await openCheckConnection('h42_latency');
  try {
    const started = performance.now();
    for (let i = 0; i < 40; i++) await conn.query('INSERT INTO t (v) VALUES (?)', [`row ${i}`]);
    return performance.now() - started;
  } finally {
    await conn.end();
  }
}

/** Starts `tunelab ARGS`, and once its first unit measures sends `signal`; resolves with the child's pid and result. */
async function startAndSignal(args: string[], env: Record<string, string>, signal: 'SIGKILL' | 'SIGSTOP') {
  let pid = 0;
  let resolveSent: () => void = () => {};
  const sent = new Promise<void>((r) => (resolveSent = r));
  const done: Promise<CliResult> = runTunelab(args, env, (all, child) => {
    if (pid || !/repetition 1…/.test(all)) return;
    pid = child.pid!;
    children.push(pid);
    child.kill(signal);
    resolveSent();
  });
  await Promise.race([sent, done]);
  return { pid, done };
}

/** One block of InnoDB inserts into the shared MariaDB under `conditions`, throttling its process. */
function insertRunArgs(runId: string, conditions: string[]): string[] {
  return [
    'run',
    'innodb-compression-insert',
    '--target',
    TEST_MYSQL_URL,
    ...conditions,
    '--throttle-target',
    '--repetitions',
    '1',
    '--run-id',
    runId,
  ];
}
/** Enough single-threaded inserts that the run is still measuring when the test signals it. */
const SLOW_INSERTS = ['--param', 'rows=5000000', '--param', 'threads=1', '--param', 'sample_every_rows=1000'];

type Env = Record<string, string> & { TUNELAB_LEDGER_DIR: string };
const ledgerOf = async (env: Env) => readdir(env.TUNELAB_LEDGER_DIR).catch(() => [] as string[]);
/**
 * The ledger's host records: `host-….json`, not the `host-….json.PID.tmp` a renewal writes before
 * its rename (a 2 s lease renews every 0.5 s, and a listing can catch one), as the ledger's readers skip it.
 */
const hostRecordsOf = async (env: Env) =>
  (await ledgerOf(env)).filter((f) => f.startsWith('host-') && f.endsWith('.json'));
const schemasOf = async (runId: string) =>
  checkQuery('SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?', [
    `${runPrefix(runId)}%`,
  ]);

function newEnv(name: string, extra: Record<string, string> = {}): Env {
  return { ...baseEnv, TUNELAB_LEDGER_DIR: path.join(tmp, `ledger-${name}`), ...extra };
}

/** The state a SIGKILLed MariaDB run leaves, checked: MariaDB in the runner's cgroup, the host record. */
async function expectThrottledBy(runnerPid: number, env: Env) {
  const during = blkioPathOf(await mariadb.cgroups());
  expect(during).toMatch(new RegExp(`^/tunelab-envelope-${runnerPid}-[0-9a-f]+$`));
  const records = await hostRecordsOf(env);
  expect(records).toHaveLength(1);
  const record = JSON.parse(await readFile(path.join(env.TUNELAB_LEDGER_DIR, records[0]!), 'utf8')) as HostChangeRecord;
  expect(record.process.pid).toBe(mariadb.pid);
  expect(record.dirs).toEqual([path.join(BLKIO, during)]);
  // The original membership was recorded before the move.
  expect(record.process.cgroups.find((l) => l.controllers.includes('blkio'))?.path).toBe(blkioPathOf(cgroupsBefore));
  return { dir: path.join(BLKIO, during), record };
}

async function expectRestored(dir: string, runId: string, env: Env) {
  expect(await mariadb.cgroups()).toBe(cgroupsBefore);
  expect(existsSync(dir)).toBe(false);
  expect(await bufferPool()).toBe(poolBefore);
  expect(await schemasOf(runId)).toEqual([]);
  expect((await ledgerOf(env)).filter((f) => f.endsWith('.json'))).toEqual([]);
}

describe('a SIGKILLed run that throttled the local MariaDB', () => {
  // Skipped only without root or cgroup v1 (moving MariaDB into a cgroup needs both); CI runs as root on v1, so it runs there.
  it.skipIf(!can)(
    '--like-article: the next tunelab command of any kind (`tunelab scenarios`) moves MariaDB back, removes the cgroup and restores the buffer pool',
    async () => {
      const env = newEnv('like-article');
      const runId = randomUUID();
      runIds.push(runId);
      const before = await insertLatencyMs();
      const { pid, done } = await startAndSignal(
        insertRunArgs(runId, ['--like-article', '--like-article-size', '64MB']),
        env,
        'SIGKILL',
      );
      const r = await done;
      expect(pid, r.stderr).toBeGreaterThan(0);
      expect(r.stderr).toMatch(/throttled to 150 reads\/s, 150 writes\/s/);
      const { dir } = await expectThrottledBy(pid, env);
      const pool = await bufferPool();
      expect(pool).not.toBe(poolBefore); // the size the run chose, whatever the server had
      const throttled = await insertLatencyMs();

      const next = await runTunelab(['scenarios'], env);
      expect(next.code, next.stderr).toBe(EXIT.OK);
      expect(next.stderr).toContain(
        `moved process ${mariadb.pid} back to ${path.join(BLKIO, blkioPathOf(cgroupsBefore)).replace(/(.)\/$/, '$1')} and removed ${dir}`,
      );
      expect(next.stderr).toContain(`earlier run ${runId}`);
      expect(next.stderr).toContain(`restored innodb_buffer_pool_size = ${poolBefore}`);
      await expectRestored(dir, runId, env);
      const after = await insertLatencyMs();
      console.log(
        `40 autocommit INSERTs: ${before.toFixed(0)} ms before, ${throttled.toFixed(0)} ms after the SIGKILL (buffer pool ${pool} of ${poolBefore}), ${after.toFixed(0)} ms after \`tunelab scenarios\``,
      );
    },
    240_000,
  );

  // Skipped only without root or cgroup v1 (moving MariaDB into a cgroup needs both); CI runs as root on v1, so it runs there.
  it.skipIf(!can)(
    '--envelope: `tunelab cleanup` (no --target) puts back the cgroup and the buffer pool from the records',
    async () => {
      const env = newEnv('envelope');
      const runId = randomUUID();
      runIds.push(runId);
      const { pid, done } = await startAndSignal(
        insertRunArgs(runId, [
          '--envelope',
          'read-iops=150,write-iops=150',
          ...SLOW_INSERTS,
          '--param',
          `buffer_pool_mb=${poolBefore === 16 * 1024 * 1024 ? 32 : 16}`,
        ]),
        env,
        'SIGKILL',
      );
      const r = await done;
      expect(pid, r.stderr).toBeGreaterThan(0);
      const { dir } = await expectThrottledBy(pid, env);
      expect(await bufferPool()).not.toBe(poolBefore);
      const c = await runTunelab(['cleanup'], env);
      expect(c.code, c.stderr).toBe(EXIT.OK);
      expect(c.stdout).toContain(`moved process ${mariadb.pid} back`);
      expect(c.stdout).toContain(`restored innodb_buffer_pool_size = ${poolBefore}`);
      await expectRestored(dir, runId, env);
    },
    240_000,
  );

  // Skipped only without root or cgroup v1 (moving MariaDB into a cgroup needs both); CI runs as root on v1, so it runs there.
  it.skipIf(!can)(
    "a throttle's lease: a runner stopped with SIGSTOP stops renewing it, and once it ran out any tunelab command undoes the throttle though that runner still exists",
    async () => {
      const env = newEnv('lease', { TUNELAB_HOST_LEASE_S: '2' });
      const runId = randomUUID();
      runIds.push(runId);
      const { pid } = await startAndSignal(
        insertRunArgs(runId, ['--envelope', 'read-iops=150', ...SLOW_INSERTS]),
        env,
        'SIGSTOP',
      );
      expect(pid).toBeGreaterThan(0);
      const { dir, record } = await expectThrottledBy(pid, env);
      // Stopped, it renews nothing: wait until the recorded lease has run out (no guess at speed).
      const file = (await hostRecordsOf(env))[0]!;
      const expiresAt = () =>
        Date.parse(
          (JSON.parse(readFileSync(path.join(env.TUNELAB_LEDGER_DIR, file), 'utf8')) as HostChangeRecord).expiresAt,
        );
      while (expiresAt() > Date.now() - 100) await new Promise((res) => setTimeout(res, 200));
      expect(pidAlive(pid)).toBe(true);
      const next = await runTunelab(['scenarios'], env);
      expect(next.code, next.stderr).toBe(EXIT.OK);
      expect(next.stderr).toContain(`runner pid ${pid} still runs, but its lease ran out`);
      expect(record.runId).toBe(runId);
      expect(await mariadb.cgroups()).toBe(cgroupsBefore);
      expect(existsSync(dir)).toBe(false);
      expect(pidAlive(pid)).toBe(true);
      // The run itself ends here; its schemas and buffer pool go with `tunelab cleanup --target`.
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 50 && pidAlive(pid); i++) await new Promise((res) => setTimeout(res, 100));
      const c = await runTunelab(['cleanup', '--target', TEST_MYSQL_URL], env);
      expect(c.code, c.stderr).toBe(EXIT.OK);
      await expectRestored(dir, runId, env);
    },
    240_000,
  );

  it('throttling the server of --target needs --throttle-target, which names the cost (exit 2, nothing run)', async () => {
    const env = newEnv('consent');
    const r = await runTunelab(
      ['run', 'innodb-compression-insert', '--target', TEST_MYSQL_URL, '--envelope', 'read-iops=150'],
      env,
    );
    expect(r.code, r.stderr).toBe(EXIT.USAGE);
    expect(r.stderr).toContain(
      "tunelab: --envelope asks for reads 150 IOPS around the server of --target: the runner would move that server's own process into those limits for the whole run, so every client of it — not only this run — would get them until the run ends; give --throttle-target to accept that",
    );
    expect(await ledgerOf(env)).toEqual([]);
  });
});

describe('a SIGKILLed --server run inside an envelope', () => {
  // Skipped only without root or cgroup v1 (an envelope around the managed PostgreSQL server needs both); CI runs as root on v1, so it runs there.
  it.skipIf(!can)(
    '`tunelab cleanup` stops its server and removes its envelope cgroups',
    async () => {
      const env = newEnv('managed');
      const clusters = path.join(tmp, 'clusters');
      await mkdir(clusters, { recursive: true, mode: 0o755 });
      const { pid, done } = await startAndSignal(
        [
          'run',
          'vacuum-index-cleanup',
          '--server',
          '17',
          '--envelope',
          'memory=512MB,read-iops=150',
          '--param',
          'rows=200000',
          '--repetitions',
          '1',
          '--cluster-dir',
          clusters,
        ],
        env,
        'SIGKILL',
      );
      const r = await done;
      expect(pid, r.stderr).toBeGreaterThan(0);
      const mine = () =>
        ['memory', 'blkio'].flatMap((h) =>
          existsSync(`/sys/fs/cgroup/${h}`)
            ? readdirSync(`/sys/fs/cgroup/${h}`).filter((d) => d.startsWith(`tunelab-envelope-${pid}-`))
            : [],
        );
      expect(mine()).toHaveLength(2);
      const c = await runTunelab(['cleanup'], env);
      expect(c.code, c.stderr).toBe(EXIT.OK);
      expect(c.stdout).toMatch(/stopped its server/);
      expect(mine()).toEqual([]);
      expect(await readdir(clusters)).toEqual([]);
    },
    300_000,
  );
});
