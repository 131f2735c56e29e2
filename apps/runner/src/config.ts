import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SCENARIOS_DIR } from '@tunelab/scenarios';
import { parseEnv } from '@tunelab/env';
import { StorageTier } from '@tunelab/contracts';
import { z } from 'zod';
import { DEFAULT_HOST_LEASE_MS } from './engine/host-changes.ts';
import { DEFAULT_CLEANUP_RETRY_S, DEFAULT_STALL_TIMEOUT_S } from './engine/stall.ts';
import { defaultServersDir } from './engines/managed-postgresql/servers/store.ts';

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
  /**
   * How long a throttle on a server of the user's outlives its runner's last renewal (s;
   * TUNELAB_HOST_LEASE_S): after it any `tunelab` command undoes it (engine/host-changes.ts).
   */
  hostLeaseSeconds: number;
  /** Managed PostgreSQL servers installed from the npm registry (TUNELAB_SERVERS_DIR). */
  serversDir: string;
  /** The probe's history of this machine's disks, for a stable storage tier (TUNELAB_PROBE_HISTORY). */
  probeHistoryFile: string;
  /**
   * The storage tier of this machine's disk, set instead of measured (TUNELAB_STORAGE_TIER): what
   * `--like-article` throttles from and `tunelab probe` reports; unset: measured, with memory.
   */
  storageTier: StorageTier | null;
  /** Relative paths on the command line resolve here: where the user typed the command, also under `npm run` (INIT_CWD). */
  cwd: string;
};

// Empty variables are unset (`parseEnv`), so their defaults apply.
const optional = z.string().optional();
const NOT_A_COUNT = 'must be a non-negative integer';
const count = (fallback: number) =>
  z.coerce.number({ error: NOT_A_COUNT }).int({ error: NOT_A_COUNT }).min(0, { error: NOT_A_COUNT }).default(fallback);

/** Every variable the runner reads; defaults live here and nowhere else. */
const RunnerEnv = z.object({
  TUNELAB_API_URL: optional,
  TUNELAB_TOKEN: optional,
  TUNELAB_SPOOL_DIR: optional,
  TUNELAB_RUNS_DIR: optional,
  TUNELAB_SCENARIOS_DIR: optional,
  TUNELAB_SUBMIT_RETRIES: count(3),
  TUNELAB_SUBMIT_BACKOFF_MS: count(500),
  TUNELAB_STALL_TIMEOUT_S: count(DEFAULT_STALL_TIMEOUT_S),
  TUNELAB_CLEANUP_RETRY_S: count(DEFAULT_CLEANUP_RETRY_S),
  TUNELAB_LEDGER_DIR: optional,
  TUNELAB_HOST_LEASE_S: z.coerce
    .number({ error: 'must be a whole number of seconds ≥ 2' })
    .int({ error: 'must be a whole number of seconds ≥ 2' })
    .min(2, { error: 'must be a whole number of seconds ≥ 2' })
    .default(DEFAULT_HOST_LEASE_MS / 1000),
  TUNELAB_SERVERS_DIR: optional,
  TUNELAB_PROBE_HISTORY: optional,
  TUNELAB_STORAGE_TIER: z
    .enum(StorageTier.options, {
      error: (issue) => `must be one of ${StorageTier.options.join(', ')} (got "${String(issue.input)}")`,
    })
    .optional(),
  npm_lifecycle_event: optional,
  INIT_CWD: optional,
});

export function readConfig(env: NodeJS.ProcessEnv = process.env): RunnerConfig {
  const e = parseEnv(RunnerEnv, env);
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
    hostLeaseSeconds: e.TUNELAB_HOST_LEASE_S,
    serversDir: e.TUNELAB_SERVERS_DIR ?? defaultServersDir(),
    probeHistoryFile: e.TUNELAB_PROBE_HISTORY ?? path.join(home, 'probe-history.json'),
    storageTier: e.TUNELAB_STORAGE_TIER ?? null,
    cwd: e.npm_lifecycle_event === 'tunelab' && e.INIT_CWD ? e.INIT_CWD : process.cwd(),
  };
}

const MysqlEnv = z.object({ MYSQL_PWD: optional });

/**
 * The MySQL client convention: a mysql:// target without a password uses MYSQL_PWD. Read when the
 * driver connects (not with readConfig) so the secret is not carried around in the config.
 */
export const mysqlPasswordFromEnv = (env: NodeJS.ProcessEnv = process.env): string | undefined =>
  parseEnv(MysqlEnv, env).MYSQL_PWD;
