import { z } from 'zod';
import { metricBase } from './common.ts';

/** Wall time of the variant's timed block with this metric key (monotonic clock). */
export const TimedMetric = z.strictObject({ ...metricBase, source: z.literal('timed'), unit: z.enum(['s', 'ms']) });
export type TimedMetric = z.infer<typeof TimedMetric>;
