import { mkdir, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { readRunFile, writeRunFile, type RunFile } from './run-file.ts';
import { refusedByApi, submitRun, type SubmitOptions, type SubmitOutcome } from './api-client.ts';

/**
 * The spool: runs measured but not yet stored by the API wait here as run files named
 * `<runId>.json`, and `tunelab spool flush` sends them with their original idempotency keys.
 * A file that cannot be read as a run never blocks the others: `list` reports it, `flush` moves
 * it to `quarantine/` with the reason and sends the rest. Two flushes at once are safe: a file
 * the other flush already sent and removed is skipped, and a run both send is stored once (same
 * idempotency key).
 */
export const QUARANTINE_DIR = 'quarantine';
/**
 * Runs the API refused for good (400, 409, 413, 422: the run itself, or the job it answers, is
 * refused; sending it again changes nothing) leave the spool for `refused/`, kept, so a flush does
 * not send them before every claim for ever. A refusal that can change (401, 403, 426: a token or
 * a runner version to fix) keeps the run in the spool, and so does any 4xx that is not the API's
 * own problem+json (a proxy's HTML 413 or 400): it says nothing about the run.
 */
export const REFUSED_DIR = 'refused';
const FINAL_REFUSALS = new Set([400, 409, 413, 422]);

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

export type FlushResult = {
  file: string;
  runId: string;
  outcome: SubmitOutcome;
  /** Where a run refused for good was moved (REFUSED_DIR). */
  movedTo?: string;
};
export type Quarantined = CorruptEntry & { movedTo: string };

/** Moves a spool file into the subfolder `sub` (kept for inspection); null when another flush already moved it. */
async function moveAside(dir: string, file: string, sub: string): Promise<string | null> {
  const target = path.join(dir, sub);
  await mkdir(target, { recursive: true });
  const movedTo = path.join(target, path.basename(file));
  try {
    await rename(file, movedTo);
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
  return movedTo;
}

/** Moves a corrupt file out of the way (keeping it for inspection), unless another flush already did. */
async function quarantine(dir: string, entry: CorruptEntry): Promise<Quarantined | null> {
  const movedTo = await moveAside(dir, entry.file, QUARANTINE_DIR);
  return movedTo ? { ...entry, movedTo } : null;
}

/**
 * Sends every spooled run; stored ones leave the spool, runs refused for good go to refused/,
 * unreachable ones and those refused for a reason that can change stay, corrupt ones go to
 * quarantine/.
 */
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
    if (outcome.status === 'refused' && refusedByApi(outcome) && FINAL_REFUSALS.has(outcome.httpStatus)) {
      const movedTo = await moveAside(dir, file, REFUSED_DIR);
      results.push({ file, runId: entry.run.runId, outcome, ...(movedTo ? { movedTo } : {}) });
      continue;
    }
    results.push({ file, runId: entry.run.runId, outcome });
  }
  return { results, quarantined };
}
