/**
 * The `tunelab` CLI as a user runs it: `node bin/tunelab.mjs …` from the repository root, in its
 * own process (so a signal reaches the real process), with extra environment variables. The file
 * started is bin/tunelab.mjs bundled once per test run (./global-setup.ts), or
 * the bin itself through tsx when no bundle was provided (TUNELAB_TEST_CLI=tsx).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { childEnv } from '@tunelab/env';

/** The file `node` runs for the CLI: the test run's bundle of bin/tunelab.mjs, or the bin itself. */
export const CLI = inject('tunelabCli') || fileURLToPath(new URL('../../bin/tunelab.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
/** Records of runs in flight go to a directory of this test process, not the user's ~/.tunelab. */
const LEDGER_DIR = path.join(os.tmpdir(), `tunelab-test-ledger-${process.pid}`);

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** Runs the CLI; `onStderr` sees all stderr so far after each chunk (and the child, to signal it). */
export function runTunelab(
  args: string[],
  env: Record<string, string>,
  onStderr?: (all: string, child: ReturnType<typeof spawn>) => void,
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: childEnv({ TUNELAB_LEDGER_DIR: LEDGER_DIR, ...env }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr, child);
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
