/**
 * What the end-to-end tests share: the repository's entry points, a scratch directory with
 * clean-ups, the `tunelab` CLI and the API as real processes, and the site build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { childEnv, envWithoutTuneLab } from '@tunelab/env';
import { nodeArgsFor } from '@tunelab/test-support';

export { TEST_PG_URL as TARGET, TEST_SERVERS_DIR } from '@tunelab/env/testing';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
// One process per child (no wrapper in between), so a SIGKILL really ends it; each starts on a
// bundle of its entry built once per test file (nodeArgsFor), not through tsx.
export const CLI = path.join(ROOT, 'apps/runner/bin/tunelab.mjs');
const SERVER = path.join(ROOT, 'apps/api/src/server.ts');
/** `node` arguments that start the `tunelab` CLI (its bin, bundled) — then the CLI's own. */
export const CLI_ARGS = await nodeArgsFor(CLI);

export type Cleanups = (() => Promise<unknown>)[];

/** A temp directory for this test file and the clean-ups run (last first) after it, then it is removed. */
export async function scratch(prefix: string): Promise<{ tmp: string; cleanups: Cleanups }> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), prefix));
  const cleanups: Cleanups = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await rm(tmp, { recursive: true, force: true });
  });
  return { tmp, cleanups };
}

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** The `tunelab` CLI in its own process from the repository root, with this environment plus `env`. */
export function runTunelab(
  args: string[],
  env: Record<string, string>,
  /** A command the CLI runs under, e.g. `['nice', '-n', '-10']` (it execs node: one process still). */
  under: string[] = [],
): Promise<CliResult> {
  return new Promise((resolve) => {
    const [cmd, ...pre] = [...under, process.execPath];
    const child = spawn(cmd, [...pre, ...CLI_ARGS, ...args], { cwd: ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The API (apps/api/src/server.ts) as a process with this environment plus `env`: `start()`
 * resolves to its URL once it listens and may be called again after `kill()` (SIGKILL); with
 * `keepPort` a restart listens on the port of the first start.
 */
export function apiProcess(env: Record<string, string>, cleanups: Cleanups, { keepPort = false } = {}) {
  let child: ChildProcess | null = null;
  let port = '0';
  const serverArgs = nodeArgsFor(SERVER);
  const start = async () => {
    const args = await serverArgs;
    return new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, args, {
        cwd: ROOT,
        env: childEnv({ HOST: '127.0.0.1', PORT: port, LOG_LEVEL: 'silent', ...env }),
      });
      child = c;
      cleanups.push(async () => c.exitCode === null && c.kill('SIGKILL'));
      let out = '';
      c.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
        if (m) {
          if (keepPort) port = m[2]!;
          resolve(m[1]!);
        }
      });
      c.stderr.on('data', (d: Buffer) => (out += d.toString()));
      c.on('exit', (code) => reject(new Error(`API exited with ${code}: ${out}`)));
    });
  };
  const kill = () =>
    new Promise<void>((resolve) => {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  return { start, kill };
}

/** `npm run build -w @tunelab/site` into `outDir`, told its data source in `env` (the caller's is left out). */
export function buildSite(outDir: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn('npm', ['run', 'build', '-w', '@tunelab/site', '--', '--outDir', outDir], {
      cwd: ROOT,
      env: envWithoutTuneLab({ ...env, ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}
