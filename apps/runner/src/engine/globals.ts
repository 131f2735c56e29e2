/**
 * settings.global of a scenario (MySQL/MariaDB): checked and changed before anything is created,
 * restored in every outcome (connect.ts `close()`).
 */
import { substituteParams, type ParamValue } from '@tunelab/contracts';
import type { AdminSession, GlobalSettingsChange } from '../drivers/driver.ts';
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
    throw new RunFailed(`${(e as Error).message}; nothing was changed or created`);
  }
}

/** Puts the saved global settings back; on failure says which values to restore by hand. */
export async function restoreGlobals(change: GlobalSettingsChange | null, warn: (text: string) => void): Promise<void> {
  if (!change) return;
  try {
    await change.restore();
  } catch (e) {
    const manual = Object.entries(change.previous)
      .map(([k, v]) => `SET GLOBAL ${k} = ${v}`)
      .join('; ');
    warn(`${(e as Error).message}; restore by hand: ${manual}`);
    throw new RunFailed(`could not restore the server's global settings (${manual})`);
  }
}
