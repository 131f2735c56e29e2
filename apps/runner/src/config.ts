import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SCENARIOS_DIR } from '@tunelab/scenarios';
import { z } from 'zod';
import { DEFAULT_CLEANUP_RETRY_S, DEFAULT_STALL_TIMEOUT_S } from './engine/stall.ts';

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
  /** Stall timeout (s) of every call on the server outside the measured block; 0 = none (TUNELAB_STALL_TIMEOUT_S). */
  stallTimeoutSeconds: number;
  /** How long a run's clean-up retries on fresh connections (s; TUNELAB_CLEANUP_RETRY_S). */
  cleanupRetrySeconds: number;
  /** Records of runs in flight on this machine (TUNELAB_LEDGER_DIR). */
  ledgerDir: string;
  /** Managed PostgreSQL servers installed from the npm registry (TUNELAB_SERVERS_DIR). */
  serversDir: string;
  /** Relative paths on the command line resolve here: where the user typed the command, also under `npm run` (INIT_CWD). */
  cwd: string;
};

const optional = z
  .string()
  .optional()
  .transform((v) => v || undefined);
const count = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return fallback;
      const n = Number(raw);
      if (Number.isInteger(n) && n >= 0) return n;
      ctx.addIssue({ code: 'custom', message: `${name} must be a non-negative integer, got "${raw}"` });
      return z.NEVER;
    });

/** Every variable the runner reads; defaults live here and nowhere else. */
const RunnerEnv = z.object({
  TUNELAB_API_URL: optional,
  TUNELAB_TOKEN: optional,
  TUNELAB_SPOOL_DIR: optional,
  TUNELAB_RUNS_DIR: optional,
  TUNELAB_SCENARIOS_DIR: optional,
  TUNELAB_SUBMIT_RETRIES: count('TUNELAB_SUBMIT_RETRIES', 3),
  TUNELAB_SUBMIT_BACKOFF_MS: count('TUNELAB_SUBMIT_BACKOFF_MS', 500),
  TUNELAB_STALL_TIMEOUT_S: count('TUNELAB_STALL_TIMEOUT_S', DEFAULT_STALL_TIMEOUT_S),
  TUNELAB_CLEANUP_RETRY_S: count('TUNELAB_CLEANUP_RETRY_S', DEFAULT_CLEANUP_RETRY_S),
  TUNELAB_LEDGER_DIR: optional,
  TUNELAB_SERVERS_DIR: optional,
  npm_lifecycle_event: optional,
  INIT_CWD: optional,
});

export function readConfig(env: NodeJS.ProcessEnv = process.env): RunnerConfig {
  const parsed = RunnerEnv.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join('; '));
  const e = parsed.data;
  const home = path.join(os.homedir(), '.tunelab');
  return {
    apiUrl: e.TUNELAB_API_URL ?? null,
    token: e.TUNELAB_TOKEN ?? null,
    spoolDir: e.TUNELAB_SPOOL_DIR ?? path.join(home, 'spool'),
    runsDir: e.TUNELAB_RUNS_DIR ?? path.join(home, 'runs'),
    scenariosDir: e.TUNELAB_SCENARIOS_DIR ?? DEFAULT_SCENARIOS_DIR,
    submitRetries: e.TUNELAB_SUBMIT_RETRIES,
    submitBaseDelayMs: e.TUNELAB_SUBMIT_BACKOFF_MS,
    stallTimeoutSeconds: e.TUNELAB_STALL_TIMEOUT_S,
    cleanupRetrySeconds: e.TUNELAB_CLEANUP_RETRY_S,
    ledgerDir: e.TUNELAB_LEDGER_DIR ?? path.join(home, 'in-flight'),
    serversDir: e.TUNELAB_SERVERS_DIR ?? defaultServersDir(),
    cwd: e.npm_lifecycle_event === 'tunelab' && e.INIT_CWD ? e.INIT_CWD : process.cwd(),
  };
}

/**
 * As root the servers run as an unprivileged OS user that cannot read /root, so the default is
 * outside it; otherwise the user's cache directory.
 */
export function defaultServersDir(): string {
  if (typeof process.getuid === 'function' && process.getuid() === 0) return '/var/cache/tunelab/servers';
  return path.join(os.homedir(), '.cache', 'tunelab', 'servers');
}

const MysqlEnv = z.object({ MYSQL_PWD: optional });

/**
 * The MySQL client convention: a mysql:// target without a password uses MYSQL_PWD. Read when the
 * driver connects (not with readConfig) so the secret is not carried around in the config.
 */
export const mysqlPasswordFromEnv = (env: NodeJS.ProcessEnv = process.env): string | undefined =>
  MysqlEnv.parse(env).MYSQL_PWD;
