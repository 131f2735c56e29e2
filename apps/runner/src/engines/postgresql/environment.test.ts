import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunFile } from '../../app/run-file.ts';
import { runTunelab } from '../../test-support/cli.ts';
import { TEST_PG_URL } from '../../test-support/pg.ts';
import { postgresTargetFromEnvironment } from './environment.ts';

const temps: string[] = [];
afterAll(async () => {
  for (const d of temps) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(path.join(tmpdir(), 'tl_servers_env_'));
  temps.push(d);
  return d;
};
/** Every libpq variable unset (empty), whatever the test process has. */
const NO_LIBPQ = { PGHOST: '', PGHOSTADDR: '', PGPORT: '', PGUSER: '', PGDATABASE: '', PGPASSWORD: '', PGSSLMODE: '' };
const test = new URL(TEST_PG_URL);

describe('a server chosen the way psql does (libpq environment)', () => {
  it('is none when no variable names a server', () => {
    expect(postgresTargetFromEnvironment({ PGPASSWORD: 'x' })).toBeNull();
  });

  it('runs a scenario on the server PGHOST/PGPORT/PGUSER/PGDATABASE name, says which, records no password', async () => {
    const dir = await tempDir();
    const out = path.join(dir, 'run.json');
    const r = await runTunelab(
      ['run', 'vacuum-index-cleanup', '--param', 'rows=2000', '--repetitions', '1', '--out', out],
      {
        ...NO_LIBPQ,
        PGHOST: test.hostname,
        PGPORT: test.port || '5432',
        PGUSER: decodeURIComponent(test.username),
        PGDATABASE: test.pathname.slice(1),
        PGPASSWORD: 'tl-servers-secret',
        PGSSLMODE: 'disable',
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `no --target or --server: running on the server the libpq environment names (PGHOST=${test.hostname}, PGPORT=${test.port || '5432'}, PGUSER=`,
    );
    expect(r.stderr).toContain(`postgresql://${test.username}@${test.hostname}:${test.port || '5432'}/`);
    const text = await readFile(out, 'utf8');
    expect(text).not.toContain('tl-servers-secret');
    expect((JSON.parse(text) as RunFile).submission.database.engine).toBe('postgresql');
  }, 120_000);

  it('without --target, --server or the environment, names the three ways (exit 2), nothing created', async () => {
    const dir = await tempDir();
    const r = await runTunelab(['run', 'vacuum-index-cleanup', '--out', path.join(dir, 'run.json')], NO_LIBPQ);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pick one of three ways: --target <url>/);
    expect(r.stderr).toMatch(/--server 14…18/);
    expect(r.stderr).toMatch(/the libpq environment psql uses \(PGHOST, PGPORT, PGUSER, PGDATABASE/);
    expect(await readdir(dir)).toEqual([]);
  });
});
