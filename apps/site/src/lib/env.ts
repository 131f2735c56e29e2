/**
 * Where the site's data comes from, parsed once per build:
 * - TUNELAB_API_URL: a running TuneLab API (read-only GETs);
 * - else DATABASE_URL: a PostgreSQL results database;
 * - else the embedded PGlite database in TUNELAB_DATA_DIR (default `.tunelab/results`, relative
 *   to the repository root, not to apps/site).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { envWithoutTuneLab, parseEnv } from '@tunelab/env';
import { z } from 'zod';
import { DEFAULT_DATA_DIR } from '@tunelab/results-db';
import type { NoisyPolicy } from '@tunelab/contracts';

const SiteEnv = z.object({
  TUNELAB_API_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  TUNELAB_DATA_DIR: z.string().min(1).optional(),
  TUNELAB_SITE_URL: z.url().optional(),
  TUNELAB_SCENARIOS_DIR: z.string().min(1).optional(),
  /** Set by scripts/build.ts for an incremental build: the earlier build whose run pages are kept. */
  TUNELAB_BUILT_SITE: z.string().min(1).optional(),
  /** Set by scripts/build.ts: this build's output, where the data layer leaves what the next incremental build reuses. */
  TUNELAB_BUILD_OUT: z.string().min(1).optional(),
});

/** Where links in the feed and sitemap point when TUNELAB_SITE_URL is not set (a build warns). */
export const LOCAL_SITE_URL = 'http://localhost:4321';

type CommonConfig = {
  repoRoot: string;
  scenariosDir: string;
  siteUrl: string;
  siteUrlSet: boolean;
  /** An earlier build's output: the runs its manifest lists are not rendered again (see built-runs.ts). */
  builtSite: string | undefined;
  /** This build's output directory when scripts/build.ts runs it (the kept comparison inputs go there). */
  buildOut: string | undefined;
  /** Runs flagged noisy in the answers: left out unless `include` (the API pools them by default). */
  noisy?: NoisyPolicy;
};
export type SiteConfig =
  | ({ kind: 'api'; url: string } & CommonConfig)
  | ({ kind: 'postgresql'; url: string } & CommonConfig)
  | ({ kind: 'pglite'; dataDir: string } & CommonConfig);

/** The monorepo root: the nearest package.json upwards that declares workspaces. */
export function findRepoRoot(from: string = process.cwd()): string {
  let dir = resolve(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      const parsed = z
        .object({ workspaces: z.array(z.string()).optional() })
        .safeParse(JSON.parse(readFileSync(pkg, 'utf8')));
      if (parsed.success && parsed.data.workspaces) return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`TuneLab site: no monorepo root (package.json with "workspaces") above ${from}`);
    dir = up;
  }
}

/**
 * The environment for a child build that must be told its data source: the caller's, minus
 * DATABASE_URL and every TUNELAB_ variable, so it cannot pick up the caller's database or API.
 */
export function envWithoutDataSource(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return envWithoutTuneLab({}, env);
}

export function readSiteConfig(env: NodeJS.ProcessEnv = process.env): SiteConfig {
  let e: z.infer<typeof SiteEnv>;
  try {
    e = parseEnv(SiteEnv, env);
  } catch (err) {
    throw new Error(`TuneLab site: ${(err as Error).message}`, { cause: err });
  }
  const repoRoot = findRepoRoot();
  const fromRoot = (p: string) => (isAbsolute(p) ? p : resolve(repoRoot, p));
  const common = {
    repoRoot,
    scenariosDir: fromRoot(e.TUNELAB_SCENARIOS_DIR ?? 'scenarios'),
    siteUrl: e.TUNELAB_SITE_URL ?? LOCAL_SITE_URL,
    siteUrlSet: e.TUNELAB_SITE_URL !== undefined,
    builtSite: e.TUNELAB_BUILT_SITE === undefined ? undefined : fromRoot(e.TUNELAB_BUILT_SITE),
    buildOut: e.TUNELAB_BUILD_OUT === undefined ? undefined : fromRoot(e.TUNELAB_BUILD_OUT),
  };
  if (e.TUNELAB_API_URL) return { kind: 'api', url: e.TUNELAB_API_URL.replace(/\/+$/, ''), ...common };
  if (e.DATABASE_URL) return { kind: 'postgresql', url: e.DATABASE_URL, ...common };
  return { kind: 'pglite', dataDir: fromRoot(e.TUNELAB_DATA_DIR ?? DEFAULT_DATA_DIR), ...common };
}
