import { z } from 'zod';
import { relationName } from '../scenario-names.ts';

/** A whole number, or one `{{param}}` placeholder resolved (and checked) when the step runs. */
const countOrParam = z.union([
  z.number().int().min(0),
  z.string().regex(/^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/, 'must be a whole number or a {{param}} placeholder'),
]);
const flagOrParam = z.union([
  z.boolean(),
  z.string().regex(/^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/, 'must be true, false or a {{param}} placeholder'),
]);

/**
 * `insert_stream` (MySQL/MariaDB): `threads` connections insert deterministic rows into
 * `table(EMAIL, NAME)` in prepared batches of `batch_rows` until `rows` or `max_seconds`,
 * sampling InnoDB counters and OS CPU/disk every `sample_every_rows` (time series with x = rows).
 * `write_mbps` > 0 throttles a local server's disk writes with cgroups for the stream;
 * `email_index` adds a secondary index on EMAIL first (random inserts into it, as iibench does).
 * Records rows_per_s, rows_per_s_tail, bytes_written_per_row, compress_fail_pct,
 * tablespace_size (allocated bytes) and more for `source: recorded` metrics.
 */
export const InsertStreamStep = z.strictObject({
  action: z.literal('insert_stream'),
  table: relationName.default('test'),
  rows: countOrParam,
  threads: countOrParam.default(8),
  batch_rows: countOrParam.default(100),
  sample_every_rows: countOrParam,
  max_seconds: countOrParam.default(600),
  write_mbps: countOrParam.default(0),
  email_index: flagOrParam.default(false),
});
export type InsertStreamStep = z.infer<typeof InsertStreamStep>;
