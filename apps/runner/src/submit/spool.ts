import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { readRunFile, writeRunFile, type RunFile } from '../run-file.ts';
import { submitRun, type SubmitOptions, type SubmitOutcome } from './client.ts';

/**
 * The spool: runs measured but not yet stored by the API wait here as run files named
 * `<runId>.json`, and `tunelab spool flush` sends them with their original idempotency keys.
 */
export async function spoolRun(dir: string, run: RunFile): Promise<string> {
  const file = path.join(dir, `${run.runId}.json`);
  await writeRunFile(file, run);
  return file;
}

export async function listSpool(dir: string): Promise<{ file: string; run: RunFile }[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
  const out: { file: string; run: RunFile }[] = [];
  for (const n of names) {
    const file = path.join(dir, n);
    out.push({ file, run: await readRunFile(file) });
  }
  return out;
}

export type FlushResult = { file: string; runId: string; outcome: SubmitOutcome };

/** Sends every spooled run; stored ones leave the spool, refused and unreachable ones stay. */
export async function flushSpool(dir: string, opts: SubmitOptions): Promise<FlushResult[]> {
  const results: FlushResult[] = [];
  for (const { file, run } of await listSpool(dir)) {
    const outcome = await submitRun(run, opts);
    if (outcome.status === 'stored') await unlink(file);
    results.push({ file, runId: run.runId, outcome });
  }
  return results;
}
