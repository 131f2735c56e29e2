/**
 * Ownership of leftovers: only runs this machine recorded, whose process is gone, on the same
 * server, are cleaned up — never a live run's databases, never another run's.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../engines/postgresql/driver.ts';
import { databasesWithPrefix, TEST_PG_URL } from '../test-support/pg.ts';
import { cleanupRun } from './connect.ts';
import { createLedger, serverKey, sweepAbandoned } from './leftovers.ts';
import type { RunRecord } from './types.ts';
import { runPrefix } from './plan.ts';

let dir: string;
const ids = { dead: randomUUID(), live: randomUUID(), unrecorded: randomUUID(), otherServer: randomUUID() };
/** A pid that surely belongs to no process any more: a child that already exited. */
const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;

async function createDb(name: string) {
  const c = new pg.Client({ connectionString: TEST_PG_URL });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE "${name}"`);
  } finally {
    await c.end();
  }
}

// A server that answers gets all the time a busy machine needs: on PostgreSQL 15 every DROP
// DATABASE waits for a forced checkpoint, which took over 10 s in a CI run beside the other
// tests (the budget's own behaviour is the away server's test below).
const sweepReachable = (ledger: ReturnType<typeof createLedger>) =>
  sweepAbandoned(ledger, postgresDriver, TEST_PG_URL, 120_000, 120_000);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tunelab-ledger-'));
  for (const id of Object.values(ids)) await createDb(`${runPrefix(id)}tpl`);
  const ledger = createLedger(dir);
  for (const id of [ids.dead, ids.live, ids.otherServer])
    await ledger.begin(
      id,
      id === ids.otherServer ? 'postgres://postgres@127.0.0.2:5999/postgres' : TEST_PG_URL,
      () => {},
    );
  // The dead and other-server runs' processes are gone; the live one is this test process.
  for (const id of [ids.dead, ids.otherServer]) {
    const file = path.join(dir, `${id}.json`);
    const record = JSON.parse(await readFile(file, 'utf8')) as RunRecord;
    await writeFile(file, JSON.stringify({ ...record, pid: deadPid }));
  }
});
afterAll(async () => {
  for (const id of Object.values(ids)) await cleanupRun(postgresDriver, TEST_PG_URL, id);
  await rm(dir, { recursive: true, force: true });
});

describe('the ledger of runs in flight', () => {
  it('one server however its URL is spelt', () => {
    expect(serverKey('postgres://a@localhost/x')).toBe(serverKey('postgresql://b:pw@127.0.0.1:5432/y'));
    expect(serverKey('mysql://root@127.0.0.1/test')).toBe('mysql://127.0.0.1:3306');
    expect(serverKey('postgres://127.0.0.1:5433/x')).not.toBe(serverKey('postgres://127.0.0.1:5432/x'));
  });

  it("cleans up only the recorded runs of finished processes on this server; never a live run's or an unrecorded one", async () => {
    const ledger = createLedger(dir);
    const { swept } = await sweepReachable(ledger);
    expect(swept.map((s) => s.record.runId)).toEqual([ids.dead]);
    expect(swept[0]!.report.dropped).toEqual([`${runPrefix(ids.dead)}tpl`]);
    expect(await databasesWithPrefix(runPrefix(ids.dead))).toEqual([]);
    for (const id of [ids.live, ids.unrecorded, ids.otherServer])
      expect(await databasesWithPrefix(runPrefix(id))).toEqual([`${runPrefix(id)}tpl`]);
    // The clean run's record is gone; the live and other-server ones stay.
    expect((await readdir(dir)).sort()).toEqual([`${ids.live}.json`, `${ids.otherServer}.json`].sort());
  });

  it("a run whose clean-up gave up is cleaned up by the next sweep though its process (a long-lived agent's) still lives; one in flight is not", async () => {
    const own = await mkdtemp(path.join(os.tmpdir(), 'tunelab-ledger-own-'));
    const finished = randomUUID();
    const running = randomUUID();
    try {
      for (const id of [finished, running]) await createDb(`${runPrefix(id)}tpl`);
      const ledger = createLedger(own);
      for (const id of [finished, running]) await ledger.begin(id, TEST_PG_URL, () => {});
      // The finished run's clean-up could not reach the server: its record stays, naming what is left.
      await ledger.finish(finished, { dropped: [], left: [`${runPrefix(finished)}tpl`], globalsLeft: null });
      const { swept } = await sweepReachable(ledger);
      expect(swept.map((s) => s.record.runId)).toEqual([finished]);
      expect(await databasesWithPrefix(runPrefix(finished))).toEqual([]);
      expect(await databasesWithPrefix(runPrefix(running))).toEqual([`${runPrefix(running)}tpl`]);
      expect(await readdir(own)).toEqual([`${running}.json`]);
    } finally {
      for (const id of [finished, running]) await cleanupRun(postgresDriver, TEST_PG_URL, id);
      await rm(own, { recursive: true, force: true });
    }
  });
  it('stops at the first run it cannot clean up (the server away): the others are not tried and keep their records', async () => {
    const own = await mkdtemp(path.join(os.tmpdir(), 'tunelab-ledger-away-'));
    // A port nothing listens on: the server is away.
    const away = `postgres://postgres@127.0.0.1:${await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const a = srv.address();
        srv.close(() => resolve(typeof a === 'object' && a ? a.port : 1));
      });
    })}/postgres`;
    try {
      const ledger = createLedger(own);
      const runs = [randomUUID(), randomUUID(), randomUUID()];
      for (const id of runs) {
        await ledger.begin(id, away, () => {});
        await ledger.finish(id, { dropped: [], left: [`${runPrefix(id)}tpl`], globalsLeft: null });
      }
      const { swept, notTried } = await sweepAbandoned(ledger, postgresDriver, away, 500, 2_000);
      expect(swept).toHaveLength(1);
      expect(swept[0]!.report.left.length).toBeGreaterThan(0);
      expect(notTried).toBe(2);
      expect((await readdir(own)).sort()).toEqual(runs.map((id) => `${id}.json`).sort());
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });
});
