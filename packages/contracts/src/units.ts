/**
 * The physically meaningful range of a measured value, by its unit. A value outside it is a
 * runner bug (or a hostile client), not a measurement: 1.8e308 seconds would overflow every sum
 * the statistics take. The bounds are generous — a 31-year duration, 2^63 bytes (PostgreSQL's
 * bigint) — and a unit not listed gets ±2^63, which still keeps squares and sums of 10^5 values
 * far inside the double range.
 */
const GENERIC_LIMIT = 2 ** 63;
/** Time-series x and values carry no unit: the generic bound. */
export const SERIES_LIMIT = GENERIC_LIMIT;

type Range = { min: number; max: number };
const nonNegative = (max: number): Range => ({ min: 0, max });
const SECONDS = 1e9; // ~31.7 years

export const UNIT_RANGES: ReadonlyMap<string, Range> = new Map<string, Range>([
  ['ns', nonNegative(SECONDS * 1e9)],
  ['us', nonNegative(SECONDS * 1e6)],
  ['µs', nonNegative(SECONDS * 1e6)],
  ['ms', nonNegative(SECONDS * 1e3)],
  ['s', nonNegative(SECONDS)],
  ['min', nonNegative(SECONDS / 60)],
  ['h', nonNegative(SECONDS / 3600)],
  ...(['bytes', 'B', 'byte'] as const).map((u) => [u, nonNegative(GENERIC_LIMIT)] as [string, Range]),
  ...(['kB', 'KB', 'KiB'] as const).map((u) => [u, nonNegative(GENERIC_LIMIT / 1024)] as [string, Range]),
  ...(['MB', 'MiB'] as const).map((u) => [u, nonNegative(GENERIC_LIMIT / 1024 ** 2)] as [string, Range]),
  ...(['GB', 'GiB'] as const).map((u) => [u, nonNegative(GENERIC_LIMIT / 1024 ** 3)] as [string, Range]),
  ...(['TB', 'TiB'] as const).map((u) => [u, nonNegative(GENERIC_LIMIT / 1024 ** 4)] as [string, Range]),
  ...(['tuples', 'rows', 'pages', 'blocks', 'tables', 'transactions', 'queries', 'count', 'ops'] as const).map(
    (u) => [u, nonNegative(GENERIC_LIMIT)] as [string, Range],
  ),
  ...(['tps', 'qps', 'ops/s', 'rows/s', 'tuples/s', 'B/s', 'bytes/s', 'MB/s'] as const).map(
    (u) => [u, nonNegative(1e15)] as [string, Range],
  ),
  ['%', { min: -1e6, max: 1e6 }],
  ['percent', { min: -1e6, max: 1e6 }],
]);

/** The range a value in `unit` must lie in (own-property lookup: a unit named "constructor" is just unknown). */
export function rangeOfUnit(unit: string): Range {
  return UNIT_RANGES.get(unit) ?? { min: -GENERIC_LIMIT, max: GENERIC_LIMIT };
}

/** A sentence saying why `value` is not a plausible measurement in `unit`, or null when it is. */
export function checkValueInRange(value: number, unit: string): string | null {
  const { min, max } = rangeOfUnit(unit);
  if (value >= min && value <= max) return null;
  return `must be between ${min} and ${max} for unit ${unit}${UNIT_RANGES.has(unit) ? '' : ' (unit not known: generic bound)'}`;
}
