/**
 * The contract every database driver of the runner fulfils (after ClickBench's per-system
 * scripts): open an admin session on the target to probe it and create/drop the databases a run
 * owns, and open sessions on those databases to run SQL and collect sizes and counters.
 * `pg` and `mysql2` are imported only by the files implementing it.
 */
import type { DatabaseEnvironment, Engine } from '@tunelab/contracts';

export type RelationSizes = { relation: string; table: number; indexes: number; total: number };
export type TableStats = Record<string, number>;
export type TupleStats = Record<'tuple_count' | 'dead_tuple_count' | 'tuple_len' | 'dead_tuple_len' | 'free_space' | 'table_len', number>;
/** WAL position: cumulative bytes from pg_stat_wal when the server has it, and the insert LSN in bytes. */
export type WalPosition = { statBytes: number | null; lsnBytes: number };

export type ServerMessage = { severity: string; message: string };

export type DatabaseSession = {
  /** Runs one or more statements (simple query protocol); returns the rows of the last one. */
  exec(sql: string): Promise<Record<string, unknown>[]>;
  setSetting(name: string, value: string): Promise<void>;
  relationSizes(relation: string): Promise<RelationSizes>;
  tableStats(relation: string): Promise<TableStats>;
  tupleStats(relation: string): Promise<TupleStats>;
  walPosition(): Promise<WalPosition>;
  /** Server NOTICE/INFO messages (e.g. VACUUM VERBOSE output) received since the last call. */
  drainMessages(): ServerMessage[];
  close(): Promise<void>;
};

export type AdminSession = {
  environment(): Promise<DatabaseEnvironment & { serverVersionNum: number }>;
  /** The server's data directory, or null when this user may not read it. */
  dataDirectory(): Promise<string | null>;
  createDatabase(name: string, template?: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  listDatabases(prefix: string): Promise<string[]>;
  /** Terminates every other backend whose application_name is `applicationName`. */
  terminateBackends(applicationName: string): Promise<number>;
  hasExtension(name: string): Promise<boolean>;
  close(): Promise<void>;
};

export type Driver = {
  engine: Engine;
  /** True when the target runs on this machine (hardware probe may then look at its disk). */
  isLocal(target: string): boolean;
  openAdmin(target: string, applicationName: string): Promise<AdminSession>;
  openDatabase(target: string, database: string, applicationName: string): Promise<DatabaseSession>;
};
