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

/**
 * `record[key]` only when `key` is the record's own property. Names that come from input
 * (`--param constructor=x`, a `{{toString}}` placeholder, a setting called `valueOf`) must never
 * reach Object.prototype and pass a "known name" check.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/**
 * Text PostgreSQL can store and every client can decode: no NUL character (`text` and `jsonb`
 * refuse U+0000) and no lone UTF-16 surrogate (not valid Unicode, so not valid UTF-8 either).
 * Every string of a submission or a query goes through this.
 */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}
export const text = (max: number, min = 0) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((s) => !s.includes('\u0000'), { message: 'must not contain the NUL character (U+0000)' })
    .refine((s) => !LONE_SURROGATE.test(s), {
      message: 'must not contain a lone UTF-16 surrogate (not valid Unicode)',
    });

export const boundedString = (max: number = LIMITS.shortString) => text(max, 1);

/** Identifiers used in URLs and keys: variant names, metric names, scenario keys. */
export const identifier = z
  .string()
  .min(1)
  .max(100)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]*$/,
    'must start with a letter or digit and contain only letters, digits, . _ : -',
  );

/** One value of a scenario parameter, as runs, jobs and groups carry it. */
const ParamValue = z.union([z.string(), z.number(), z.boolean()]);
/** A run's (or job's, or group's) scenario parameter values by name. */
export const ParamValues = z.record(z.string(), ParamValue);

/** A list response: its items under `items`. */
export const List = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

/** `?limit=` of a list: a whole number from 1 to `max`, `fallback` when absent. */
export const pageLimit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const scalar = z.union([text(LIMITS.note), finiteNumber, z.boolean(), z.null()]);
export type Scalar = z.infer<typeof scalar>;

export const boundedRecord = <T extends z.ZodType>(value: T, max: number = LIMITS.mapEntries) =>
  z
    .record(text(LIMITS.shortString, 1), value)
    .refine((r) => Object.keys(r).length <= max, { message: `must have at most ${max} entries` });

/** The instants a run can have happened at: 1970-01-01 (the "unknown" of published runs) up to 2100. */
export const DATE_RANGE = { from: Date.UTC(1970, 0, 1), until: Date.UTC(2100, 0, 1) } as const;
/** PostgreSQL's timestamptz takes UTC offsets up to ±15:59. */
const OFFSET = /(?:Z|([+-])(\d{2}):?(\d{2}))$/i;

/**
 * ISO 8601 date-time with an offset, between 1970 and 2100 (UTC), offset at most ±15:59:
 * year 0000 and years past 9999 are refused here instead of breaking a read later.
 */
export const isoDateTime = z.iso
  .datetime({ offset: true })
  .refine(
    (s) => {
      const m = OFFSET.exec(s);
      return !m?.[2] || Number(m[2]) * 60 + Number(m[3]) <= 15 * 60 + 59;
    },
    { message: 'UTC offset must be within ±15:59', abort: true },
  )
  .refine(
    (s) => {
      const t = Date.parse(s);
      return t >= DATE_RANGE.from && t < DATE_RANGE.until;
    },
    { message: 'must be between 1970-01-01T00:00:00Z and 2100-01-01T00:00:00Z' },
  );

export const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256');
