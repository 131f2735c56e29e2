/**
 * Finding the PostgreSQL server binaries for a managed cluster: `--cluster-bin DIR` when given,
 * else `pg_config --bindir` (when that directory holds the server), else the highest
 * `/usr/lib/postgresql/<major>/bin` (Debian/Ubuntu layout).
 */
import { access, constants, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { TargetUnreachable, UsageError } from '../../../errors.ts';
import { run } from './process.ts';

export type ServerBinaries = {
  dir: string;
  /** `postgres --version`, e.g. "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)". */
  version: string;
  major: number;
  /** How the directory was found. */
  source: 'cluster-bin' | 'pg_config' | 'debian-layout' | 'registry';
};

const REQUIRED = ['postgres', 'pg_ctl', 'initdb'] as const;
const DEBIAN_ROOT = '/usr/lib/postgresql';

async function missingIn(dir: string): Promise<string[]> {
  const missing: string[] = [];
  for (const name of REQUIRED) {
    try {
      await access(path.join(dir, name), constants.X_OK);
    } catch {
      missing.push(name);
    }
  }
  return missing;
}

async function versionOf(dir: string): Promise<{ version: string; major: number }> {
  const { stdout } = await run(path.join(dir, 'postgres'), ['--version'], { timeoutMs: 10_000 });
  const version = stdout.trim();
  const m = /\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?/.exec(version) ?? /(\d+)\.(\d+)/.exec(version);
  if (!m) throw new UsageError(`cannot read the PostgreSQL version from "${version}" (${dir}/postgres --version)`);
  return { version, major: Number(m[1]) };
}

async function candidates(root: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch {
    return [];
  }
  return entries
    .filter((e) => /^\d+(\.\d+)?$/.test(e))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
    .map((e) => path.join(root, e, 'bin'));
}

/**
 * Finds the server binaries and checks their major version. A bad `--cluster-bin` is a usage
 * error (exit 2); no server found or one older than `minMajor` cannot host the run (exit 3).
 */
export async function findServerBinaries(
  opts: { clusterBin?: string; minMajor?: number; debianRoot?: string; pgConfig?: string } = {},
): Promise<ServerBinaries> {
  const minMajor = opts.minMajor ?? 0;
  const check = (
    found: { version: string; major: number },
    dir: string,
    source: ServerBinaries['source'],
  ): ServerBinaries => {
    if (found.major < minMajor) {
      const E = source === 'cluster-bin' ? UsageError : TargetUnreachable;
      throw new E(
        `the PostgreSQL server binaries in ${dir} are version ${found.major} ("${found.version}"); this scenario needs PostgreSQL ${minMajor} or newer (install it, or point --cluster-bin at its bin directory)`,
      );
    }
    return { dir, ...found, source };
  };

  if (opts.clusterBin !== undefined) {
    const dir = path.resolve(opts.clusterBin);
    const info = await stat(dir).catch(() => null);
    if (!info?.isDirectory()) throw new UsageError(`--cluster-bin ${opts.clusterBin}: no such directory`);
    const missing = await missingIn(dir);
    if (missing.length)
      throw new UsageError(
        `--cluster-bin ${opts.clusterBin}: no executable ${missing.join(', ')} there (expected the PostgreSQL server's bin directory, e.g. /usr/lib/postgresql/15/bin)`,
      );
    return check(await versionOf(dir), dir, 'cluster-bin');
  }

  const tried: string[] = [];
  const pgConfig = opts.pgConfig ?? 'pg_config';
  const fromPgConfig = await run(pgConfig, ['--bindir'], { timeoutMs: 10_000 }).then(
    (r) => r.stdout.trim(),
    () => null,
  );
  if (fromPgConfig) {
    tried.push(`${fromPgConfig} (pg_config --bindir)`);
    if (!(await missingIn(fromPgConfig)).length) return check(await versionOf(fromPgConfig), fromPgConfig, 'pg_config');
  } else tried.push('pg_config (not found)');

  const root = opts.debianRoot ?? DEBIAN_ROOT;
  const dirs = await candidates(root);
  if (!dirs.length) tried.push(`${root}/<major>/bin (none)`);
  for (const dir of dirs) {
    tried.push(dir);
    if (!(await missingIn(dir)).length) return check(await versionOf(dir), dir, 'debian-layout');
  }
  throw new TargetUnreachable(
    `no PostgreSQL server binaries (postgres, pg_ctl, initdb) found; looked at: ${tried.join(', ')}. Install the PostgreSQL server or pass --cluster-bin DIR`,
  );
}
