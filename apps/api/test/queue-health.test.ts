/**
 * Readiness shows the job queue's tables from the server's statistics: cancelled jobs leave dead
 * rows in pg-boss's tables (autovacuum is off on the test server, so they stay until a VACUUM),
 * /readyz counts them and names the table with the most, and a VACUUM of it is seen there too.
 * Statistics reach the server's views within a second or so of a transaction: the test waits for
 * them (bounded), it does not time them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import type { QueueTables } from '@tunelab/results-db';
import { buildApp, type App } from '../src/index.ts';

describe('readiness shows the queue tables', () => {
  let app: App;
  let db: ResultsDb;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let operator = '';
  beforeAll(async () => {
    database = await createTestDatabase('tl_queue_health');
    db = await openResultsDb(database.url);
    await db.migrate();
    app = await buildApp({ resultsDb: db, migrate: false, fleet: { leaseSeconds: 10, pollMs: 100 } });
    await app.ready();
    operator = (await db.createRunner('ops', { kind: 'operator' })).token;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await database?.drop();
  });

  const queue = async () => {
    const res = await app.inject('/readyz');
    expect(res.statusCode).toBe(200);
    return res.json<{ queue: QueueTables }>().queue;
  };
  async function until(check: (q: QueueTables) => boolean): Promise<QueueTables> {
    let q = await queue();
    for (let i = 0; i < 150 && !check(q); i++) {
      await new Promise((r) => setTimeout(r, 100));
      q = await queue();
    }
    return q;
  }

  it('counts the dead rows cancelled jobs leave, names their table, and sees its VACUUM', async () => {
    const before = await queue();
    expect(before.tables).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) {
      const created = await app.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: { authorization: `Bearer ${operator}` },
        payload: { scenario: 'vacuum-index-cleanup', params: { rows: 200000 + i } },
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json<{ id: string }>().id;
      const cancelled = await app.inject({
        method: 'DELETE',
        url: `/v1/jobs/${id}`,
        headers: { authorization: `Bearer ${operator}` },
      });
      expect(cancelled.statusCode, cancelled.body).toBeLessThan(300);
    }
    const dead = await until((q) => q.deadRows >= before.deadRows + 20);
    expect(dead.deadRows).toBeGreaterThanOrEqual(before.deadRows + 20);
    expect(dead.mostDead?.deadRows).toBeGreaterThan(0);
    expect(dead.mostDead?.table).toMatch(/^tunelab_fleet\./);

    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    try {
      await c.query(`VACUUM ${dead.mostDead!.table.replace(/^([^.]+)\.(.+)$/, '"$1"."$2"')}`);
    } finally {
      await c.end();
    }
    const vacuumed = await until((q) => q.deadRows < dead.deadRows);
    expect(vacuumed.deadRows).toBeLessThan(dead.deadRows);
  });
});
