/**
 * One display unit per metric, chosen from the data (ms / s / min for a metric in s, B / KiB / MiB /
 * GiB, or the metric's own unit), and a number of decimals the spread supports: tables, charts and CSV
 * headers of a metric all use the same `DisplayUnit`.
 */
import { ownValue } from '@tunelab/contracts';

export type DisplayUnit = {
  /** Shown after numbers and in headers: "s", "MiB", "rows/s". */
  label: string;
  /** Stored value (the metric's unit) → display unit. */
  scale: (v: number) => number;
  /** Stored value → rounded text in the display unit, without the unit. */
  format: (v: number) => string;
  decimals: number;
};

const TO_BYTES: Record<string, number> = {
  bytes: 1,
  B: 1,
  kB: 1024,
  KiB: 1024,
  MB: 1024 ** 2,
  MiB: 1024 ** 2,
  GB: 1024 ** 3,
  GiB: 1024 ** 3,
};
const BYTE_UNITS: [string, number][] = [
  ['GiB', 1024 ** 3],
  ['MiB', 1024 ** 2],
  ['KiB', 1024],
  ['B', 1],
];

function median(xs: number[]): number {
  const s = xs
    .filter(Number.isFinite)
    .map(Math.abs)
    .sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

function sd(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
}

/**
 * Decimals the spread supports: the last shown digit is about a tenth of the standard deviation
 * (rounded to 0–4), and at least three significant digits when the values do not vary.
 */
export function decimalsFor(values: number[]): number {
  const spread = sd(values);
  const mag = median(values);
  if (spread > 0) return Math.min(4, Math.max(0, Math.ceil(-Math.log10(spread / 10))));
  if (mag === 0) return 0;
  return Math.min(4, Math.max(0, 2 - Math.floor(Math.log10(mag))));
}

// One formatter per number of decimals: toLocaleString with options builds a new one per call.
const formatters = new Map<number, Intl.NumberFormat>();
function grouped(v: number, decimals: number): string {
  let f = formatters.get(decimals);
  if (!f)
    formatters.set(
      decimals,
      (f = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })),
    );
  return f.format(v);
}

/** The display unit of a metric stored in `unit`, for these stored values. */
export function unitFor(unit: string, values: number[]): DisplayUnit {
  let label = unit;
  let factor = 1;
  // A metric in ms stays in ms: its measured tables and its answers (the answers engine's
  // sentences) give it in ms, and one page says one metric in one unit.
  if (unit === 's') {
    const m = median(values);
    const [l, perSecond] = m < 1 ? ['ms', 1000] : m >= 600 ? ['min', 1 / 60] : ['s', 1];
    label = l;
    factor = perSecond;
  } else if (ownValue(TO_BYTES, unit) !== undefined) {
    // Own properties only: a unit called `constructor` is not a byte unit.
    const toBytes = ownValue(TO_BYTES, unit) ?? 1;
    const m = median(values.map((v) => v * toBytes));
    const [l, size] = BYTE_UNITS.find(([, s]) => m >= s) ?? ['B', 1];
    label = l;
    factor = toBytes / size;
  }
  const scaled = values.map((v) => v * factor);
  const decimals = decimalsFor(scaled);
  return { label, scale: (v) => v * factor, format: (v) => grouped(v * factor, decimals), decimals };
}
