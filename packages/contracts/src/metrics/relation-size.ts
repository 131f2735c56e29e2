import { z } from 'zod';
import { relationName } from '../scenario-names.ts';
import { metricBase, sizeUnit } from './common.ts';

/** pg_table_size / pg_indexes_size / pg_total_relation_size before or after the variant's steps. */
export const RelationSizeMetric = z.strictObject({
  ...metricBase,
  source: z.literal('relation_size'),
  unit: sizeUnit,
  relation: relationName,
  part: z.enum(['table', 'indexes', 'total']),
  at: z.enum(['before', 'after']),
});
export type RelationSizeMetric = z.infer<typeof RelationSizeMetric>;
