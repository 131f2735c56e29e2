/**
 * Applies prisma/migrations/<name>/migration.sql in name order and records each in
 * `_prisma_migrations` exactly as Prisma Migrate does (id, sha256 checksum of the file, name,
 * started/finished timestamps, applied_steps_count = 1), so `prisma migrate deploy` and this
 * applier are interchangeable.
 *
 * Each migration runs in its own transaction under a transaction-level advisory lock: two
 * processes starting at once serialize, and the second sees the first's record and skips.
 * The "already applied?" check happens inside the locked transaction (a DO block), not before it,
 * so there is no check-then-act race.
 */
import { randomUUID } from 'node:crypto';
import { sha256Hex } from '@tunelab/scenarios';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MigrationResult, ScriptRunner } from './connection.ts';
import type { DbContext, Queries } from './context.ts';

export type { MigrationResult, ScriptRunner };

export const MIGRATIONS_DIR = new URL('../../../prisma/migrations/', import.meta.url);

// Arbitrary constant shared by every TuneLab process: "TLMIGRAT" as a 64-bit-ish number.
const MIGRATION_LOCK_KEY = 7_467_834_201_553_112;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export type Migration = { name: string; sql: string; checksum: string };

export async function readMigrations(dir: URL | string = MIGRATIONS_DIR): Promise<Migration[]> {
  const path = typeof dir === 'string' ? dir : dir.pathname;
  const entries = await readdir(path, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const out: Migration[] = [];
  for (const name of names) {
    if (!/^[A-Za-z0-9_]+$/.test(name))
      throw new Error(`migration folder name ${JSON.stringify(name)} must be [A-Za-z0-9_]`);
    const sql = await readFile(join(path, name, 'migration.sql'), 'utf8');
    out.push({ name, sql, checksum: sha256Hex(sql) });
  }
  return out;
}

/** A dollar-quote tag that does not occur in the text, so the text can be quoted verbatim. */
function dollarQuote(text: string): string {
  let tag = 'tunelab_sql';
  while (text.includes(`$${tag}$`)) tag += '_';
  return `$${tag}$${text}$${tag}$`;
}

export async function applyMigrations(db: ScriptRunner, dir: URL | string = MIGRATIONS_DIR): Promise<MigrationResult> {
  const migrations = await readMigrations(dir);
  const result: MigrationResult = { applied: [], alreadyApplied: [] };
  await db.executeScript(
    `BEGIN; SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}); ${CREATE_MIGRATIONS_TABLE}; COMMIT;`,
  );
  for (const m of migrations) {
    const before = await appliedChecksum(db, m.name);
    if (before !== undefined) {
      assertSameChecksum(m, before);
      result.alreadyApplied.push(m.name);
      continue;
    }
    const id = randomUUID();
    await db.executeScript(`BEGIN;
SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY});
DO $tunelab_migrate$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "_prisma_migrations"
                 WHERE migration_name = '${m.name}' AND finished_at IS NOT NULL AND rolled_back_at IS NULL) THEN
    EXECUTE ${dollarQuote(m.sql)};
    INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
    VALUES ('${id}', '${m.checksum}', '${m.name}', now(), clock_timestamp(), 1);
  END IF;
END
$tunelab_migrate$;
COMMIT;`);
    const rows = await db.queryRows<{ id: string }>(
      `SELECT id FROM "_prisma_migrations" WHERE migration_name = '${m.name}' AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    if (rows.some((r) => r.id === id)) result.applied.push(m.name);
    else {
      assertSameChecksum(m, (await appliedChecksum(db, m.name)) ?? m.checksum);
      result.alreadyApplied.push(m.name);
    }
  }
  return result;
}

async function appliedChecksum(db: ScriptRunner, name: string): Promise<string | undefined> {
  const rows = await db.queryRows<{ checksum: string }>(
    `SELECT checksum FROM "_prisma_migrations" WHERE migration_name = '${name}' AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  return rows[0]?.checksum;
}

function assertSameChecksum(m: Migration, applied: string) {
  if (applied !== m.checksum) {
    throw new Error(
      `migration ${m.name} was modified after it was applied (checksum ${applied} in the database, ${m.checksum} on disk); add a new migration instead`,
    );
  }
}

/** Readiness and schema checks as `ResultsDb` methods (see context.ts). */
export const schemaQueries = {
  /** Answers when the database does (readiness). */
  async ping(db: DbContext): Promise<void> {
    await db.prisma.$queryRaw`SELECT 1`;
  },
  /** Whether TuneLab's tables exist (the migrations were applied). */
  async hasSchema(db: DbContext): Promise<boolean> {
    const [row] = await db.prisma.$queryRaw<{ runs: string | null }[]>`SELECT to_regclass('public.runs')::text AS runs`;
    return row?.runs != null;
  },
} satisfies Queries;
