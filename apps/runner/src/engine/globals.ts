/**
 * settings.global of a scenario (MySQL/MariaDB): checked and changed before anything is created,
 * restored in every outcome from the values saved before the change (connect.ts `close()`).
 */
import { substituteParams, type ParamValue } from '@tunelab/contracts';
import type { AdminSession, GlobalSettingsChange } from '../engines/driver.ts';
import { RunFailed, UsageError } from '../errors.ts';

/** Changes the scenario's global settings; null when it changes none. */
export async function changeGlobals(
  admin: AdminSession,
  global: Record<string, string | number | boolean>,
  params: Record<string, ParamValue>,
  engine: string,
): Promise<GlobalSettingsChange | null> {
  const entries = Object.entries(global);
  if (entries.length === 0) return null;
  if (!admin.changeGlobalSettings)
    throw new UsageError(
      `the scenario changes server-wide settings (settings.global), which the ${engine} driver cannot do`,
    );
  const values = Object.fromEntries(
    entries.map(([k, v]) => [k, typeof v === 'string' ? substituteParams(v, params) : String(v)]),
  );
  try {
    return await admin.changeGlobalSettings(values);
  } catch (e) {
    // Had a change been made before the failure, the run's clean-up puts back the saved values (connect.ts).
    throw new RunFailed(`${(e as Error).message}; nothing was changed or created`);
  }
}
