/**
 * A fresh embedded results database for a test, already migrated: a copy of one that PGlite
 * initialised and the migrations filled once. Creating a PGlite data directory runs initdb inside
 * WebAssembly (seconds quiet, minutes on a loaded machine) and the migrations take seconds more;
 * copying the result takes a fraction of that and gives the same database. The template is kept
 * under the OS temp directory, named by a hash of the migrations and the PGlite version, so a
 * changed migration gets a new one; the caller's `migrate()` still runs (and finds nothing to do).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { REPO_ROOT } from './seed.ts';

const MIGRATIONS = join(REPO_ROOT, 'prisma/migrations');
const CACHE = join(tmpdir(), 'tunelab-test-pglite');

/** The installed PGlite's version: its package.json, found upwards from its entry point (the exports hide it). */
async function pgliteVersion(): Promise<string> {
  const require = createRequire(join(REPO_ROOT, 'packages/results-db/package.json'));
  for (let dir = dirname(require.resolve('@electric-sql/pglite')); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(await readFile(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
  }
  throw new Error('fresh-db: cannot find the installed PGlite version');
}

async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`pglite ${await pgliteVersion()}\u0000`);
  for (const name of (await readdir(MIGRATIONS)).sort()) {
    const file = join(MIGRATIONS, name, 'migration.sql');
    if (!existsSync(file)) continue;
    hash.update(`${name}\u0000`);
    hash.update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/** The migrated template's directory, made on first use (in a temporary directory, then renamed into place). */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = join(CACHE, await templateKey());
    if (existsSync(join(dir, 'PG_VERSION'))) return dir;
    await mkdir(CACHE, { recursive: true });
    const work = await mkdtemp(join(CACHE, 'making-'));
    const data = join(work, 'data');
    const db = await openResultsDb(undefined, { dataDir: data });
    try {
      await db.migrate();
    } finally {
      await db.close();
    }
    // Another test process may have made it meanwhile: theirs is as good, keep it.
    await rename(data, dir).catch(() => undefined);
    await rm(work, { recursive: true, force: true });
    return dir;
  })();
  return template;
}

/** Opens the embedded results database at `dataDir`; one that does not exist yet starts as a copy of the migrated template. */
export async function openTestResultsDb(dataDir: string): Promise<ResultsDb> {
  if (!existsSync(dataDir)) await cp(await migratedTemplate(), dataDir, { recursive: true });
  return openResultsDb(undefined, { dataDir });
}
