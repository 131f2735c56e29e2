/**
 * The one path from a scenario to a delivered run, shared by `tunelab run` and `tunelab agent`:
 * run it (engine/run-scenario.ts), make the run file, keep it (where asked, else the OS temp
 * directory, else the caller prints it: app/deliver.ts `keepRunFile`), show it, then submit it
 * and, while the API is away, keep it in the spool (`deliver`). Nothing measured is lost: the run
 * file is written before anything renders it, and once the run is measured nothing here throws —
 * a caller's hook that fails (the table's renderer, a log line) is said and the delivery goes on.
 */
import type { RunSubmission } from '@tunelab/contracts';
import type { RunnerConfig } from '../config.ts';
import { runScenario } from '../engine/run-scenario.ts';
import type { RunOptions, RunResult } from '../engine/types.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import type { SubmitOutcome } from './api-client.ts';
import { deliver, keepRunFile } from './deliver.ts';
import { makeRunFile, type RunFile } from './run-file.ts';
import type { SavedRun } from './save-run.ts';

export type Delivery = {
  config: RunnerConfig;
  /** The API to submit to; null: the run file is the result. */
  api: { url: string; token: string } | null;
  /** Where the run file goes, by run id. */
  fileOf: (runId: string) => string;
  /** The fleet job the run is for (`tunelab agent`). */
  job?: string;
  /** Lines about where the run file went. */
  say: (line: string) => void;
  /** Lines about the submission (retries, stored, spooled). */
  log: (line: string) => void;
  /** The run is measured and its file kept (or nowhere to keep it): show it (the table, `--json` on stdout; the agent stops heartbeating). */
  onMeasured?: (run: RunFile, result: RunResult) => void;
  /** Where the run file is (`saved.file` null: nowhere, the caller shows the run). */
  onKept?: (saved: SavedRun, run: RunFile) => void;
  /** What the API answered (after retries; a network failure: the run is in the spool or said where it is). */
  onDelivered?: (outcome: SubmitOutcome) => void;
};

export type Delivered = {
  result: RunResult;
  run: RunFile;
  saved: SavedRun;
  /** OK when stored (or, without an API, written where asked); NOT_STORED otherwise. */
  code: ExitCode;
  outcome?: SubmitOutcome;
};

/** Runs the scenario and delivers its run. Throws only what the run throws (nothing measured yet). */
export async function runAndDeliver(options: RunOptions, delivery: Delivery): Promise<Delivered> {
  const result = await runScenario(options);
  const submission: RunSubmission =
    delivery.job !== undefined ? { ...result.submission, job: delivery.job } : result.submission;
  const run = makeRunFile(result.runId, result.idempotencyKey, submission);
  // Keep, then show: a renderer that throws must not cost the measured run.
  const saved = await keepRunFile(delivery.fileOf(result.runId), run, delivery.say);
  const hook = (what: string, call: () => void) => {
    try {
      call();
    } catch (e) {
      delivery.say(
        `run ${run.runId}: ${what} failed (${e instanceof Error ? e.message : String(e)}); the run is kept and delivered all the same`,
      );
    }
  };
  hook('showing the measured run', () => delivery.onMeasured?.(run, result));
  hook('saying where the run file is', () => delivery.onKept?.(saved, run));
  if (!delivery.api) {
    const notWhereAsked = saved.file === null || saved.fallbackReason !== undefined;
    return { result, run, saved, code: notWhereAsked ? EXIT.NOT_STORED : EXIT.OK };
  }
  const delivered = await deliver(run, delivery.config, delivery.api, delivery.log, saved.file);
  hook('saying what the API answered', () => delivery.onDelivered?.(delivered.outcome));
  return {
    result,
    run,
    saved,
    code: delivered.code === EXIT.OK ? EXIT.OK : EXIT.NOT_STORED,
    outcome: delivered.outcome,
  };
}
