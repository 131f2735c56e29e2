/**
 * Delivering a measured run, shared by `tunelab run`, `tunelab submit` and `tunelab agent` (one
 * path, so the agent keeps the CLI's fallbacks): `keepRunFile` writes the run file where asked,
 * else in the OS temp directory, else says it could not (the caller then prints the run);
 * `deliver` submits it and, when the API is away, keeps it in the spool. Nothing measured is lost.
 */
import { EXIT } from '../exit-codes.ts';
import type { RunnerConfig } from '../config.ts';
import type { RunFile } from './run-file.ts';
import { describeFileError, fallbackRunsDir, saveRunFile, type SavedRun } from './save-run.ts';
import { refusedByApi, submitRun, type SubmitOutcome } from './api-client.ts';
import { spoolRun } from './spool.ts';

/**
 * Writes `run` to `file`, else to the OS temp directory's `tunelab-runs/`, and says in one line
 * (through `say`) where it went when that is not `file`. Never throws.
 */
export async function keepRunFile(file: string, run: RunFile, say: (line: string) => void): Promise<SavedRun> {
  const saved = await saveRunFile(file, run, [fallbackRunsDir()]);
  if (saved.file === null) say(`run ${run.runId} could not be written to any file (${saved.reasons.join('; ')})`);
  else if (saved.fallbackReason !== undefined)
    say(
      `run ${run.runId} could not be written where asked (${saved.fallbackReason}); written to ${saved.file} instead`,
    );
  return saved;
}

/**
 * Submits, and on a network failure keeps the run in the spool. Returns the exit code. `kept` is
 * where the run file already is (null: nowhere on disk), named when the spool cannot take it.
 */
export async function deliver(
  run: RunFile,
  config: RunnerConfig,
  api: { url: string; token: string },
  log: (line: string) => void,
  kept: string | null,
): Promise<{ code: number; outcome: SubmitOutcome; spooled?: string }> {
  const outcome = await submitRun(run, {
    apiUrl: api.url,
    token: api.token,
    retries: config.submitRetries,
    baseDelayMs: config.submitBaseDelayMs,
    onRetry: (r) => log(`submit: ${r.reason}; retry ${r.attempt} in ${(r.delayMs / 1000).toFixed(1)} s`),
  });
  if (outcome.status === 'stored') {
    log(`submit: ${outcome.replay ? 'already stored (idempotent replay)' : 'stored'} by ${api.url}`);
    return { code: EXIT.OK, outcome };
  }
  if (refusedByApi(outcome)) {
    // A token revoked while the run measured, a runner too old: the run is still worth sending once that is fixed.
    const again = kept ? `\nthe run file stays at ${kept}; \`tunelab submit ${kept}\` sends it again` : '';
    log(`submit: the API refused the run:\n${outcome.message}${again}`);
    return { code: EXIT.NOT_STORED, outcome };
  }
  let spooled: string;
  try {
    spooled = await spoolRun(config.spoolDir, run);
  } catch (e) {
    const where = kept
      ? `the run file stays at ${kept}; \`tunelab submit ${kept}\` sends it later`
      : 'the run is on stdout only: save it and `tunelab submit` it later';
    log(
      `submit: ${outcome.message}\nthe spool cannot take the run (${describeFileError(config.spoolDir, e)}); ${where}`,
    );
    return { code: EXIT.NOT_STORED, outcome };
  }
  log(`submit: ${outcome.message}\nthe run waits in the spool (${spooled}); \`tunelab spool flush\` sends it`);
  return { code: EXIT.NOT_STORED, outcome, spooled };
}
