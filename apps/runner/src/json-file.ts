import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `value` as JSON atomically (temp file + rename, the directory created if missing), so a
 * crash never leaves half a file behind; when the write fails (a full disk) the partial temp file
 * is removed before the error is thrown.
 */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`);
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => {});
    throw e;
  }
}

/** A JSON record of the given `format` read from `file`; null when it is missing, unreadable or of another format. */
export async function readJsonRecord<T extends { format: string }>(
  file: string,
  format: T['format'],
): Promise<T | null> {
  try {
    const r = JSON.parse(await readFile(file, 'utf8')) as T;
    return r.format === format ? r : null;
  } catch {
    return null;
  }
}
