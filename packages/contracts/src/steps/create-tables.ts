import { z } from 'zod';

const PARAM_REF = /^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/;

/** Largest table count per step (the article's published scale is 10,000,000). */
export const CREATE_TABLES_MAX = 20_000_000;

/**
 * `action: create_tables` (PostgreSQL): makes the database `database` (default `postgres`, not
 * the unit's clone, so one table set serves every crash/restart cycle) hold exactly `count`
 * tables `<prefix>1…<prefix>N` (`CREATE TABLE tN (i int)`), adding or dropping the difference in
 * transactions of at most `batch` tables (each holds a lock until commit; the shared lock table
 * has max_locks_per_transaction × max_connections slots) with `synchronous_commit = off`, then
 * `CHECKPOINT` (managed clusters only). When it changed something and `warm_up` is on, one
 * unmeasured crash and restart (`recovery_init_sync_method = syncfs`) writes back what the kernel
 * still held dirty, so every measured cycle starts from the same clean state. Records
 * `tables_created` (this step) and `create_tables_seconds`.
 */
export const CreateTablesStep = z.strictObject({
  action: z.literal('create_tables'),
  count: z.union([
    z.number().int().min(0).max(CREATE_TABLES_MAX),
    z.string().regex(PARAM_REF, 'must be a whole number of tables or a {{param}} placeholder'),
  ]),
  database: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/)
    .max(63)
    .default('postgres'),
  prefix: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/)
    .max(30)
    .default('t'),
  batch: z.number().int().min(1).max(10_000).default(4_000),
  warm_up: z.boolean().default(true),
});
export type CreateTablesStep = z.infer<typeof CreateTablesStep>;
