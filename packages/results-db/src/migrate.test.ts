import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, openResultsDb, readMigrations } from './index.ts';
import { MIGRATIONS_DIR } from './migrate.ts';
import { createTestDatabase, scriptsOf } from './testing.ts';

const TABLES = [
  'answer_data_versions',
  'database_environments',
  'fleet_jobs',
  'hardware_measurements',
  'hardware_profiles',
  'kept_answers',
  'release_events',
  'runners',
  'runs',
  'samples',
  'scenario_versions',
  'scenarios',
  'time_series_points',
];

async function tablesOf(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const t = await c.query<{ tablename: string }>(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`,
    );
    const m = await c.query<{
      migration_name: string;
      checksum: string;
      applied_steps_count: number;
      finished_at: Date | null;
    }>(
      `SELECT migration_name, checksum, applied_steps_count, finished_at FROM _prisma_migrations ORDER BY migration_name`,
    );
    return { tables: t.rows.map((r) => r.tablename), migrations: m.rows };
  } finally {
    await c.end();
  }
}

describe('migrations on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  it('apply on an empty database, record Prisma checksums, and change nothing the second time', async () => {
    const expected = await readMigrations();
    const r = await openResultsDb(db.url);
    try {
      const first = await r.migrate();
      expect(first.applied).toEqual(expected.map((m) => m.name));
      const after1 = await tablesOf(db.url);
      expect(after1.tables).toEqual(['_prisma_migrations', ...TABLES]);
      expect(after1.migrations.map((m) => [m.migration_name, m.checksum, m.applied_steps_count])).toEqual(
        expected.map((m) => [m.name, m.checksum, 1]),
      );
      const second = await r.migrate();
      expect(second).toEqual({ applied: [], alreadyApplied: expected.map((m) => m.name) });
      expect(await tablesOf(db.url)).toEqual(after1);
    } finally {
      await r.close();
    }
  });
});

describe('migrations from two processes at once', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db.drop());

  it('both succeed, the schema is created once and recorded once', async () => {
    const script = fileURLToPath(new URL('../scripts/migrate-once.ts', import.meta.url));
    const run = () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script, db.url], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('close', (code) => resolve({ code, out }));
      });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.code, a.out).toBe(0);
    expect(b.code, b.out).toBe(0);
    const results = [
      JSON.parse(a.out.trim().split('\n').at(-1) ?? '{}'),
      JSON.parse(b.out.trim().split('\n').at(-1) ?? '{}'),
    ];
    // Exactly one of them applied the init migration; the other found it applied.
    const applied = results.flatMap((r: { applied: string[] }) => r.applied);
    const expected = (await readMigrations()).map((m) => m.name);
    expect(applied.sort()).toEqual(expected.sort());
    const state = await tablesOf(db.url);
    expect(state.migrations).toHaveLength(expected.length);
    expect(state.tables).toEqual(['_prisma_migrations', ...TABLES]);
  });
});

describe('migrations on embedded PGlite', () => {
  it('apply, then change nothing on reopen of the same data directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tunelab-pglite-'));
    try {
      const a = await openResultsDb(undefined, { dataDir: dir });
      const first = await a.migrate();
      expect(first.applied.length).toBeGreaterThan(0);
      const { token } = await a.createRunner('persisted');
      await a.close();
      const b = await openResultsDb(undefined, { dataDir: dir });
      expect((await b.migrate()).applied).toEqual([]);
      expect(await b.authenticateRunner(token)).toMatchObject({ name: 'persisted' });
      await b.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a migration edited after it was applied', () => {
  it('is refused with a message naming it, and nothing else is applied', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tunelab-migrations-'));
    const r = await openResultsDb(undefined, { dataDir: 'memory://' });
    try {
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      await applyMigrations(scriptsOf(r), dir);
      const [first] = await readMigrations(dir);
      await appendFile(join(dir, first!.name, 'migration.sql'), '\n-- edited\n');
      await writeFile(join(dir, 'zzzz_later', 'migration.sql'), 'CREATE TABLE later (id int);').catch(() => undefined);
      await expect(applyMigrations(scriptsOf(r), dir)).rejects.toThrow(
        new RegExp(`migration ${first!.name} was modified`),
      );
    } finally {
      await r.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a failing migration rolls back whole and is not recorded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tunelab-migrations-'));
    const r = await openResultsDb(undefined, { dataDir: 'memory://' });
    try {
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(dir, '29990101000000_broken'));
      await writeFile(
        join(dir, '29990101000000_broken', 'migration.sql'),
        'CREATE TABLE half_done (id int);\nSELECT no_such_function();\n',
      );
      await expect(applyMigrations(scriptsOf(r), dir)).rejects.toThrow(/no_such_function/);
      const rows = await scriptsOf(r).queryRows<{ n: number }>(
        `SELECT (SELECT count(*)::int FROM pg_tables WHERE tablename = 'half_done') + (SELECT count(*)::int FROM _prisma_migrations WHERE migration_name LIKE '%broken') AS n`,
      );
      expect(rows[0]?.n).toBe(0);
    } finally {
      await r.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
