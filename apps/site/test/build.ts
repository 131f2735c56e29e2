/** Runs `astro build` of this site in a child process with its own environment and output dir. */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envWithoutDataSource } from '../src/lib/env.ts';

export const SITE_DIR = fileURLToPath(new URL('..', import.meta.url));
const ASTRO_BIN = join(dirname(createRequire(import.meta.url).resolve('astro/package.json')), 'bin/astro.mjs');

export type BuildResult = { code: number | null; output: string; ms: number };

export function buildSite(outDir: string, env: Record<string, string>): Promise<BuildResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // The build must not pick up the caller's DATABASE_URL or API URL by accident: `env` says where the data is.
    const child = spawn(process.execPath, [ASTRO_BIN, 'build', '--outDir', outDir], {
      cwd: SITE_DIR,
      env: { ...envWithoutDataSource(), ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output, ms: performance.now() - started }));
  });
}
