import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from './open.ts';
import { isDatabaseUnavailable } from './index.ts';
import { createTestDatabase } from './testing.ts';

describe('a PostgreSQL connection dying while checked out', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  it('fails that transaction as "database unavailable" instead of crashing the process, and the pool recovers', async () => {
    const conn = await openConnection(database.url, { poolSize: 2 });
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const failed = conn.sql.transaction(async (q) => {
        const [row] = await q.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', []);
        // The server ends this backend while the transaction sits idle: the client sees the
        // connection close with no query in flight, which pg reports as an 'error' event.
        await admin.query('SELECT pg_terminate_backend($1)', [row!.pid]);
        await new Promise((r) => setTimeout(r, 300));
        await q.query('SELECT 1', []);
      });
      const err = await failed.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).not.toBeNull();
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(await conn.sql.query<{ one: number }>('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
      expect(await conn.sql.transaction((q) => q.query<{ two: number }>('SELECT 2 AS two', []))).toEqual([{ two: 2 }]);
    } finally {
      await admin.end();
      await conn.close();
    }
  });
});
