import { z } from 'zod';
import { identifier } from '../primitives.ts';
import { metricBase } from './common.ts';

/**
 * A value a step action measured itself and handed over with `record(name, value)` (e.g. a
 * workload's transactions per minute). `from` names the recorded value when it differs from `key`.
 */
export const RecordedMetric = z.strictObject({
  ...metricBase,
  source: z.literal('recorded'),
  unit: z.string().min(1).max(32),
  from: identifier.optional(),
});
export type RecordedMetric = z.infer<typeof RecordedMetric>;
