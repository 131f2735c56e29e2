import os from 'node:os';
import path from 'node:path';
import { writeRunFile, type RunFile } from './run-file.ts';

/** Where the run file went: the place asked for, or the first writable fallback (and why). */
export type SavedRun = { file: string; fallbackReason?: string } | { file: null; reasons: string[] };

/** The OS temp directory's folder for run files that could not be written where asked. */
export const fallbackRunsDir = () => path.join(os.tmpdir(), 'tunelab-runs');

/** `dir: no space left on the device` — a file-system error as a phrase, without a stack. */
export function describeFileError(dir: string, e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return `${dir}: ${err.code === 'ENOSPC' ? 'no space left on the device' : err.message}`;
}

/**
 * Writes the run file where asked and, when that fails (a full disk, a read-only or missing
 * directory), into the first writable place of `fallbackDirs` (e.g. the spool, then the OS temp
 * dir). Never throws: a measurement is never lost to a file error — the caller prints the run
 * when no place took it. No partial file is left anywhere (writeRunFile removes its temp file).
 */
export async function saveRunFile(file: string, run: RunFile, fallbackDirs: string[]): Promise<SavedRun> {
  const reasons: string[] = [];
  const places = [file, ...fallbackDirs.map((d) => path.join(d, `${run.runId}.json`))];
  for (const place of [...new Set(places)]) {
    try {
      await writeRunFile(place, run);
      return place === file ? { file } : { file: place, fallbackReason: reasons.join('; ') };
    } catch (e) {
      reasons.push(describeFileError(path.dirname(place), e));
    }
  }
  return { file: null, reasons };
}
