import { TupleStatMetric } from '@tunelab/contracts';
import type { MetricSource } from './types.ts';

/** `source: tuple_stat` — pgstattuple figures before or after the steps. */
export const tupleStatSource: MetricSource<'tuple_stat'> = {
  source: 'tuple_stat',
  schema: TupleStatMetric,
  relation: (m) => m.relation,
  extensions: ['pgstattuple'],
  tupleStats: true,
  value: (m, data) => (m.at === 'before' ? data.before : data.after).tupleStats[m.relation]?.[m.field] ?? null,
};
