/**
 * The benchmark's environment, parsed once with zod where it starts. The runner's own settings
 * stay in `src/config.ts`; the target's default is the tests' server (`src/test-support/pg.ts`).
 */
import { parseEnv } from '@tunelab/env';
import { z } from 'zod';

const BenchEnv = z.object({
  /** Where pgbench is looked for (before /usr/lib/postgresql/15/bin). */
  PATH: z.string().default(''),
});
export type BenchEnv = z.infer<typeof BenchEnv>;

export const loadBenchEnv = (env: NodeJS.ProcessEnv = process.env): BenchEnv => parseEnv(BenchEnv, env);

/** The environment a child process (pgbench) inherits, plus `extra`. */
export { childEnv } from '@tunelab/env';
