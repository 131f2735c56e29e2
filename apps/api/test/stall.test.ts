/**
 * The results database's connections dying silently (no FIN, no RST — a
 * network cut, a stalled proxy). A TCP proxy in front of PostgreSQL stops forwarding without
 * closing anything, then heals. The API must answer 503 + Retry-After within its database
 * timeout while the stall lasts, and serve again within seconds once the network is back, with
 * no server session left "idle in transaction".
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clone, FIXTURE, post, startApiThroughProxy } from './helpers.ts';

const STATEMENT_MS = 1000;
const CONNECT_MS = 1000;
/** The fleet queue's (pg-boss's) client deadline: short here, so that a close after a stall is quick. */
const QUEUE_QUERY_MS = 3000;

describe('results database connections dying silently', () => {
  let api: Awaited<ReturnType<typeof startApiThroughProxy>>;
  let database: typeof api.database;
  let proxy: typeof api.proxy;
  let url: string;
  let token: string;

  beforeAll(async () => {
    api = await startApiThroughProxy('stall', {
      timeouts: { statementMs: STATEMENT_MS, connectMs: CONNECT_MS, queueQueryMs: QUEUE_QUERY_MS },
    });
    ({ database, proxy, url, token } = api);
  });
  afterAll(() => api?.close());

  async function sessionsIdleInTransaction() {
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    try {
      const r = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state LIKE 'idle in transaction%'`,
        [database.name],
      );
      return r.rows[0]!.n;
    } finally {
      await c.end();
    }
  }

  it('answers 503 within its timeout during the stall and heals within seconds after it', async () => {
    const body = (startedAt: string) => {
      const d = clone(FIXTURE);
      d.startedAt = startedAt;
      d.finishedAt = new Date(Date.parse(startedAt) + 60_000).toISOString();
      return d;
    };
    // Warm the pool: every pooled connection is open when the network stalls.
    expect((await post(url, token, body('2026-11-22T05:00:00.000Z'), { 'idempotency-key': 'before' })).status).toBe(
      201,
    );
    await Promise.all(Array.from({ length: 4 }, () => fetch(`${url}/v1/runs`)));

    proxy.stall();
    const started = performance.now();
    const during = await Promise.all([
      post(url, token, body('2026-11-22T06:00:00.000Z'), { 'idempotency-key': 'during' }),
      // A new scenario version: the slow path, inside a transaction.
      post(
        url,
        token,
        { ...body('2026-11-22T06:10:00.000Z'), scenario: { ...FIXTURE.scenario, version: 'f'.repeat(64) } },
        { 'idempotency-key': 'during-tx' },
      ),
      ...Array.from({ length: 6 }, () => fetch(`${url}/v1/runs`)),
      fetch(`${url}/v1/comparisons`),
    ]);
    const elapsed = performance.now() - started;
    for (const res of during) {
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toMatchObject({ status: 503, requestId: expect.any(String) });
    }
    // statement 1 s (+0.5 s client margin) or connect 1 s, a queue of waiters at most twice over.
    expect(elapsed).toBeLessThan(3 * (STATEMENT_MS + 500 + CONNECT_MS));
    expect((await fetch(`${url}/readyz`)).status).toBe(503);

    proxy.heal();
    const healed = performance.now();
    let list = 0;
    while (list !== 200 && performance.now() - healed < 10_000) {
      list = (await fetch(`${url}/v1/runs`)).status;
      if (list !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    const healMs = performance.now() - healed;
    expect(list).toBe(200);
    expect(healMs).toBeLessThan(5000);
    console.log(`stall: 503s after ${elapsed.toFixed(0)} ms, healed in ${healMs.toFixed(0)} ms`);
    // Everything works again, on connections that are all fresh or healthy.
    for (let i = 0; i < 8; i++) expect((await fetch(`${url}/v1/runs`)).status).toBe(200);
    const retry = await post(url, token, body('2026-11-22T06:00:00.000Z'), { 'idempotency-key': 'during' });
    expect([200, 201]).toContain(retry.status);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // Sessions the stall left inside a transaction are ended by the server (idle_in_transaction_session_timeout).
    let idle = await sessionsIdleInTransaction();
    for (let i = 0; i < 30 && idle > 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      idle = await sessionsIdleInTransaction();
    }
    expect(idle).toBe(0);
  });
});

describe('the fleet queue through a silent stall', () => {
  it('a pg-boss statement sent into the stall ends at its deadline: the API closes once the network is back', async () => {
    // A 10 s lease: pg-boss's supervisor and monitor query every 2 s.
    const api = await startApiThroughProxy(
      'stall-fleet',
      { timeouts: { statementMs: STATEMENT_MS, connectMs: CONNECT_MS, queueQueryMs: QUEUE_QUERY_MS } },
      { fleet: { leaseSeconds: 10 } },
    );
    let closing: Promise<void> | undefined;
    try {
      expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
      // Stalled until pg-boss has sent a statement of its schema into the stall (a condition:
      // its next supervise tick), then healed. That statement's answer never comes.
      let sent!: () => void;
      const queueStatementSent = new Promise<void>((r) => (sent = r));
      api.proxy.stall();
      api.proxy.watch((chunk) => {
        if (chunk.includes('tunelab_fleet')) sent();
      });
      await queueStatementSent;
      api.proxy.watch(undefined);
      api.proxy.heal();
      expect((await fetch(`${api.url}/v1/runs`)).status).toBe(200);
      // Before the deadline the pool's close waited for that connection for ever (the test's
      // timeout was the only end); now it ends once the statement gives up (QUEUE_QUERY_MS).
      const started = performance.now();
      closing = api.close();
      await closing;
      console.log(`stall-fleet: the API closed ${(performance.now() - started).toFixed(0)} ms after the heal`);
    } finally {
      if (!closing) await api.close();
    }
  });
});
