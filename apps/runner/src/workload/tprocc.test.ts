import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../drivers/postgres.ts';
import { TEST_PG_URL } from '../test-support/pg.ts';
import { createTproccDatabase, databaseUrl, dropDatabase } from '../test-support/tprocc-db.ts';
import {
  FLUSH_SQL,
  MIXES,
  mixPicker,
  runTprocc,
  TX_TYPES,
  WorkloadInputError,
  type TproccOptions,
  type TproccResult,
} from './tprocc.ts';

/** Sessions of the runner's PostgreSQL driver on the database `url` names (as the workload step gets them). */
const sessionsOn = (url: string, app: string) => () =>
  postgresDriver.openDatabase(url, decodeURIComponent(new URL(url).pathname.slice(1)), app);

const suffix = `${process.pid}_${Date.now().toString(36)}`;
const DB = `tunelab_t_tprocc_${suffix}`;
const APP = `tunelab-t-tprocc-${suffix}`;
let url = '';

async function query<T extends pg.QueryResultRow>(
  connectionString: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    return (await c.query<T>(sql, values)).rows;
  } finally {
    await c.end();
  }
}
const backendsOf = async (app: string) =>
  (
    await query<{ n: number }>(
      TEST_PG_URL,
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [app],
    )
  )[0]?.n;

type Counters = { commits: number; rollbacks: number; nextOrderIds: number };

/**
 * Reads the server's own counters at the window's edges, independently of the driver: xact
 * counters from a connection to another database (its queries do not count in this one), the
 * district order counter from one in this database whose two transactions per read are flushed
 * before the xact counters are read.
 */
async function withServerCounters(
  db: string,
  run: (hooks: Pick<TproccOptions, 'onWindowStart' | 'onWindowEnd'>) => Promise<TproccResult>,
) {
  const stats = new pg.Client({ connectionString: TEST_PG_URL });
  const local = new pg.Client({ connectionString: databaseUrl(TEST_PG_URL, db) });
  await stats.connect();
  await local.connect();
  const read = async (): Promise<Counters> => {
    const next = await local.query<{ s: string }>('SELECT sum(d_next_o_id)::text AS s FROM district');
    await local.query(FLUSH_SQL);
    const x = await stats.query<{ c: string; r: string }>(
      'SELECT xact_commit::text AS c, xact_rollback::text AS r FROM pg_stat_database WHERE datname = $1',
      [db],
    );
    return { commits: Number(x.rows[0]?.c), rollbacks: Number(x.rows[0]?.r), nextOrderIds: Number(next.rows[0]?.s) };
  };
  try {
    let before: Counters | undefined;
    let after: Counters | undefined;
    const result = await run({
      onWindowStart: async () => void (before = await read()),
      onWindowEnd: async () => void (after = await read()),
    });
    if (!before || !after) throw new Error('the window hooks were not called');
    return { result, before, after };
  } finally {
    await stats.end();
    await local.end();
  }
}

beforeAll(async () => {
  url = await createTproccDatabase(TEST_PG_URL, DB, 1);
});
afterAll(async () => {
  await dropDatabase(TEST_PG_URL, DB);
});

describe('mix', () => {
  it('draws transaction types in the declared proportions', () => {
    for (const mix of ['hammerdb', 'tpcc'] as const) {
      const pick = mixPicker(mix);
      const n = 200_000;
      const seen = Object.fromEntries(TX_TYPES.map((t) => [t, 0]));
      for (let i = 0; i < n; i++) seen[pick()]! += 1;
      const total = TX_TYPES.reduce((s, t) => s + MIXES[mix][t], 0);
      // 200,000 draws: one standard deviation of a share is below 0.12 percentage points.
      for (const t of TX_TYPES)
        expect(Math.abs(seen[t]! / n - MIXES[mix][t] / total), `${mix} ${t}`).toBeLessThan(0.006);
    }
  });
});

describe('TPROC-C driver against PostgreSQL (1 warehouse)', () => {
  it('counts exactly what the server counts, and stops cleanly', async () => {
    const {
      result: r,
      before,
      after,
    } = await withServerCounters(DB, (hooks) =>
      runTprocc({
        openSession: sessionsOn(url, APP),
        vus: 2,
        warehouses: 1,
        mix: 'tpcc',
        rampUpSeconds: 0.5,
        durationSeconds: 3,
        ...hooks,
      }),
    );
    expect(r.totals.transactions).toBeGreaterThan(100);
    // Every transaction the users ended in the window, plus the monitor's two per read.
    expect(after.commits + after.rollbacks - (before.commits + before.rollbacks)).toBe(r.attempts + 2);
    expect(after.rollbacks - before.rollbacks).toBe(
      r.totals.rollbacks + r.totals.deadlocks + r.totals.serializationFailures + r.totals.errors,
    );
    // Committed new orders are exactly the districts' order-id advance; rolled-back ones leave none.
    expect(after.nextOrderIds - before.nextOrderIds).toBe(r.perType.neword.transactions - r.perType.neword.rollbacks);
    expect(r.perType.payment.rollbacks).toBe(0);
    expect(r.perSecond).toHaveLength(3);
    expect(r.perSecond.reduce((a, b) => a + b, 0)).toBe(r.totals.transactions);
    // The tpcc mix: new-order 45 %, payment 43 % (loose bounds: a few hundred draws).
    expect(r.perType.neword.transactions / r.totals.transactions).toBeGreaterThan(0.3);
    expect(r.perType.payment.transactions / r.totals.transactions).toBeGreaterThan(0.3);
    for (const t of TX_TYPES) {
      const l = r.perType[t].latency;
      if (r.perType[t].transactions === 0) continue;
      expect(l).not.toBeNull();
      expect(l!.p50).toBeGreaterThan(0);
      expect(l!.p50).toBeLessThanOrEqual(l!.p95);
      expect(l!.p95).toBeLessThanOrEqual(l!.p99);
      expect(l!.p99).toBeLessThanOrEqual(l!.max * 1.001);
    }
    expect(await backendsOf(APP)).toBe(0);
  });

  it('a new order rolled back on an unused item leaves nothing behind and is no error', async () => {
    const r = await runTprocc({
      openSession: sessionsOn(url, APP),
      vus: 1,
      warehouses: 1,
      rampUpSeconds: 0,
      durationSeconds: 1,
      mix: 'tpcc',
    });
    // Rollbacks are counted in their own column, never as errors.
    expect(r.totals.errors).toBe(0);
    const [row] = await query<{ n: number }>(
      url,
      'SELECT count(*)::int AS n FROM orders WHERE o_id > 3000 AND o_ol_cnt <> (SELECT count(*) FROM order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id)',
    );
    // No order survives without all of its lines: the rollback undid the whole transaction.
    expect(row?.n).toBe(0);
  });

  it('counts and retries deadlocks and serialization failures without failing the run', async () => {
    // A copy whose stock-level raises the two retryable errors half of the time.
    const copy = `${DB}_retry`;
    await query(TEST_PG_URL, `CREATE DATABASE ${copy} TEMPLATE ${DB}`);
    try {
      await query(
        databaseUrl(TEST_PG_URL, copy),
        `CREATE OR REPLACE FUNCTION slev(p_w_id integer, p_d_id integer, p_threshold integer) RETURNS integer LANGUAGE plpgsql AS $$
         BEGIN
           IF random() < 0.25 THEN RAISE EXCEPTION 'injected' USING ERRCODE = '40P01'; END IF;
           IF random() < 0.25 THEN RAISE EXCEPTION 'injected' USING ERRCODE = '40001'; END IF;
           RETURN 0;
         END $$`,
      );
      const r = await runTprocc({
        openSession: sessionsOn(databaseUrl(TEST_PG_URL, copy), APP),
        vus: 2,
        warehouses: 1,
        rampUpSeconds: 0,
        durationSeconds: 1.5,
        mix: 'hammerdb',
      });
      const s = r.perType.slev;
      expect(s.transactions).toBeGreaterThan(0);
      expect(s.deadlocks).toBeGreaterThan(0);
      expect(s.serializationFailures).toBeGreaterThan(0);
      expect(s.retries).toBe(s.deadlocks + s.serializationFailures);
      expect(s.errors).toBe(0);
      expect(r.totals.deadlocks).toBeGreaterThanOrEqual(s.deadlocks);
    } finally {
      await dropDatabase(TEST_PG_URL, copy);
    }
  });

  it('stops every user when aborted mid-window and leaves no backend behind', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('interrupted by the test')), 1500);
    await expect(
      runTprocc({
        openSession: sessionsOn(url, APP),
        vus: 3,
        warehouses: 1,
        rampUpSeconds: 0.5,
        durationSeconds: 60,
        signal: controller.signal,
      }),
    ).rejects.toThrow('interrupted by the test');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await backendsOf(APP)).toBe(0);
  });

  it('ends with the error when a user loses its connection', async () => {
    const app = `${APP}-lost`;
    setTimeout(
      () =>
        void query(
          TEST_PG_URL,
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 LIMIT 1',
          [app],
        ),
      1000,
    );
    await expect(
      runTprocc({
        openSession: sessionsOn(url, app),
        vus: 2,
        warehouses: 1,
        rampUpSeconds: 0,
        durationSeconds: 30,
      }),
    ).rejects.toThrow(/terminat/i);
    expect(await backendsOf(app)).toBe(0);
  });

  it('refuses bad input before connecting', async () => {
    const base = { openSession: sessionsOn(url, APP), warehouses: 1, rampUpSeconds: 0, durationSeconds: 1 };
    await expect(runTprocc({ ...base, vus: 0 })).rejects.toThrow(WorkloadInputError);
    await expect(runTprocc({ ...base, vus: 1.5 })).rejects.toThrow(/vus must be an integer/);
    await expect(runTprocc({ ...base, vus: 1, warehouses: 0 })).rejects.toThrow(/warehouses/);
    await expect(runTprocc({ ...base, vus: 1, durationSeconds: 0 })).rejects.toThrow(/durationSeconds/);
    expect(await backendsOf(APP)).toBe(0);
  });
});
