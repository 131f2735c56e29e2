import { z } from 'zod';
import { identifier } from '../primitives.ts';

export const metricBase = {
  key: identifier,
  label: z.string().max(200).optional(),
  better: z.enum(['lower', 'higher']),
  /**
   * Not a goal but a description of the conditions (a size before the step, files in the data
   * directory): reports give its figures and no verdict.
   */
  descriptive: z.boolean().optional(),
};
export const sizeUnit = z.enum(['bytes', 'kB', 'MB']);
