/**
 * `tunelab advise` writes no WAL. On the shared test server other people's work moves the WAL
 * every second, so this runs on a throwaway cluster of its own where nothing else writes:
 * wal_level = minimal (no standby snapshots every 15 s), autovacuum off, a CHECKPOINT before, and
 * the catalogs vacuumed so that reading them finds no dead row to prune (a prune is WAL-logged,
 * and any reader may do it: it is not advise writing). Then the WAL insert position must not move
 * while advise reads, and — the check that the test can fail — it does move when a table's
 * rows are read (the deleted rows' pages are pruned).
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createManagedCluster, findServerBinaries } from '../engines/managed-postgresql/cluster/index.ts';
import { runTunelab } from '../test-support/cli.ts';
import type { AdviseReport } from './command.ts';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const DB = 'advise_wal';
let cluster: Awaited<ReturnType<typeof createManagedCluster>>;
let parent: string;

async function sql(database: string, ...statements: string[]) {
  const client = new pg.Client({ connectionString: cluster.url(database) });
  await client.connect();
  try {
    let last: pg.QueryResult | undefined;
    for (const s of statements) last = await client.query(s);
    return last!;
  } finally {
    await client.end();
  }
}
const walInsert = async () => (await sql(DB, 'SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0].lsn as string;

beforeAll(async () => {
  parent = await mkdtemp(path.join(tmpdir(), 'tunelab-advise-wal-'));
  await chmod(parent, 0o755);
  cluster = await createManagedCluster({
    binaries: await findServerBinaries({ minMajor: 14 }),
    parentDir: parent,
    settings: { wal_level: 'minimal', max_wal_senders: '0' },
  });
  await cluster.start();
  await sql('postgres', `CREATE DATABASE ${DB}`);
  await sql(
    DB,
    `CREATE TABLE bloated (id int PRIMARY KEY, pad text);
     INSERT INTO bloated SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g;
     DELETE FROM bloated WHERE id % 5 < 3`,
    'ANALYZE bloated',
  );
  // Every catalog, in both databases advise or this test connects to, left without dead rows.
  for (const database of ['postgres', DB]) {
    const { rows } = await sql(
      database,
      "SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = 'pg_catalog'",
    );
    await sql(database, ...rows.map((r: { name: string }) => `VACUUM ${r.name}`));
  }
  await sql(DB, 'CHECKPOINT');
});

afterAll(async () => {
  await cluster?.destroy();
  await rm(parent, { recursive: true, force: true });
});

describe('tunelab advise writes no WAL', () => {
  it('the WAL insert position does not move while advise reads', async () => {
    // Nothing else writes here: the position stands still without advise too.
    const idle = await walInsert();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await walInsert()).toBe(idle);

    const before = await walInsert();
    const r = await runTunelab(['advise', '--target', cluster.url(DB), '--json', '--storage', 'ssd'], {
      TUNELAB_API_URL: '',
    });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as AdviseReport;
    expect(report.scenarios.find((s) => s.key === 'vacuum-full-rewrite')!.tables.map((t) => t.table)).toEqual([
      'public.bloated',
    ]);
    expect(await walInsert()).toBe(before);
  });

  it('reading the table’s rows does move it (the check can fail)', async () => {
    const before = await walInsert();
    await sql(DB, 'SELECT count(*) FROM bloated');
    expect(await walInsert()).not.toBe(before);
  });
});
