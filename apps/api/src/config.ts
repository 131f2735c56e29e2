import { parseEnv } from '@tunelab/env';
import { z } from 'zod';
import { DEFAULT_DATA_DIR } from '@tunelab/results-db';

/** The API's environment, parsed once where the process starts (STYLE: never read env elsewhere). */
export const ApiEnv = z.object({
  DATABASE_URL: z.string().url().optional(),
  TUNELAB_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Runners reporting an older `User-Agent: tunelab-runner/x.y.z` are refused (426). */
  TUNELAB_MIN_RUNNER_VERSION: z
    .string()
    .regex(/^\d+\.\d+\.\d+$/)
    .default('0.1.0'),
  /** Submissions per runner token per minute. */
  TUNELAB_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  /** GETs of comparisons, findings, answers and hardware per client address per minute. */
  TUNELAB_READ_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  /** An expensive read waits this long for a fresh answer, then gets the last computed one with its Age (0: always wait). */
  TUNELAB_READ_BUDGET_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  /** Failed authentications per client address per minute; beyond it 429 until the minute is over. */
  TUNELAB_AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(10),
  TUNELAB_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  TUNELAB_PUBLIC_URL: z.string().url().optional(),
  /** Statement deadline on the PostgreSQL results database (server statement_timeout; the client gives up 500 ms later). */
  TUNELAB_DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  /** Opening a database connection, or waiting for a free pooled one. */
  TUNELAB_DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  /** The whole request (headers and body) must arrive within this, else 408. */
  TUNELAB_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** A keep-alive connection with no traffic is closed after this. */
  TUNELAB_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(65_000),
  /** Backstop for a whole request, body and database work included: 503 after this. */
  TUNELAB_HANDLER_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** Fleet: an active job whose agent sends no heartbeat for this long is re-queued (pg-boss minimum 10). */
  TUNELAB_JOB_LEASE_S: z.coerce.number().int().min(10).max(86_400).default(90),
  /** Fleet: attempts after the first (lost leases and reported failures), with exponential backoff. */
  TUNELAB_JOB_RETRY_LIMIT: z.coerce.number().int().min(0).max(100).default(3),
});
export type ApiEnv = z.infer<typeof ApiEnv>;

/** Empty variables are unset (`@tunelab/env`); throws `EnvError` naming every bad variable. */
export const loadEnv = (env: NodeJS.ProcessEnv = process.env): ApiEnv => parseEnv(ApiEnv, env);

/** The admin CLI's: the API's, plus the running API that jobs commands may go through. */
const AdminEnv = ApiEnv.extend({
  TUNELAB_API_URL: z.string().optional(),
  TUNELAB_OPERATOR_TOKEN: z.string().optional(),
});
export type AdminEnv = z.infer<typeof AdminEnv>;
export const loadAdminEnv = (env: NodeJS.ProcessEnv = process.env): AdminEnv => parseEnv(AdminEnv, env);
