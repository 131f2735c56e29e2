import { z } from 'zod';
import { relationName } from '../scenario-names.ts';
import { metricBase } from './common.ts';

/** pgstattuple figures (exact, read from the heap; needs the pgstattuple extension). */
export const TupleStatMetric = z.strictObject({
  ...metricBase,
  source: z.literal('tuple_stat'),
  unit: z.string().min(1).max(32),
  relation: relationName,
  field: z.enum(['tuple_count', 'dead_tuple_count', 'tuple_len', 'dead_tuple_len', 'free_space', 'table_len']),
  at: z.enum(['before', 'after']),
});
export type TupleStatMetric = z.infer<typeof TupleStatMetric>;
