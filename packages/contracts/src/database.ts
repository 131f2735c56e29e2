import { z } from 'zod';
import { ENGINES } from './engines.ts';
import { boundedRecord, boundedString, count, LIMITS, text } from './primitives.ts';

export const Engine = z.enum(ENGINES);
export type Engine = z.infer<typeof Engine>;

/**
 * One release of a server whose major is one number, as `--server` and the fleet write it:
 * MAJOR.MINOR (PostgreSQL 17.4; https://www.postgresql.org/support/versioning/).
 */
export const ServerRelease = z
  .string()
  .regex(/^\d{1,4}\.\d{1,4}$/, 'must be a PostgreSQL release MAJOR.MINOR, e.g. 17.4');

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
