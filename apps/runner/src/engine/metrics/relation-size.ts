import { RelationSizeMetric } from '@tunelab/contracts';
import { SIZE_FACTOR, type MetricSource } from './types.ts';

/** `source: relation_size` — table, index or total size before or after the steps. */
export const relationSizeSource: MetricSource<'relation_size'> = {
  source: 'relation_size',
  schema: RelationSizeMetric,
  relation: (m) => m.relation,
  value(m, data) {
    const sizes = (m.at === 'before' ? data.before : data.after).sizes[m.relation];
    return sizes ? sizes[m.part] / (SIZE_FACTOR[m.unit] ?? 1) : null;
  },
};
