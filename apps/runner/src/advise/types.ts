/** What `tunelab advise` reads from a server: catalog and statistics only, never table contents. */

/** One PostgreSQL table (relkind r or m) as its catalog and statistics describe it. */
export type PgTable = {
  schema: string;
  name: string;
  /** pg_class.reltuples (−1: never vacuumed or analyzed, then n_live_tup is used). */
  rows: number;
  liveTuples: number;
  deadTuples: number;
  /** pg_table_size (heap, TOAST and maps) and pg_indexes_size; relpages-based when PgInspection.sizesFrom is `catalog`. */
  tableBytes: number;
  indexBytes: number;
  indexCount: number;
  fillfactor: number;
  updates: number;
  hotUpdates: number;
  /** n_tup_newpage_upd (PostgreSQL 16+), else null. */
  newPageUpdates: number | null;
};

/** A list of tables one rule picked: the first `limit` by the rule's ranking, and how many matched. */
export type Picked<T> = { matched: number; tables: T[] };

export type PgInspection = {
  engine: 'postgresql';
  version: string;
  versionNum: number;
  major: number;
  database: string;
  /** Tables and materialized views outside the system schemas. */
  tables: number;
  /** Relations with storage in this database (each has at least one file: its main fork). */
  relationFiles: number;
  /** Databases on the server (their relation files are not counted: they are other catalogs). */
  databases: number;
  recoveryInitSyncMethod: string | null;
  blockSize: number;
  /** `files`: sizes of the tables shown are the files' (pg_table_size); `catalog`: relpages, because a table was locked. */
  sizesFrom: 'files' | 'catalog';
  bloated: Picked<PgTable>;
  indexedWithDeadTuples: Picked<PgTable>;
  hotUnfriendly: Picked<PgTable>;
};

export type InnodbTable = {
  schema: string;
  name: string;
  /** INNODB_SYS_TABLESTATS.NUM_ROWS (an estimate, as SHOW TABLE STATUS). */
  rows: number;
  dataBytes: number;
  indexBytes: number;
  rowFormat: string;
  /** KEY_BLOCK_SIZE in KiB of a ROW_FORMAT=COMPRESSED table, else null. */
  keyBlockSize: number | null;
  pageCompressed: boolean;
};

export type MysqlInspection = {
  engine: 'mariadb' | 'mysql';
  version: string;
  major: number;
  /** InnoDB tables outside the system schemas. */
  tables: number;
  bufferPoolBytes: number;
  pageSize: number;
  /** InnoDB tables at least a quarter of the buffer pool, or already compressed. */
  compressionCandidates: Picked<InnodbTable>;
};

export type Inspection = PgInspection | MysqlInspection;
