import { readFile } from 'node:fs/promises';
import { sha256Hex } from '@tunelab/scenarios';
import { canonicalJson, formatIssuePath, RunSubmission } from '@tunelab/contracts';
import { CliError, EXIT } from '../exit-codes.ts';
import { writeJsonAtomic } from '../json-file.ts';

/**
 * What `tunelab run` writes before it submits anything, and what `submit` and the spool read:
 * the submission plus the run id its idempotency key derives from, so a resend is recognised.
 */
export type RunFile = { format: 'tunelab-run/1'; runId: string; idempotencyKey: string; submission: RunSubmission };

export function makeRunFile(runId: string, idempotencyKey: string, submission: RunSubmission): RunFile {
  return { format: 'tunelab-run/1', runId, idempotencyKey, submission };
}

/**
 * Writes atomically (temp file + rename), so a crash never leaves half a run behind; when the
 * write fails (a full disk) the partial temp file is removed before the error is thrown.
 */
export async function writeRunFile(file: string, run: RunFile): Promise<void> {
  await writeJsonAtomic(file, run);
}

/** Reads a run file; a bare RunSubmission is accepted too (its key then derives from its content). */
export async function readRunFile(file: string): Promise<RunFile> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new CliError(`${file}: cannot read a run file: ${(e as Error).message}`, EXIT.USAGE);
  }
  const envelope = typeof raw === 'object' && raw !== null && 'format' in raw ? (raw as Partial<RunFile>) : null;
  const parsed = RunSubmission.safeParse(envelope ? envelope.submission : raw);
  if (!parsed.success) {
    const where = envelope ? 'submission.' : '';
    throw new CliError(
      `${file}: not a valid run submission:\n${parsed.error.issues.map((i) => `  ${where}${formatIssuePath(i.path)}: ${i.message}`).join('\n')}`,
      EXIT.USAGE,
    );
  }
  if (envelope && typeof envelope.runId === 'string' && typeof envelope.idempotencyKey === 'string') {
    return makeRunFile(envelope.runId, envelope.idempotencyKey, parsed.data);
  }
  const digest = sha256Hex(canonicalJson(parsed.data));
  return makeRunFile(digest.slice(0, 32), `tunelab-sub-${digest}`, parsed.data);
}
