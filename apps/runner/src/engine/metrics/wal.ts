import { WalMetric } from '@tunelab/contracts';
import { WAL_RECORD } from '../actions/timed.ts';
import { SIZE_FACTOR, type MetricSource } from './types.ts';

/** `source: wal` — WAL written inside the timed block. */
export const walSource: MetricSource<'wal'> = {
  source: 'wal',
  schema: WalMetric,
  value(m, data) {
    const bytes = data.recorded.get(WAL_RECORD);
    return bytes === undefined ? null : bytes / (SIZE_FACTOR[m.unit] ?? 1);
  },
};
