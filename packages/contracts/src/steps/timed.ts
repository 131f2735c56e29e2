import { z } from 'zod';
import { identifier } from '../primitives.ts';
import { PlainStep } from './plain.ts';

/** The measured block of a variant: its wall time goes to the `timed` metric named `metric`. */
export const TimedStep = z.strictObject({
  action: z.literal('timed'),
  metric: identifier.default('duration'),
  steps: z.array(PlainStep).min(1),
});
export type TimedStep = z.infer<typeof TimedStep>;
