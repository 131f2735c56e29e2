/** The environment of the scripts in this folder, parsed once with zod; the data directory's default is the package's own. */
import { parseEnv } from '@tunelab/env';
import { z } from 'zod';
import { DEFAULT_DATA_DIR } from '../src/index.ts';

const ScriptEnv = z.object({
  DATABASE_URL: z.string().url().optional(),
  TUNELAB_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
});
export type ScriptEnv = z.infer<typeof ScriptEnv>;

export const loadScriptEnv = (env: NodeJS.ProcessEnv = process.env): ScriptEnv => parseEnv(ScriptEnv, env);
