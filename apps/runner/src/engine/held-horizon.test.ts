import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../engines/postgresql/driver.ts';
import type { DatabaseSession } from '../engines/driver.ts';
import { TEST_PG_URL, withClient } from '../test-support/pg.ts';
import { heldBackTuples } from './measure-unit.ts';

// A database of this file's own, and a holder that takes a snapshot but no transaction id: its
// xmin holds back the horizon of its own database only (PostgreSQL 14+), so no other test file's
// VACUUM is touched. (A holder with an xid would also enter every other database's VACUUM FULL
// snapshot — the very thing that held back run-scenario.test's 2-1 in a CI run.)
const db = `tunelab_held_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
const dbUrl = () => {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${db}`;
  return u.toString();
};

let holder: pg.Client;
let session: DatabaseSession;

beforeAll(async () => {
  await withClient(TEST_PG_URL, (c) => c.query(`CREATE DATABASE ${db}`));
  holder = new pg.Client({ connectionString: dbUrl() });
  await holder.connect();
  session = await postgresDriver.openDatabase(TEST_PG_URL, db, 'tunelab-held-horizon-test');
});
afterAll(async () => {
  await session?.close();
  await holder?.end();
  await withClient(TEST_PG_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
});

/** 3,000 rows deleted while a repeatable-read transaction opened before the delete is (or is not) still open. */
async function deleteAndVacuum(vacuum: string, hold: boolean) {
  await session.exec(
    'DROP TABLE IF EXISTS t; CREATE TABLE t (a int PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 3000)',
  );
  if (hold) await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1');
  try {
    await session.exec('DELETE FROM t');
    session.drainMessages();
    await session.exec(vacuum);
    return session.drainMessages();
  } finally {
    if (hold) await holder.query('COMMIT');
  }
}

/** Transaction ids other backends (any database of the server) hold at this moment. */
async function otherXids(): Promise<string[]> {
  const { rows } = await holder.query<{ xid: string }>(
    'SELECT backend_xid::text AS xid FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()',
  );
  return rows.map((r) => r.xid);
}

describe('a VACUUM whose dead tuples another transaction still needs', () => {
  for (const vacuum of ['VACUUM (VERBOSE) t', 'VACUUM (FULL, VERBOSE) t']) {
    it(`${vacuum}: the server's words say how many were held back, and the runner reads them`, async () => {
      const messages = await deleteAndVacuum(vacuum, true);
      expect(heldBackTuples(messages)).toBe(3000);
    });
    it(`${vacuum}: nothing held back once that transaction has ended`, async () => {
      // VACUUM FULL's own snapshot takes in every transaction id running in the cluster, so a
      // write transaction of another test file (another database, same server) that began before
      // our DELETE holds its rows back too. Such a round proves nothing; it is repeated, and only
      // a round with no other transaction id running from before the DELETE to after the VACUUM
      // is held to 0.
      const deadline = Date.now() + 120_000;
      for (;;) {
        const before = await otherXids();
        const messages = await deleteAndVacuum(vacuum, false);
        const after = await otherXids();
        expect(messages.length).toBeGreaterThan(0);
        const shared = before.filter((x) => after.includes(x));
        if (shared.length === 0 || Date.now() > deadline) {
          expect(heldBackTuples(messages)).toBe(0);
          return;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }, 150_000);
  }

  it('keeps the DETAIL line with its message, as psql prints it', async () => {
    const messages = await deleteAndVacuum('VACUUM (FULL, VERBOSE) t', true);
    expect(messages.map((m) => m.message).join('\n')).toMatch(
      /\nDETAIL: {2}3000 dead row versions cannot be removed yet/,
    );
  });
});
