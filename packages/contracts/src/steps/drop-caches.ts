import { z } from 'zod';

/**
 * `action: drop_caches` (managed cluster): `sync -f` on the data directory's file system, then
 * `echo 3 > /proc/sys/vm/drop_caches`, so the next start reads metadata from disk. Needs root on
 * Linux; when not permitted it is skipped, with a note and `drop_caches_skipped` = 1 recorded.
 * It affects the whole machine: only when `when` (a boolean or a {{param}}) is true.
 */
export const DropCachesStep = z.strictObject({
  action: z.literal('drop_caches'),
  when: z
    .union([
      z.boolean(),
      z.string().regex(/^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$/, 'must be true, false or a {{param}} placeholder'),
    ])
    .default(true),
});
export type DropCachesStep = z.infer<typeof DropCachesStep>;
