import { TimedMetric } from '@tunelab/contracts';
import type { MetricSource } from './types.ts';

/** `source: timed` — wall time of the timed block with this key, in s or ms. */
export const timedSource: MetricSource<'timed'> = {
  source: 'timed',
  schema: TimedMetric,
  value(m, data) {
    const s = data.recorded.get(m.key);
    return s === undefined ? null : m.unit === 'ms' ? s * 1000 : s;
  },
};
