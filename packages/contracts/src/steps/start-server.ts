import { z } from 'zod';
import { settingName } from '../scenario-names.ts';

/**
 * `action: start_server` (managed PostgreSQL cluster only): starts the postmaster with
 * `-c name=value` for each of `settings` and connects every 10 ms until a connection succeeds
 * (giving up after 60 s + 5 ms per data-directory file). Records, in milliseconds,
 * `ready_duration` (spawn → first successful connection) and, when the start ran crash recovery,
 * `sync_duration` (server log: "database system was interrupted" → "database system was not
 * properly shut down", i.e. SyncDataDirectory()) and `redo_duration`; notes the startup progress
 * lines. Checks that each setting took effect.
 */
export const StartServerStep = z.strictObject({
  action: z.literal('start_server'),
  settings: z
    .record(
      settingName,
      z.union([z.string().regex(/^[A-Za-z0-9_.:+-]+$/, 'letters, digits, _ . : + - only'), z.number()]),
    )
    .default({}),
  /** A start without crash recovery is then an error (default true: this action exists for recovery). */
  expect_recovery: z.boolean().default(true),
});
export type StartServerStep = z.infer<typeof StartServerStep>;
