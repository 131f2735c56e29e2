/**
 * Spawns `astro build` of this site into an outDir, from a working directory of its own, so that
 * builds may run at the same time (the e2e tests' builds beside the site tests').
 *
 * A static Astro build writes its prerender chunks to `.astro/.prerender/` under the process's
 * working directory whenever outDir lies outside it (getOutDirWithinCwd in
 * astro/dist/core/build/common.js), imports them from there to render the pages, and deletes the
 * folder when done. Two builds started from apps/site overwrote and deleted each other's chunks
 * (ENOENT on `.astro/.prerender/_astro/…`, "Unexpected identifier" while importing a half-written
 * chunk). Each build therefore runs in a fresh folder under apps/site/.astro/ (ignored by git) with
 * `--root` still apps/site: its chunks resolve their external packages upwards through apps/site's
 * and the repository's node_modules, and the data layer still finds the repository root upwards
 * from the working directory (findRepoRoot in src/lib/env.ts). The folder goes when the build ends.
 *
 * Still shared by concurrent builds, under apps/site: Astro's sync rewrites the same type
 * declarations in `.astro/` (types.d.ts, content.d.ts; read by the type check, not by a build), and
 * Vite's dependency cache in node_modules/.vite is written by rename.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SITE_DIR = fileURLToPath(new URL('..', import.meta.url));
const ASTRO_BIN = join(dirname(createRequire(import.meta.url).resolve('astro/package.json')), 'bin/astro.mjs');
/** Where the builds' own working directories go; inside apps/site so that packages resolve from there. */
const WORK_DIRS = join(SITE_DIR, '.astro', 'builds');

/** Runs `astro build --outDir outDir` with `env` and `stdio`; `started` sees the child (to read its output). Resolves to its exit code. */
export async function runAstroBuild(
  outDir: string,
  env: NodeJS.ProcessEnv,
  stdio: StdioOptions,
  started: (child: ChildProcess) => void = () => {},
): Promise<number | null> {
  await mkdir(WORK_DIRS, { recursive: true });
  const cwd = await mkdtemp(join(WORK_DIRS, 'build-'));
  try {
    return await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [ASTRO_BIN, 'build', '--root', SITE_DIR, '--outDir', outDir], {
        cwd,
        env,
        stdio,
      });
      started(child);
      child.on('error', reject);
      child.on('close', resolve);
    });
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}
