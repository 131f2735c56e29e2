import { z } from 'zod';

/** Limits shared by every payload; they keep one bad runner from filling the results database. */
export const LIMITS = {
  shortString: 200,
  note: 64 * 1024,
  mapEntries: 1000,
  samples: 100_000,
  timeSeriesPoints: 200_000,
  notes: 1000,
  bodyBytes: 16 * 1024 * 1024,
} as const;

/** z.number() already rejects NaN; `.finite()` style check also rejects ±Infinity. */
export const finiteNumber = z.number().refine(Number.isFinite, { message: 'must be a finite number' });

export const count = z.number().int().nonnegative();

export const boundedString = (max: number = LIMITS.shortString) => z.string().min(1).max(max);

/** Identifiers used in URLs and keys: variant names, metric names, scenario keys. */
export const identifier = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'must start with a letter or digit and contain only letters, digits, . _ : -');

export const scalar = z.union([z.string().max(LIMITS.note), finiteNumber, z.boolean(), z.null()]);
export type Scalar = z.infer<typeof scalar>;

export const boundedRecord = <T extends z.ZodType>(value: T, max: number = LIMITS.mapEntries) =>
  z
    .record(z.string().min(1).max(LIMITS.shortString), value)
    .refine((r) => Object.keys(r).length <= max, { message: `must have at most ${max} entries` });

export const isoDateTime = z.iso.datetime({ offset: true });

export const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256');
