import { z } from 'zod';

/**
 * `action: crash_server` (managed PostgreSQL cluster only): `pg_ctl stop -m immediate` — the
 * postmaster gets SIGQUIT and exits without a shutdown checkpoint, so the next start runs crash
 * recovery. With `checkpoint` (default) a `CHECKPOINT` first, so redo at the next start is near
 * zero and the startup sync finds nothing dirty.
 */
export const CrashServerStep = z.strictObject({
  action: z.literal('crash_server'),
  checkpoint: z.boolean().default(true),
});
export type CrashServerStep = z.infer<typeof CrashServerStep>;
