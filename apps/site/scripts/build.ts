/**
 * Builds the site, incrementally when it can: `npm run site:build -- [--outDir DIR] [--full]` (from the
 * repository root; the same as `npm run build -w @tunelab/site -- …`). A relative DIR is relative to
 * the directory npm was started in.
 *
 * Runs are immutable, so the pages of a run, once written, never change. When DIR holds an
 * earlier build whose manifest (built-runs.ts) carries the same fingerprint — the same site code,
 * dependencies, scenario folders and site URL — only the new runs' pages and the aggregate pages
 * (home, scenarios, hardware, downloads, feed, sitemap, 404) are rendered, into a temporary
 * directory next to DIR, and then moved in; the kept runs' details are read back from their
 * run.json. Otherwise (no manifest, another fingerprint, or --full) the whole site is built and
 * replaces DIR. A failed build leaves DIR as it was.
 *
 * Exit codes: 0 built; 1 the build failed (its output says why); 2 bad arguments.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findRepoRoot } from '../src/lib/env.ts';
import { MANIFEST_FILE, readManifest, type BuildManifest } from '../src/lib/built-runs.ts';
import { runAstroBuild } from './astro-build.ts';

const SITE_DIR = fileURLToPath(new URL('..', import.meta.url));
const USAGE = `usage: npm run site:build -- [--outDir DIR] [--full]

  --outDir DIR  where the site goes (default apps/site/dist); an earlier build there is updated
  --full        render every page even if DIR holds a build of the same code

exit codes: 0 built, 1 the build failed, 2 bad arguments`;

/** Everything that shapes a page besides the data: the fingerprint a kept run page must share. */
const FINGERPRINTED = [
  'apps/site/src',
  'apps/site/astro.config.mjs',
  'apps/site/package.json',
  'packages',
  'scenarios',
];
const FINGERPRINTED_FILES = ['package-lock.json'];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.astro', '.turbo']);

async function filesUnder(path: string): Promise<string[]> {
  const s = await stat(path).catch(() => null);
  if (!s) return [];
  if (s.isFile()) return [path];
  const out: string[] = [];
  for (const e of await readdir(path, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name)) continue;
    out.push(...(await filesUnder(join(path, e.name))));
  }
  return out;
}

async function siteFingerprint(repoRoot: string, env: NodeJS.ProcessEnv): Promise<string> {
  const hash = createHash('sha256');
  const files = (
    await Promise.all([...FINGERPRINTED, ...FINGERPRINTED_FILES].map((p) => filesUnder(join(repoRoot, p))))
  )
    .flat()
    .map((f) => relative(repoRoot, f))
    .sort();
  for (const f of files) {
    hash.update(`${f}\u0000`);
    hash.update(await readFile(join(repoRoot, f)));
    hash.update('\u0000');
  }
  for (const k of ['TUNELAB_SITE_URL', 'TUNELAB_SCENARIOS_DIR']) hash.update(`${k}=${env[k] ?? ''}\u0000`);
  return hash.digest('hex');
}

/** Runs `astro build`; quiet, Astro's page log is dropped and only the data layer's `[tunelab]` lines are kept. */
async function astroBuild(
  outDir: string,
  env: NodeJS.ProcessEnv,
  quiet: boolean,
): Promise<{ code: number; notes: string[] }> {
  const notes: string[] = [];
  let rest = '';
  const code = await runAstroBuild(outDir, env, ['ignore', quiet ? 'pipe' : 'inherit', 'inherit'], (child) =>
    child.stdout?.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop() ?? '';
      notes.push(...lines.filter((l) => l.startsWith('[tunelab]')));
    }),
  );
  return { code: code ?? 1, notes };
}

/** Moves the incremental build in `from` into `to`: new run folders added, every other page replaced. */
async function merge(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { withFileTypes: true });
  const written = new Set(entries.map((e) => e.name));
  for (const e of entries) {
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isDirectory() && (e.name === 'runs' || e.name === '_astro')) {
      // Kept run pages link the assets they were built with: assets are added, never removed.
      await mkdir(dst, { recursive: true });
      for (const inner of await readdir(src)) {
        await rm(join(dst, inner), { recursive: true, force: true });
        await rename(join(src, inner), join(dst, inner));
      }
    } else {
      await rm(dst, { recursive: true, force: true });
      await rename(src, dst);
    }
  }
  // Aggregate pages that this build no longer writes (a scenario folder removed) go too.
  for (const name of await readdir(to)) {
    if (name !== 'runs' && name !== '_astro' && name !== MANIFEST_FILE && !written.has(name))
      await rm(join(to, name), { recursive: true, force: true });
  }
}

export type SiteBuildResult = {
  code: number;
  incremental: boolean;
  newRuns: number;
  keptRuns: number;
  /** The data layer's `[tunelab]` lines (the data load time among them) of a quiet build. */
  notes: string[];
};

/** Builds the site into `out` (see the file comment); `env` is the build's environment. */
export async function buildSiteInto(
  out: string,
  options: {
    full?: boolean;
    env?: NodeJS.ProcessEnv;
    /** Astro's page log not shown (errors still are). */ quiet?: boolean;
  } = {},
): Promise<SiteBuildResult> {
  const env = { ...(options.env ?? process.env), ASTRO_TELEMETRY_DISABLED: '1' };
  const target = resolve(out);
  const fingerprint = await siteFingerprint(findRepoRoot(SITE_DIR), env);
  const previous = options.full ? null : await readManifest(target);
  let incremental = previous !== null && previous.fingerprint === fingerprint;
  await mkdir(dirname(target), { recursive: true });
  const tmp = await mkdtemp(join(dirname(target), `.${basename(target)}-build-`));
  try {
    const { code, notes } = await astroBuild(
      tmp,
      { ...env, TUNELAB_BUILD_OUT: tmp, ...(incremental ? { TUNELAB_BUILT_SITE: target } : {}) },
      options.quiet ?? false,
    );
    if (code !== 0) return { code, incremental, newRuns: 0, keptRuns: 0, notes };
    const newRuns = await readdir(join(tmp, 'runs')).catch(() => []);
    // The data lost runs of the earlier build (another or a reset database): load.ts then renders
    // every run, and the output is replaced instead of merged.
    // The sitemap this build wrote lists every run in the data.
    const sitemap = await readFile(join(tmp, 'sitemap.xml'), 'utf8').catch(() => '');
    const listed = new Set([...sitemap.matchAll(/\/runs\/([0-9a-f-]+)\//g)].map((m) => m[1]));
    const kept = new Set(previous?.runs);
    if (incremental && ([...kept].some((id) => !listed.has(id)) || newRuns.some((id) => kept.has(id))))
      incremental = false;
    if (incremental) {
      await merge(tmp, target);
    } else {
      await rm(target, { recursive: true, force: true });
      await rename(tmp, target);
    }
    const manifest: BuildManifest = {
      fingerprint,
      runs: [...new Set([...(incremental ? (previous?.runs ?? []) : []), ...newRuns])].sort(),
    };
    await writeFile(join(target, MANIFEST_FILE), `${JSON.stringify(manifest)}\n`);
    return { code: 0, incremental, newRuns: newRuns.length, keptRuns: incremental ? kept.size : 0, notes };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

// Also imported by the site's tests and benchmark: the command line runs only when executed.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let args;
  try {
    args = parseArgs({
      options: {
        outDir: { type: 'string', default: join(SITE_DIR, 'dist') },
        full: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (args.help) {
    console.log(USAGE);
    process.exit(0);
  }
  // npm runs a script in the package's folder; a relative --outDir means the caller's directory.
  args.outDir = resolve(process.env.INIT_CWD ?? process.cwd(), args.outDir);
  const started = performance.now();
  const r = await buildSiteInto(args.outDir, { full: args.full });
  if (r.code !== 0) {
    console.error(`\n✖ site build failed (exit ${r.code}); ${args.outDir} is unchanged`);
    process.exit(1);
  }
  console.log(
    `[tunelab] ${r.incremental ? `incremental build: ${r.newRuns} new runs rendered, ${r.keptRuns} kept` : `full build: ${r.newRuns} runs`} → ${args.outDir} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}
