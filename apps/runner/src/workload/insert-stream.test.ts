import { randomBytes } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminSession, DatabaseSession } from '../engines/driver.ts';
import { mysqlDriver } from '../engines/mysql/driver.ts';
import { guardSession } from '../engine/stall.ts';
import { probeStorageOf } from '../probe/hardware.ts';
import { createOsSampler } from '../probe/os-sampler.ts';
import { checkQuery, TEST_MYSQL_URL } from '../test-support/mysql.ts';
import { rowOf, runInsertStream, tailRate } from './insert-stream.ts';

const tag = randomBytes(4).toString('hex');
const db = `tunelab_s${tag}_stream`;
const app = `tunelab-stream-${tag}`;
let admin: AdminSession;
let monitor: DatabaseSession;

beforeAll(async () => {
  admin = await mysqlDriver.openAdmin(TEST_MYSQL_URL, app);
  await admin.createDatabase(db);
  monitor = await mysqlDriver.openDatabase(TEST_MYSQL_URL, db, app);
});
afterAll(async () => {
  await monitor.close();
  await admin.dropDatabase(db);
  await admin.close();
});

const table = (name: string, options: string) =>
  monitor.exec(
    `CREATE TABLE ${name} (NO int NOT NULL AUTO_INCREMENT PRIMARY KEY, EMAIL varchar(128), NAME varchar(32) NOT NULL) ENGINE=InnoDB ${options} PARTITION BY KEY() PARTITIONS 3`,
  );

describe('insert stream', () => {
  it('inserts exactly the deterministic rows from T connections and samples the counters against rows', async () => {
    await table('test', 'ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4');
    const dataDir = await admin.dataDirectory();
    const os = createOsSampler(dataDir ? (await probeStorageOf(dataDir)).device : null);
    const seen: number[] = [];
    const r = await runInsertStream({
      table: 'test',
      rows: 6000,
      maxSeconds: 60,
      threads: 3,
      batchRows: 100,
      sampleEveryRows: 1000,
      openSession: () => mysqlDriver.openDatabase(TEST_MYSQL_URL, db, app),
      monitor,
      os,
      onSample: (s) => seen.push(s.rows),
    });
    expect(r.rows).toBe(6000);
    expect(r.stoppedBy).toBe('rows');
    const [count] = await checkQuery('SELECT COUNT(*) AS n, COUNT(DISTINCT EMAIL) AS e FROM test', [], db);
    expect(Number(count?.n)).toBe(6000);
    expect(Number(count?.e)).toBe(6000);
    // The same rows every run, whichever connection inserted them.
    const some = await checkQuery(
      'SELECT EMAIL, NAME FROM test WHERE EMAIL IN (?, ?)',
      [rowOf(0)[0], rowOf(5999)[0]],
      db,
    );
    expect(some.map((x) => [x.EMAIL, x.NAME]).sort()).toEqual([rowOf(0), rowOf(5999)].sort());

    expect(seen).toEqual(r.samples.map((s) => s.rows));
    // A sample at the first 1,000-row point and one at the end; in between one per 1,000-row point
    // the writers passed while no sample was being read (the writers never wait for the sampler: on
    // a loaded machine one read of the counters can span two points, so the count is not fixed).
    expect(r.samples.length).toBeGreaterThanOrEqual(2);
    expect(r.samples.length).toBeLessThanOrEqual(6);
    expect(r.samples[0]!.rows).toBeGreaterThanOrEqual(1000);
    expect(r.samples[0]!.rows).toBeLessThan(6000);
    expect(r.samples[r.samples.length - 1]!.rows).toBe(6000);
    for (const [i, s] of r.samples.entries()) {
      // Each sample in a later 1,000-row block than the one before: one sample per point at most.
      if (i > 0) expect(Math.floor(s.rows / 1000)).toBeGreaterThan(Math.floor(r.samples[i - 1]!.rows / 1000));
      expect(s.rowsPerS).toBeGreaterThan(0);
      expect(s.dataWrittenBytes).toBeGreaterThanOrEqual(0);
      if (process.platform === 'linux') {
        expect(s.cpuUserPct).not.toBeNull();
        expect(s.cpuUserPct! + s.cpuSystemPct! + s.cpuIowaitPct!).toBeLessThanOrEqual(100.001);
      }
    }
    // A compressed table compresses pages; the counters are server-wide, so at least ours.
    expect(r.totals.compressOps).toBeGreaterThan(0);
    expect(r.totals.compressOpsOk).toBeLessThanOrEqual(r.totals.compressOps);
    expect(r.rowsPerS).toBeGreaterThan(0);
    expect(r.tailRowsPerS).toBeGreaterThan(0);
    expect(r.clientCpu.userSeconds).toBeGreaterThan(0);
  });

  it('stops at max_seconds, and a failing insert ends the stream with its error', async () => {
    await table('t2', 'ROW_FORMAT=DYNAMIC');
    const open = () => mysqlDriver.openDatabase(TEST_MYSQL_URL, db, app);
    const r = await runInsertStream({
      table: 't2',
      rows: 10_000_000,
      maxSeconds: 0.5,
      threads: 2,
      batchRows: 50,
      sampleEveryRows: 100_000,
      openSession: open,
      monitor,
    });
    expect(r.stoppedBy).toBe('max_seconds');
    expect(r.rows).toBeLessThan(10_000_000);
    expect(r.samples.at(-1)?.rows).toBe(r.rows);
    const [count] = await checkQuery('SELECT COUNT(*) AS n FROM t2', [], db);
    expect(Number(count?.n)).toBe(r.rows);
    await expect(
      runInsertStream({
        table: 'no_such_table',
        rows: 100,
        maxSeconds: 10,
        threads: 2,
        batchRows: 10,
        sampleEveryRows: 50,
        openSession: open,
        monitor,
      }),
    ).rejects.toThrow(/no_such_table/);
  });

  it('16 guarded connections (as a run guards them) put one abort listener on the run signal, not one per statement in flight', async () => {
    await table('t3', 'ROW_FORMAT=DYNAMIC');
    const run = new AbortController();
    const guard = { stallMs: 60_000, signal: run.signal };
    const listeners = () => getEventListeners(run.signal, 'abort').length;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, listeners())), 1);
    try {
      const r = await runInsertStream({
        table: 't3',
        rows: 8000,
        maxSeconds: 60,
        threads: 16,
        batchRows: 10,
        sampleEveryRows: 500,
        openSession: async () => guardSession(await mysqlDriver.openDatabase(TEST_MYSQL_URL, db, app), guard),
        monitor: guardSession(monitor, guard),
        signal: run.signal,
        onSample: () => (most = Math.max(most, listeners())),
      });
      expect(r.rows).toBe(8000);
    } finally {
      clearInterval(watch);
      process.off('warning', onWarning);
    }
    expect(most).toBeGreaterThan(0); // the calls were guarded
    expect(most).toBeLessThanOrEqual(1);
    expect(listeners()).toBe(0);
    await new Promise((r) => setImmediate(r)); // Node emits its warning on the next tick
    expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
  });

  it('computes the tail rate over the last 20 % of rows', () => {
    // 0–800 rows in 8 s (100/s), then 800–1000 in 4 s (50/s).
    expect(
      tailRate([
        [100, 1],
        [400, 4],
        [800, 8],
        [900, 10],
        [1000, 12],
      ]),
    ).toBe(50);
    expect(tailRate([])).toBe(0);
  });
});
