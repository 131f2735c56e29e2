/**
 * The documented rules of `tunelab advise` (apps/runner/README.md, "Advice for your database"):
 * which tables each scenario applies to. The inspections filter and rank by them in SQL, so a
 * catalog of 100,000 tables returns at most `limit` tables per rule.
 */
export const RULES = {
  /** vacuum-index-cleanup: a table with an index and at least this many dead tuples … */
  minDeadTuples: 1000,
  /** … that are at least this fraction of its tuples (live + dead). */
  indexCleanupDeadFraction: 0.05,
  /** vacuum-full-rewrite: dead tuples at least this fraction of live + dead (the scenario deletes 90%). */
  rewriteDeadFraction: 0.2,
  /** fillfactor-hot-updates: at least this many updates … */
  minUpdates: 1000,
  /** … of which fewer than this fraction were HOT … */
  maxHotFraction: 0.5,
  /** … on a table whose fillfactor leaves no more room than this (the default is 100). */
  minFillfactor: 90,
  /** recovery-init-sync: at least this many relation files in the database, under recovery_init_sync_method = fsync. */
  minRelationFiles: 10_000,
  /** innodb-compression-insert: an InnoDB table at least this fraction of innodb_buffer_pool_size, or already compressed. */
  bufferPoolFraction: 0.25,
} as const;
