/**
 * What `tunelab advise` reads from a server, engine-neutral: catalog and statistics only, never
 * table contents. Each engine's driver that can be advised has an inspector (`engines/<engine>/
 * inspect.ts`) that fills the table sets it is asked for and its engine has, with the thresholds
 * the scenarios' `advise:` blocks give (contracts' ADVISE_TABLE_SETS); advise asks for a set by
 * name and never for an engine, so a scenario applies wherever an inspector offers its set.
 */
import type {
  AdviseSetRequests,
  AdviseTableSet,
  COMPRESSIBLE_TABLE_FACTS,
  EngineName,
  HEAP_TABLE_FACTS,
  SERVER_FACTS,
} from '@tunelab/contracts';

/** A table of a heap with MVCC tuples (dead tuples, HOT-style in-page updates) as its statistics describe it. */
export type HeapTable = {
  schema: string;
  name: string;
  /** The planner's row estimate (−1 never vacuumed or analyzed, then the live tuples). */
  rows: number;
  liveTuples: number;
  deadTuples: number;
  /** Heap with its overflow and maps, and the indexes; from the files, or from the catalog (`sizesFrom`). */
  tableBytes: number;
  indexBytes: number;
  indexCount: number;
  fillfactor: number;
  updates: number;
  /** Updates that stayed on their page with no index change (PostgreSQL HOT). */
  hotUpdates: number;
  /** Updates whose new version went to another page, where the server counts them; else null. */
  newPageUpdates: number | null;
};

/** A table whose storage format may compress pages (InnoDB's ROW_FORMAT=COMPRESSED, page compression). */
export type CompressibleTable = {
  schema: string;
  name: string;
  /** The server's row estimate. */
  rows: number;
  dataBytes: number;
  indexBytes: number;
  rowFormat: string;
  /** KEY_BLOCK_SIZE in KiB of a ROW_FORMAT=COMPRESSED table, else null. */
  keyBlockSize: number | null;
  pageCompressed: boolean;
};

/** A list of tables one rule picked: the first `limit` by the rule's ranking, and how many matched. */
export type Picked<T> = { matched: number; tables: T[] };

/** The table sets an inspector may fill (contracts' ADVISE_TABLE_SETS says what each holds). */
export type TableSets = {
  /** Dead tuples at least a fifth of the tuples: most dead first. */
  bloated: Picked<HeapTable>;
  /** With an index and dead tuples: most dead first. */
  indexedWithDeadTuples: Picked<HeapTable>;
  /** Update-heavy with few in-page updates and no free room: most out-of-page updates first. */
  hotUnfriendly: Picked<HeapTable>;
  /** Large against the buffer pool, or already compressed: largest first. */
  compressionCandidates: Picked<CompressibleTable>;
};

/** Facts of the server and the database read, where the engine has them. */
export type ServerFacts = {
  /** User tables (outside the system schemas). */
  tables: number;
  /** The database read, where a target names one the catalog is per (PostgreSQL). */
  database?: string;
  /** Relations with storage in this database: each has at least one file. */
  relationFiles?: number;
  /** Databases on the server (their files are not counted: they are other catalogs). */
  databases?: number;
  /** How crash recovery syncs the data directory before replay; null where the server has no such setting. */
  recoveryInitSyncMethod?: string | null;
  bufferPoolBytes?: number;
  pageSize?: number;
};

export type Inspection = {
  engine: EngineName;
  version: string;
  /** The version as one comparable number (PostgreSQL's server_version_num: 150019). */
  versionNum: number;
  major: number;
  /** The server read, for the report: "PostgreSQL 15.19, database app" (the report adds "at URL"). */
  heading: string;
  /** What it holds, in words: "12 tables, 40 relations with storage, recovery_init_sync_method = fsync". */
  contents: string;
  /** Lines the report prints under it (how sizes were read). */
  notes: string[];
  server: ServerFacts;
  sets: Partial<TableSets>;
};

/**
 * Reads a server's catalog for `tunelab advise` (one engine's): the sets `wanted` names that its
 * engine has, by their thresholds, `limit` tables at most per set.
 */
export type CatalogInspector = (url: string, limit: number, wanted: AdviseSetRequests) => Promise<Inspection>;

// The fact names the scenarios' advise blocks are validated against are these types' fields.
type SameKeys<A, B> = [Exclude<keyof A, B>, Exclude<B, keyof A>] extends [never, never] ? true : never;
type FactNamesMatch = [
  SameKeys<Omit<HeapTable, 'schema' | 'name'>, (typeof HEAP_TABLE_FACTS)[number]>,
  SameKeys<Omit<CompressibleTable, 'schema' | 'name'>, (typeof COMPRESSIBLE_TABLE_FACTS)[number]>,
  SameKeys<ServerFacts, (typeof SERVER_FACTS)[number]>,
  SameKeys<TableSets, AdviseTableSet>,
] extends [true, true, true, true]
  ? true
  : never;
// Fails to compile when a type above and contracts' fact names part.
void (true satisfies FactNamesMatch);
