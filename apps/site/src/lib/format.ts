/** Number formats of the report: the article's own (h:mm:ss, ms) and the statistics' (%, CI). */
import type { Bounds } from '@tunelab/contracts';
import { UNBOUNDED_INTERVAL_TEXT } from '@tunelab/stats';

/**
 * A metric's display name: its scenario.yaml `label`, else its key in words — `rows_per_s` is
 * "rows per second", `compress_fail_pct` "compress fail percent", `client_cpu_s` "client cpu
 * seconds" — never the identifier itself.
 */
export function metricName(key: string, label?: string | null): string {
  if (label) return label;
  return key
    .replace(/_per_s(?=_|$)/g, ' per second')
    .replace(/_pct(?=_|$)/g, ' percent')
    .replace(/_s$/, ' seconds')
    .replace(/_/g, ' ');
}

/** How the reproduced article wrote durations. */
export type DurationFormat = 'hms' | 'ms' | 's';

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Seconds as the article wrote them. h:mm:ss is rounded to whole seconds like the article's
 * table (226.4 s → 0:03:46); below a minute it keeps two decimals so short measured runs stay
 * readable (4.31 s → 0:00:04.31).
 */
export function formatDuration(seconds: number, format: DurationFormat): string {
  if (!Number.isFinite(seconds)) return '—';
  // Milliseconds as the articles wrote them (to the microsecond), grouped, without trailing zeros.
  if (format === 'ms') return Number((seconds * 1000).toFixed(3)).toLocaleString('en-US', { maximumFractionDigits: 3 });
  if (format === 's') return seconds >= 100 ? seconds.toFixed(1) : seconds.toPrecision(4);
  const sign = seconds < 0 ? '-' : '';
  const abs = Math.abs(seconds);
  if (abs < 60) return `${sign}0:00:${abs < 10 ? '0' : ''}${abs.toFixed(2)}`;
  const whole = Math.round(abs);
  return `${sign}${Math.floor(whole / 3600)}:${pad(Math.floor((whole % 3600) / 60))}:${pad(whole % 60)}`;
}

export const durationUnitLabel = (format: DurationFormat) =>
  format === 'hms' ? 'h:mm:ss' : format === 'ms' ? 'ms' : 's';

/** Any metric value in its unit; durations go through the article format. */
export function formatValue(value: number, unit: string, format: DurationFormat): string {
  if (unit === 's') return formatDuration(value, format);
  if (unit === 'bytes') return formatBytes(value);
  // Numbers for people: grouped digits, never 4.412e+4.
  if (Math.abs(value) >= 1000 || Number.isInteger(value)) return Math.round(value).toLocaleString('en-US');
  if (value !== 0 && Math.abs(value) < 0.001) return value.toLocaleString('en-US', { maximumSignificantDigits: 3 });
  return Number(value.toPrecision(4)).toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/**
 * A metric's value with its unit, the one way every page prints one: "342.316 ms" for a duration
 * the article wrote in ms (never the metric's "s" after a figure in ms), "0:03:46" in h:mm:ss and
 * "1.2 MiB" for bytes (they carry their own), "52,274 rows/s" otherwise.
 */
export function formatWithUnit(value: number, unit: string, format: DurationFormat): string {
  const text = formatValue(value, unit, format);
  if (unit === 'bytes' || (unit === 's' && format === 'hms') || text === '—') return text;
  return `${text} ${unit === 's' ? durationUnitLabel(format) : unit}`;
}

export function formatBytes(b: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = b;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

export const formatPct = (fraction: number | null | undefined, digits = 1) =>
  fraction === null || fraction === undefined || !Number.isFinite(fraction)
    ? '—'
    : `${(fraction * 100).toFixed(digits)}%`;

/**
 * "23.4% to 51.6%". An interval with an end that cannot be bounded (null) is "unbounded", the
 * word the verdict sentences use (UNBOUNDED_INTERVAL_TEXT from @tunelab/stats), in every table.
 */
export function formatPctInterval(b: Bounds | null): string {
  if (!b) return '—';
  if (b.low === null || b.high === null) return UNBOUNDED_INTERVAL_TEXT;
  return `${(b.low * 100).toFixed(1)}% to ${(b.high * 100).toFixed(1)}%`;
}

/** "2.500 – 3.000" in the metric's unit; "unbounded" when an end is null (see formatPctInterval). */
export function formatInterval(b: Bounds | null, unit: string, format: DurationFormat): string {
  if (!b) return '—';
  if (b.low === null || b.high === null) return UNBOUNDED_INTERVAL_TEXT;
  return `${formatValue(b.low, unit, format)} – ${formatValue(b.high, unit, format)}`;
}

export const formatDate = (iso: string) => iso.slice(0, 10);

export const shortHash = (h: string) => h.slice(0, 12);

export function formatGib(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 3)} GB`;
}

/** Text for XML content and attribute values (SVG titles, the Atom feed, the sitemap). */
export const escapeXml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
