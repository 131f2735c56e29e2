/** The environment of the scripts in this folder, parsed once at start with zod (defaults defined here or in the API's env). */
import { ApiEnv } from '@tunelab/api';
import { parseEnv } from '@tunelab/env';
import { z } from 'zod';

const DemoEnv = ApiEnv.pick({
  DATABASE_URL: true,
  TUNELAB_DATA_DIR: true,
  HOST: true,
  PORT: true,
  TUNELAB_MIN_RUNNER_VERSION: true,
}).extend({
  /** The PostgreSQL to benchmark when `--target` is not given; without either, managed servers from the npm registry. */
  TUNELAB_TARGET: z.string().min(1).optional(),
  /** A runner token for the API that owns the results database, to measure through it. */
  TUNELAB_TOKEN: z.string().min(1).optional(),
  /** Where the user typed `npm start` (npm sets it); relative paths on the command line resolve here. */
  INIT_CWD: z.string().min(1).optional(),
});
export type DemoEnv = z.infer<typeof DemoEnv>;

export const loadDemoEnv = (env: NodeJS.ProcessEnv = process.env): DemoEnv => parseEnv(DemoEnv, env);

/** The environment a child process (runner, site build) inherits, plus `extra`. */
export { childEnv } from '@tunelab/env';
