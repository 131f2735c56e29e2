import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/prisma/client.ts';
import { applyMigrations, type MigrationResult, type ScriptRunner } from './migrate.ts';
import { isDatabaseUnavailable } from './errors.ts';
import { takeOwnership, type Ownership } from './owner.ts';

export const DEFAULT_DATA_DIR = '.tunelab/results';
/** Migrations may build indexes on large tables: an hour, not the request deadline. */
const MIGRATION_QUERY_TIMEOUT_MS = 3_600_000;

export type OpenOptions = {
  /** PGlite data directory when no URL is given (default `.tunelab/results`). `memory://` for in-memory. */
  dataDir?: string;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
  /** Timeouts of the PostgreSQL pool (defaults: DEFAULT_DB_TIMEOUTS). */
  timeouts?: Partial<DatabaseTimeouts>;
  /** Called if this process loses the lock on its embedded database (default: throw, ending the process). */
  onOwnershipLost?: (err: Error) => void;
};

/**
 * Every PostgreSQL call has a deadline, and a connection that died silently (no FIN/RST: a
 * network cut, a stalled proxy) is thrown away instead of being handed out again:
 * - `statementMs`: the server cancels a statement after this (`statement_timeout`), and the
 *   client gives up on an answer 500 ms later (`query_timeout`, for when the server cannot even
 *   be told). A query that timed out destroys its connection (pool.query and our transactions
 *   release it with the error), so the pool heals by itself once the database is back;
 * - `connectMs`: opening a connection, or waiting for a free one (`connectionTimeoutMillis`);
 * - idle in transaction: the server ends a session that sits in an open transaction for
 *   2 × statementMs (`idle_in_transaction_session_timeout`), so a client that vanished mid-
 *   transaction does not hold locks;
 * - `idleMs`: idle pooled connections are closed after this; `keepAliveMs`: TCP keepalive probes
 *   start after this much silence.
 * Migrations run without a statement timeout (an index build may take long).
 */
export type DatabaseTimeouts = { statementMs: number; connectMs: number; idleMs: number; keepAliveMs: number };
export const DEFAULT_DB_TIMEOUTS: DatabaseTimeouts = {
  statementMs: 5000,
  connectMs: 5000,
  idleMs: 30_000,
  keepAliveMs: 10_000,
};

/** Parameterized SQL straight to the driver ($1, $2 …): the ingest hot path, without Prisma's query engine. */
export type SqlRunner = {
  /** `name`: prepare the statement once per connection under this name (pg; PGlite ignores it). */
  query<T>(sql: string, params: unknown[], name?: string): Promise<T[]>;
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (q: Pick<SqlRunner, 'query'>) => Promise<T>): Promise<T>;
};

export type Connection = {
  sql: SqlRunner;
  kind: 'postgresql' | 'pglite';
  prisma: PrismaClient;
  scripts: ScriptRunner;
  /** Where the data lives, for messages ("embedded PGlite in .tunelab/results"). */
  description: string;
  migrate: () => Promise<MigrationResult>;
  close: () => Promise<void>;
  /** The lock this process holds on an embedded database directory (none for PostgreSQL and memory://). */
  ownership?: Ownership;
  /** What pg-boss (the fleet's queue) connects through: its own small pool, or the same PGlite. */
  queueTarget: { connectionString: string } | { pglite: PGlite };
};

export async function openConnection(url?: string, options: OpenOptions = {}): Promise<Connection> {
  if (url) {
    const t = { ...DEFAULT_DB_TIMEOUTS, ...options.timeouts };
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      statement_timeout: t.statementMs,
      query_timeout: t.statementMs + 500,
      idle_in_transaction_session_timeout: 2 * t.statementMs,
      connectionTimeoutMillis: t.connectMs,
      idleTimeoutMillis: t.idleMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: t.keepAliveMs,
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
      queueTarget: { connectionString: url },
      migrate: () => applyMigrations(scripts),
      close: async () => {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  // One process per directory (see owner.ts): taken before PGlite reads a single file.
  const ownership = inMemory ? undefined : await takeOwnership(dataDir, options.onOwnershipLost);
  let client: PGlite;
  try {
    client = await PGlite.create(inMemory ? dataDir : resolve(dataDir));
  } catch (err) {
    await ownership?.release();
    throw err;
  }
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(client) });
  // pglite-prisma-adapter 0.7's executeScript does not await PGlite's exec (errors would escape
  // as unhandled rejections), so scripts go to the PGlite client directly.
  const scripts: ScriptRunner = {
    executeScript: async (sql) => {
      try {
        await client.exec(sql);
      } catch (err) {
        await client.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
    queryRows: async <T>(sql: string) => (await client.query<T>(sql)).rows,
  };
  const sql: SqlRunner = {
    query: async <T>(text: string, params: unknown[]) => (await client.query<T>(text, params)).rows,
    transaction: (fn) =>
      client.transaction((tx) =>
        fn({ query: async <T>(text: string, params: unknown[]) => (await tx.query<T>(text, params)).rows }),
      ),
  };
  return {
    kind: 'pglite',
    sql,
    prisma,
    scripts,
    description: `embedded PGlite in ${dataDir}`,
    queueTarget: { pglite: client },
    migrate: () => applyMigrations(scripts),
    ...(ownership ? { ownership } : {}),
    close: async () => {
      try {
        await prisma.$disconnect();
        await client.close();
      } finally {
        await ownership?.release();
      }
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
