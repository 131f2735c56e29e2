import { z } from 'zod';
import { identifier } from '../primitives.ts';

export const metricBase = {
  key: identifier,
  label: z.string().max(200).optional(),
  better: z.enum(['lower', 'higher']),
};
export const sizeUnit = z.enum(['bytes', 'kB', 'MB']);
