import { z } from 'zod';
import { metricBase, sizeUnit } from './common.ts';

/** WAL generated during the timed block (pg_stat_wal on PG14+, else the pg_current_wal_lsn difference). */
export const WalMetric = z.strictObject({
  ...metricBase,
  source: z.literal('wal'),
  unit: sizeUnit,
  counter: z.literal('wal_bytes').default('wal_bytes'),
});
export type WalMetric = z.infer<typeof WalMetric>;
