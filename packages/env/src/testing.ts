/**
 * The servers and settings the tests share, read once (`@tunelab/env/testing`): a test file
 * imports these instead of reading `process.env` itself.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseEnv } from './index.ts';

const TestEnv = z.object({
  /** The shared PostgreSQL the tests run against; every test names its objects uniquely. */
  TEST_PG_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** The shared MariaDB/MySQL the tests run against. */
  TEST_MYSQL_URL: z.string().default('mysql://root@127.0.0.1:3306/test'),
  /**
   * Managed servers shared between test runs, so re-runs do not download a major again. As root
   * the default is outside /root, which the server's OS user cannot read.
   */
  TUNELAB_TEST_SERVERS_DIR: z
    .string()
    .default(
      process.getuid?.() === 0
        ? '/var/cache/tunelab/servers-test'
        : path.join(os.homedir(), '.cache', 'tunelab', 'servers-test'),
    ),
  /** Property tests: runs per property (each test has its own default) and the seed (`random` for a new one). */
  FUZZ_RUNS: z.coerce.number().int().min(1).optional(),
  FUZZ_SEED: z.union([z.literal('random'), z.coerce.number().int()]).default(13_2026),
});

export const TEST_ENV = parseEnv(TestEnv);
export const TEST_PG_URL = TEST_ENV.TEST_PG_URL;
export const TEST_MYSQL_URL = TEST_ENV.TEST_MYSQL_URL;
export const TEST_SERVERS_DIR = TEST_ENV.TUNELAB_TEST_SERVERS_DIR;

/** fast-check's runs and seed: FUZZ_RUNS (else `defaultRuns`) and FUZZ_SEED (`random`: a new seed each run). */
export function fuzzSettings(defaultRuns: number): { numRuns: number; seed: number } {
  return {
    numRuns: TEST_ENV.FUZZ_RUNS ?? defaultRuns,
    seed: TEST_ENV.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : TEST_ENV.FUZZ_SEED,
  };
}
