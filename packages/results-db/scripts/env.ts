/** The environment of the scripts in this folder, parsed once with zod; the data directory's default is the package's own. */
import { z } from 'zod';
import { DEFAULT_DATA_DIR } from '../src/index.ts';

const ScriptEnv = z.object({
  DATABASE_URL: z.string().url().optional(),
  TUNELAB_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
});
export type ScriptEnv = z.infer<typeof ScriptEnv>;

export function loadScriptEnv(env: NodeJS.ProcessEnv = process.env): ScriptEnv {
  const r = ScriptEnv.safeParse(env);
  if (!r.success)
    throw new Error(
      `invalid environment: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}
