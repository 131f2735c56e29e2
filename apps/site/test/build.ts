/** Runs `astro build` of this site in a child process with its own environment and output dir. */
import { fileURLToPath } from 'node:url';
import { runAstroBuild } from '../scripts/astro-build.ts';
import { envWithoutDataSource } from '../src/lib/env.ts';

export const SITE_DIR = fileURLToPath(new URL('..', import.meta.url));

export type BuildResult = { code: number | null; output: string; ms: number };

export async function buildSite(outDir: string, env: Record<string, string>): Promise<BuildResult> {
  const started = performance.now();
  let output = '';
  // The build must not pick up the caller's DATABASE_URL or API URL by accident: `env` says where the data is.
  const code = await runAstroBuild(
    outDir,
    { ...envWithoutDataSource(), ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1', ...env },
    ['ignore', 'pipe', 'pipe'],
    (child) => {
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    },
  );
  return { code, output, ms: performance.now() - started };
}
