import { z } from 'zod';
import { RecordedMetric } from './recorded.ts';
import { RelationSizeMetric } from './relation-size.ts';
import { TableStatMetric } from './table-stat.ts';
import { TimedMetric } from './timed.ts';
import { TupleStatMetric } from './tuple-stat.ts';
import { WalMetric } from './wal.ts';

export * from './recorded.ts';
export * from './relation-size.ts';
export * from './table-stat.ts';
export * from './timed.ts';
export * from './tuple-stat.ts';
export * from './wal.ts';

/**
 * THE list of metric sources. Add one: a file `metrics/<name>.ts` with its zod schema
 * (`source: z.literal(…)`), one entry here, and its reader in the runner
 * (`apps/runner/src/engine/metrics/`), whose registry is typed against this list.
 */
export const METRIC_SCHEMAS = [
  TimedMetric,
  RelationSizeMetric,
  TableStatMetric,
  TupleStatMetric,
  WalMetric,
  RecordedMetric,
] as const;

export const MetricDef = z.discriminatedUnion('source', METRIC_SCHEMAS);
export type MetricDef = z.infer<typeof MetricDef>;
export type MetricSourceName = MetricDef['source'];
