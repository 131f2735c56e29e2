/**
 * The benchmarks' environment, parsed once with zod where a benchmark starts. The API's own
 * settings stay in `src/config.ts`; these only say where the benchmarks put their databases.
 */
import { parseEnv } from '@tunelab/env';
import { z } from 'zod';

const BenchEnv = z.object({
  /** The PostgreSQL server a benchmark creates its throwaway database on (`--database-url` overrides it). */
  BENCH_ADMIN_DATABASE_URL: z.url().default('postgresql://postgres@127.0.0.1:5432/postgres'),
  /** The throwaway database's name is this prefix + random hex (parallel benchmarks take their own prefix). */
  BENCH_DATABASE_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,40}$/)
    .default('tunelab_bench_'),
  /** Set by bench:ingest's supervisor for the measuring child: the database it created for it. */
  TUNELAB_BENCH_DATABASE: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,40}[0-9a-f]+$/)
    .optional(),
});
export type BenchEnv = z.infer<typeof BenchEnv>;

export const loadBenchEnv = (env: NodeJS.ProcessEnv = process.env): BenchEnv => parseEnv(BenchEnv, env);

/** The environment a child process (the API server, the measuring process) inherits, plus `extra`. */
export { childEnv } from '@tunelab/env';
