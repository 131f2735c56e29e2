import { z } from 'zod';
import { relationName } from '../scenario-names.ts';
import { metricBase } from './common.ts';

export const TABLE_STAT_COUNTERS = [
  'n_live_tup',
  'n_dead_tup',
  'n_tup_ins',
  'n_tup_upd',
  'n_tup_del',
  'n_tup_hot_upd',
  'seq_scan',
  'idx_scan',
  'vacuum_count',
  'autovacuum_count',
  'analyze_count',
] as const;
/**
 * pg_stat_user_tables counters. They are per database and start at zero in a database cloned
 * from the fixture template, so `delta` is usually what you want.
 */
export const TableStatMetric = z.strictObject({
  ...metricBase,
  source: z.literal('table_stat'),
  unit: z.string().min(1).max(32),
  relation: relationName,
  counter: z.enum(TABLE_STAT_COUNTERS),
  at: z.enum(['before', 'after', 'delta']),
});
export type TableStatMetric = z.infer<typeof TableStatMetric>;
