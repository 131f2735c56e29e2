/**
 * What the `--envelope` / `--like-article` CLI tests share: whether this machine can make an
 * envelope (root, cgroup v1 memory and blkio), the envelope cgroups that exist now, a temp home the
 * managed server's OS user can reach, and the CLI run as the `postgres` OS user (not root).
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { CLI } from './cli.ts';
import { TEST_SERVERS_DIR } from './servers.ts';

export const isRoot = process.getuid?.() === 0;
export const cgroupV1 =
  existsSync('/sys/fs/cgroup/memory/cgroup.procs') && existsSync('/sys/fs/cgroup/blkio/cgroup.procs');
export const hasPostgresUser = spawnSync('id', ['-u', 'postgres']).status === 0;

/** The envelope cgroups (v1 memory and blkio) that exist now. */
/**
 * Envelope cgroups this test's run left behind: those now present that were not before. (The
 * runner removes a dead process's leftover envelope when it makes one, so one left by an
 * interrupted earlier run may be gone after: that is not this run's leftover.)
 */
export const newEnvelopeDirs = (before: readonly string[]): string[] =>
  envelopeDirs().filter((d) => !before.includes(d));

export const envelopeDirs = (): string[] =>
  ['memory', 'blkio'].flatMap((h) =>
    existsSync(`/sys/fs/cgroup/${h}`)
      ? readdirSync(`/sys/fs/cgroup/${h}`).filter((d) => d.startsWith('tunelab-envelope-'))
      : [],
  );

/**
 * A temp directory for this file (removed after it) that the managed server's OS user can reach,
 * and the CLI environment that keeps runs, spool and servers out of the checkout.
 */
export async function envelopeTestHome(prefix: string) {
  const tmp = await mkdtemp(path.join(os.tmpdir(), prefix));
  await chmod(tmp, 0o755);
  afterAll(() => rm(tmp, { recursive: true, force: true }));
  const env = {
    TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR,
    TUNELAB_RUNS_DIR: path.join(tmp, 'runs'),
    TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'),
  };
  return { tmp, env };
}

/**
 * Runs `tunelab ARGS` as the `postgres` OS user with its own empty home as servers, runs, spool
 * and ledger directory; `inspect` looks at that home before it is removed.
 */
export async function runTunelabAsPostgres(
  args: string[],
  inspect: (r: SpawnSyncReturns<string>, home: string) => Promise<void>,
): Promise<void> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'tunelab-not-root-'));
  await chmod(home, 0o777);
  try {
    const r = spawnSync('runuser', ['-u', 'postgres', '--', process.execPath, CLI, ...args], {
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        TUNELAB_SERVERS_DIR: home,
        TUNELAB_RUNS_DIR: path.join(home, 'runs'),
        TUNELAB_SPOOL_DIR: path.join(home, 'spool'),
        TUNELAB_LEDGER_DIR: path.join(home, 'ledger'),
      },
    });
    await inspect(r, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** One statement's first column from the local MariaDB (the mariadb client, as root). */
export const askMariadb = (sql: string): string =>
  spawnSync('mariadb', ['-h127.0.0.1', '-uroot', '-N', '-e', sql], { encoding: 'utf8' }).stdout.trim();

/** The local MariaDB server's pid and a reader of its cgroups (to hold that a run moved it back). */
export async function localMariadbProcess(): Promise<{ pid: number; cgroups: () => Promise<string> }> {
  const pid = Number((await readFile(askMariadb('SELECT @@pid_file'), 'utf8')).trim());
  return { pid, cgroups: () => readFile(`/proc/${pid}/cgroup`, 'utf8') };
}
