/** The benchmark's environment, parsed once with zod where it starts (the build's own settings are in `src/lib/env.ts`). */
import { parseEnv } from '@tunelab/env';
import { z } from 'zod';

const BenchEnv = z.object({
  /** Which parts run, comma-separated: weight (page weight over the answers-first fixture), sizes, fleet; the sweep (sizes) only when named. */
  BENCH_PARTS: z
    .string()
    .regex(
      /^\s*(weight|sizes|fleet)\s*(,\s*(weight|sizes|fleet)\s*)*$/,
      'must be a comma-separated list of weight, sizes, fleet',
    )
    .default('weight,fleet')
    .transform((s) => new Set(s.split(',').map((x) => x.trim()))),
  /** Also print the page weight of a site built earlier into this directory (e.g. by an older commit), for a before/after. */
  BENCH_WEIGHT_BEFORE: z.string().min(1).optional(),
  /** Hardware-profile counts to build the site over, comma-separated. */
  BENCH_SIZES: z
    .string()
    .regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, 'must be comma-separated counts, e.g. 10,100,1000')
    .default('10,100,1000')
    .transform((s) => s.split(',').map(Number)),
  /** The fleet-scale part: a full build over this many runs … */
  BENCH_FLEET_RUNS: z.coerce.number().int().min(1).default(2_000),
  /** … spread over this many machines … */
  BENCH_FLEET_MACHINES: z.coerce.number().int().min(1).default(100),
  /** … then an incremental rebuild after this many new runs. */
  BENCH_NEW_RUNS: z.coerce.number().int().min(1).default(100),
});
export type BenchEnv = z.infer<typeof BenchEnv>;

export const loadBenchEnv = (env: NodeJS.ProcessEnv = process.env): BenchEnv => parseEnv(BenchEnv, env);
