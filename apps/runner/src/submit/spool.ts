import { mkdir, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { readRunFile, writeRunFile, type RunFile } from '../run-file.ts';
import { submitRun, type SubmitOptions, type SubmitOutcome } from './client.ts';

/**
 * The spool: runs measured but not yet stored by the API wait here as run files named
 * `<runId>.json`, and `tunelab spool flush` sends them with their original idempotency keys.
 * A file that cannot be read as a run never blocks the others: `list` reports it, `flush` moves
 * it to `quarantine/` with the reason and sends the rest. Two flushes at once are safe: a file
 * the other flush already sent and removed is skipped, and a run both send is stored once (same
 * idempotency key).
 */
export const QUARANTINE_DIR = 'quarantine';

export async function spoolRun(dir: string, run: RunFile): Promise<string> {
  const file = path.join(dir, `${run.runId}.json`);
  await writeRunFile(file, run);
  return file;
}

export type SpoolEntry = { file: string; run: RunFile };
export type CorruptEntry = { file: string; reason: string };

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/** Reads one spooled file: a run, a corrupt file (with the reason), or null when it is gone. */
async function readEntry(file: string): Promise<SpoolEntry | CorruptEntry | null> {
  try {
    return { file, run: await readRunFile(file) };
  } catch (e) {
    const message = (e as Error).message;
    // readRunFile words a vanished file as "cannot read a run file: ENOENT …".
    if (isMissing(e) || /cannot read a run file: ENOENT/.test(message)) return null;
    return { file, reason: message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message };
  }
}

async function spoolFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((e: unknown) => {
    if (isMissing(e)) return [] as string[];
    throw e;
  });
  return names
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => path.join(dir, n));
}

export async function listSpool(dir: string): Promise<{ runs: SpoolEntry[]; corrupt: CorruptEntry[] }> {
  const runs: SpoolEntry[] = [];
  const corrupt: CorruptEntry[] = [];
  for (const file of await spoolFiles(dir)) {
    const entry = await readEntry(file);
    if (!entry) continue;
    if ('run' in entry) runs.push(entry);
    else corrupt.push(entry);
  }
  return { runs, corrupt };
}

export type FlushResult = { file: string; runId: string; outcome: SubmitOutcome };
export type Quarantined = CorruptEntry & { movedTo: string };

/** Moves a corrupt file out of the way (keeping it for inspection), unless another flush already did. */
async function quarantine(dir: string, entry: CorruptEntry): Promise<Quarantined | null> {
  const target = path.join(dir, QUARANTINE_DIR);
  await mkdir(target, { recursive: true });
  const movedTo = path.join(target, path.basename(entry.file));
  try {
    await rename(entry.file, movedTo);
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
  return { ...entry, movedTo };
}

/** Sends every spooled run; stored ones leave the spool, refused and unreachable ones stay, corrupt ones go to quarantine/. */
export async function flushSpool(
  dir: string,
  opts: SubmitOptions,
): Promise<{ results: FlushResult[]; quarantined: Quarantined[] }> {
  const results: FlushResult[] = [];
  const quarantined: Quarantined[] = [];
  for (const file of await spoolFiles(dir)) {
    // Read just before sending: another flush may have sent and removed it meanwhile.
    const entry = await readEntry(file);
    if (!entry) continue;
    if (!('run' in entry)) {
      const q = await quarantine(dir, entry);
      if (q) quarantined.push(q);
      continue;
    }
    const outcome = await submitRun(entry.run, opts);
    if (outcome.status === 'stored') {
      await unlink(file).catch((e: unknown) => {
        if (!isMissing(e)) throw e;
      });
    }
    results.push({ file, runId: entry.run.runId, outcome });
  }
  return { results, quarantined };
}
