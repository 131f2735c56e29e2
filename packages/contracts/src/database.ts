import { z } from 'zod';
import { boundedRecord, boundedString, count, LIMITS, text } from './primitives.ts';

export const Engine = z.enum(['postgresql', 'mysql', 'mariadb']);
export type Engine = z.infer<typeof Engine>;

/** The server under test: its version and every setting that differs from the default. */
export const DatabaseEnvironment = z.strictObject({
  engine: Engine,
  /** Full version string as the server reports it, e.g. `PostgreSQL 15.19 (Debian 15.19-0+deb12u1) on x86_64…`. */
  version: boundedString(500),
  major: count.max(1000),
  minor: count.max(100000),
  settings: boundedRecord(text(LIMITS.shortString * 10)),
});
export type DatabaseEnvironment = z.infer<typeof DatabaseEnvironment>;

/** Parses "15.19", "PostgreSQL 16.2 on …", "10.11.19-MariaDB" into major/minor. */
export function parseServerVersion(version: string): { major: number; minor: number } | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  if (!m) return null;
  const a = Number(m[1]);
  const b = Number(m[2]);
  // PostgreSQL ≥ 10 numbers releases major.minor; MySQL/MariaDB use major.minor.patch where
  // "minor" for comparisons is the second component.
  return { major: a, minor: b };
}
