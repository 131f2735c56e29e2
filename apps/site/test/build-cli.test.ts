/**
 * `npm run site:build -- --outDir DIR` used to fail with "Unexpected argument" (the
 * root script nested `npm run`, which took the flags as its own). The documented command, run as a
 * user runs it from the repository root, builds into DIR (a temporary directory).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestResultsDb } from './fresh-db.ts';
import { envWithoutDataSource } from '../src/lib/env.ts';
import { REPO_ROOT } from './seed.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-site-build-cli-'));
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function npm(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('npm run site:build -- --outDir DIR', () => {
  it('passes --outDir and --full to the build', async () => {
    const dataDir = join(work, 'db');
    const db = await openTestResultsDb(dataDir);
    try {
      await db.migrate();
    } finally {
      await db.close();
    }
    const out = join(work, 'out');
    const env = { ...envWithoutDataSource(), ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1', TUNELAB_DATA_DIR: dataDir };
    const r = await npm(['run', 'site:build', '--', '--outDir', out, '--full'], env);
    expect(r.output).not.toContain('Unexpected argument');
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain(`full build: 0 runs → ${out}`);
    expect(existsSync(join(out, 'index.html'))).toBe(true);
    expect(await readFile(join(out, 'index.html'), 'utf8')).toContain('Not measured yet:');
  });

  it('refuses an unknown flag with its usage, exit 2', async () => {
    const r = await npm(['run', 'site:build', '--', '--outdir', join(work, 'nope')], envWithoutDataSource());
    expect(r.code).toBe(2);
    expect(r.output).toContain('usage: npm run site:build -- [--outDir DIR] [--full]');
    expect(existsSync(join(work, 'nope'))).toBe(false);
  });
});
