import { RecordedMetric } from '@tunelab/contracts';
import type { MetricSource } from './types.ts';

/** `source: recorded` — a value an action passed to `ctx.record(from ?? key, value)`. */
export const recordedSource: MetricSource<'recorded'> = {
  source: 'recorded',
  schema: RecordedMetric,
  value: (m, data) => data.recorded.get(m.from ?? m.key) ?? null,
};
