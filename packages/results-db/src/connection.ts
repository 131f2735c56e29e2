/** What both openers (open-postgresql.ts, open-pglite.ts) return, and the options they take. */
import type { ResourceLimits } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import type { PgliteThread } from './pglite-thread.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { Ownership } from './owner.ts';

/** Anything that runs a multi-statement SQL script atomically (simple query protocol). */
export type ScriptRunner = {
  executeScript(script: string): Promise<void>;
  queryRows<T>(sql: string): Promise<T[]>;
};

/** What applying the migrations did: the ones applied now and the ones found applied. */
export type MigrationResult = { applied: string[]; alreadyApplied: string[] };

export const DEFAULT_DATA_DIR = '.tunelab/results';
export type OpenOptions = {
  /** PGlite data directory when no URL is given (default `.tunelab/results`). `memory://` for in-memory. */
  dataDir?: string;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
  /** Timeouts of the PostgreSQL pool (defaults: DEFAULT_DB_TIMEOUTS). */
  timeouts?: Partial<DatabaseTimeouts>;
  /** Called if this process loses the lock on its embedded database (default: throw, ending the process). */
  onOwnershipLost?: (err: Error) => void;
  /**
   * Where an embedded database runs its statements: on a worker thread of its own (default), so
   * that a long statement never stops this thread (an API's requests), or on this thread (`main`:
   * a batch job such as the site's build, which has nothing else to do meanwhile and is bundled
   * by Vite, where the worker's file is not beside the module).
   */
  pgliteThread?: 'worker' | 'main';
  /**
   * Called if the embedded database's thread ends other than by close (out of memory, an error
   * PGlite did not catch): every call pending or later fails with that error. Default: throw,
   * ending the process, as a lost lock does, so that a supervisor starts it again instead of a
   * server answering every request with an error.
   */
  onThreadExit?: (err: Error) => void;
  /** worker_threads' resource limits of the embedded database's thread (past its heap limit the thread ends). */
  pgliteThreadLimits?: ResourceLimits;
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
 *   start after this much silence;
 * - `queueQueryMs`: the fleet queue's own pool (pg-boss) gives up on an answer after this and
 *   drops the connection. Its statements are short queue operations, but its start installs or
 *   migrates its schema, so it gets no statement timeout and a longer client deadline. Without one,
 *   a pg-boss statement sent into a silent cut waited for ever: the lease supervisor stopped and
 *   the API could not close (its pool waited for that connection).
 * Migrations run without a statement timeout (an index build may take long).
 */
export type DatabaseTimeouts = {
  statementMs: number;
  connectMs: number;
  idleMs: number;
  keepAliveMs: number;
  queueQueryMs: number;
};
export const DEFAULT_DB_TIMEOUTS: DatabaseTimeouts = {
  statementMs: 5000,
  connectMs: 5000,
  idleMs: 30_000,
  keepAliveMs: 10_000,
  queueQueryMs: 30_000,
};

/** Parameterized SQL straight to the driver ($1, $2 …): the ingest hot path, without Prisma's query engine. */
export type SqlRunner = {
  /** `name`: prepare the statement once per connection under this name (pg; PGlite ignores it). */
  query<T>(sql: string, params: unknown[], name?: string): Promise<T[]>;
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (q: Pick<SqlRunner, 'query'>) => Promise<T>): Promise<T>;
  /** A Buffer parameter goes in PostgreSQL's binary format (pg), not as bytea (PGlite): see child-columns.ts. */
  binaryParameters: boolean;
};

/** The deadlines of the fleet queue's own pg pool (see `queueQueryMs`). */
export type QueuePoolOptions = {
  query_timeout: number;
  connectionTimeoutMillis: number;
  idleTimeoutMillis: number;
  keepAlive: boolean;
  keepAliveInitialDelayMillis: number;
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
  queueTarget: { connectionString: string; pool: QueuePoolOptions } | { pglite: PGlite | PgliteThread };
};
