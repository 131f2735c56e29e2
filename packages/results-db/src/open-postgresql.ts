/** The results database on a PostgreSQL server: a pg pool with deadlines, Prisma on its adapter. */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { applyMigrations, type ScriptRunner } from './migrate.ts';
import { isDatabaseUnavailable } from './errors.ts';
import { DEFAULT_DB_TIMEOUTS, type Connection, type OpenOptions, type SqlRunner } from './connection.ts';

/** Migrations may build indexes on large tables: an hour, not the request deadline. */
const MIGRATION_QUERY_TIMEOUT_MS = 3_600_000;

export async function openPostgresql(url: string, options: OpenOptions = {}): Promise<Connection> {
  const t = { ...DEFAULT_DB_TIMEOUTS, ...options.timeouts };
  // The connect, idle and keepalive deadlines both pools share: the results pool and the fleet
  // queue's own (pg-boss's, `queueTarget` below).
  const connectionDeadlines = {
    connectionTimeoutMillis: t.connectMs,
    idleTimeoutMillis: t.idleMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: t.keepAliveMs,
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    statement_timeout: t.statementMs,
    query_timeout: t.statementMs + 500,
    idle_in_transaction_session_timeout: 2 * t.statementMs,
    ...connectionDeadlines,
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const factory = new PrismaPg(pool, { disposeExternalPool: false });
  const adapter = await factory.connect();
  const prisma = new PrismaClient({ adapter: factory });
  // adapter-pg 7's executeScript splits the script on ';' and may run the pieces on different
  // pooled connections, which breaks dollar-quoting and BEGIN/COMMIT. The script goes whole to
  // one connection of the adapter's own pool instead (simple query protocol, one transaction).
  const driver = adapter.underlyingDriver();
  const scripts: ScriptRunner = {
    executeScript: (sql) =>
      withClient(driver, async (client) => {
        await client.query('SET statement_timeout = 0');
        try {
          // pg reads a per-query `query_timeout` (not in its types) before the pool's default.
          const script: pg.QueryConfig & { query_timeout: number } = {
            text: sql,
            query_timeout: MIGRATION_QUERY_TIMEOUT_MS,
          };
          await client.query(script);
        } catch (err) {
          // A failed statement leaves an explicit BEGIN open in the aborted state; end it here
          // so the connection goes back to the pool clean.
          if (!isDatabaseUnavailable(err)) await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        } finally {
          // Back to the session default from the connection's startup options.
          await client.query('RESET statement_timeout').catch(() => undefined);
        }
      }),
    queryRows: async <T>(sql: string) => (await driver.query(sql)).rows as T[],
  };
  const sql: SqlRunner = {
    binaryParameters: true,
    query: async <T>(text: string, params: unknown[], name?: string) =>
      (await driver.query({ name, text, values: params })).rows as T[],
    transaction: (fn) =>
      withClient(driver, async (client) => {
        await client.query('BEGIN');
        try {
          const out = await fn({
            query: async <T>(text: string, params: unknown[], name?: string) =>
              (await client.query({ name, text, values: params })).rows as T[],
          });
          await client.query('COMMIT');
          return out;
        } catch (err) {
          // On a dead or timed-out connection a ROLLBACK would only wait for another timeout:
          // the connection is destroyed instead, and the server rolls back when it notices
          // (or after idle_in_transaction_session_timeout).
          if (!isDatabaseUnavailable(err)) await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
  };
  const u = new URL(url);
  return {
    kind: 'postgresql',
    sql,
    prisma,
    scripts,
    description: `PostgreSQL at ${u.hostname}:${u.port || 5432}${u.pathname}`,
    queueTarget: {
      connectionString: url,
      pool: { query_timeout: t.queueQueryMs, ...connectionDeadlines },
    },
    migrate: () => applyMigrations(scripts),
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * Runs `fn` on one pooled connection. While checked out, a connection that dies (the server
 * restarting, a network cut) emits 'error' on its client, and pg-pool listens only on idle
 * clients: without a listener here that event would crash the process. A broken connection is
 * destroyed on release instead of going back to the pool.
 */
async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  try {
    return await fn(client);
  } catch (err) {
    if (isDatabaseUnavailable(err)) broken ??= err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
