/**
 * The benchmark's environment, parsed once with zod where it starts. The runner's own settings
 * stay in `src/config.ts`; the target's default is the tests' server (`src/test-support/pg.ts`).
 */
import { z } from 'zod';

const BenchEnv = z.object({
  /** Where pgbench is looked for (before /usr/lib/postgresql/15/bin). */
  PATH: z.string().default(''),
});
export type BenchEnv = z.infer<typeof BenchEnv>;

export function loadBenchEnv(env: NodeJS.ProcessEnv = process.env): BenchEnv {
  const r = BenchEnv.safeParse(env);
  if (!r.success)
    throw new Error(
      `invalid environment:\n${r.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  return r.data;
}

/** The environment a child process (pgbench) inherits, plus `extra`. */
export { childEnv } from '@tunelab/env';
