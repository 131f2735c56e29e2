/** The benchmark's environment, parsed once with zod where it starts (the build's own settings are in `src/lib/env.ts`). */
import { z } from 'zod';

const BenchEnv = z.object({
  /** Hardware-profile counts to build the site over, comma-separated. */
  BENCH_SIZES: z
    .string()
    .regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, 'must be comma-separated counts, e.g. 10,100,1000')
    .default('10,100,1000')
    .transform((s) => s.split(',').map(Number)),
});
export type BenchEnv = z.infer<typeof BenchEnv>;

export function loadBenchEnv(env: NodeJS.ProcessEnv = process.env): BenchEnv {
  const r = BenchEnv.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!r.success)
    throw new Error(
      `invalid environment:\n${r.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  return r.data;
}
