import { TableStatMetric } from '@tunelab/contracts';
import type { MetricSource } from './types.ts';

/** `source: table_stat` — a pg_stat_user_tables counter before, after, or its change. */
export const tableStatSource: MetricSource<'table_stat'> = {
  source: 'table_stat',
  schema: TableStatMetric,
  relation: (m) => m.relation,
  value(m, data) {
    const b = data.before.tableStats[m.relation]?.[m.counter];
    const a = data.after.tableStats[m.relation]?.[m.counter];
    if (m.at === 'delta') return a === undefined || b === undefined ? null : a - b;
    return (m.at === 'before' ? b : a) ?? null;
  },
};
