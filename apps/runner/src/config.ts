import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SCENARIOS_DIR } from './scenario/load.ts';

/** The runner's environment, parsed once where the CLI starts (documented in README.md). */
export type RunnerConfig = {
  apiUrl: string | null;
  token: string | null;
  spoolDir: string;
  runsDir: string;
  scenariosDir: string;
  /** Retries after the first submit attempt (TUNELAB_SUBMIT_RETRIES, default 3). */
  submitRetries: number;
  submitBaseDelayMs: number;
  /** Relative paths on the command line resolve here: where the user typed the command, also under `npm run` (INIT_CWD). */
  cwd: string;
};

export function readConfig(env: NodeJS.ProcessEnv): RunnerConfig {
  const home = path.join(os.homedir(), '.tunelab');
  const int = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
    return n;
  };
  return {
    apiUrl: env.TUNELAB_API_URL || null,
    token: env.TUNELAB_TOKEN || null,
    spoolDir: env.TUNELAB_SPOOL_DIR || path.join(home, 'spool'),
    runsDir: env.TUNELAB_RUNS_DIR || path.join(home, 'runs'),
    scenariosDir: env.TUNELAB_SCENARIOS_DIR || DEFAULT_SCENARIOS_DIR,
    submitRetries: int('TUNELAB_SUBMIT_RETRIES', 3),
    submitBaseDelayMs: int('TUNELAB_SUBMIT_BACKOFF_MS', 500),
    cwd: env.npm_lifecycle_event === 'tunelab' && env.INIT_CWD ? env.INIT_CWD : process.cwd(),
  };
}
