/**
 * Removing what earlier runs of this machine left, from the ledger (TUNELAB_LEDGER_DIR, records of
 * runs in flight: engine/leftovers.ts): managed PostgreSQL servers of killed runners, and on a
 * target server the runs' databases/schemas and changed global settings. Used by `tunelab cleanup`,
 * before each `tunelab run` against a target and by `tunelab agent` (at start and before each job).
 */
import type { RunnerConfig } from '../config.ts';
import { driverFor } from '../engines/index.ts';
import { sweepOrphanedClusters } from '../engines/managed-postgresql/cluster/orphans.ts';
import { createLedger, describeLeftovers, sweepAbandoned } from '../engine/leftovers.ts';

/** How long `tunelab run`, and `tunelab agent` before each job, spend removing what earlier runs left. */
export const SWEEP_BEFORE_RUN_MS = 10_000;

const restoredText = (globals: Record<string, string> | undefined) =>
  globals && Object.keys(globals).length
    ? `; restored ${Object.entries(globals)
        .map(([k, v]) => `${k} = ${v}`)
        .join(', ')}`
    : '';

/**
 * Stops and removes the managed servers of killed runners of this machine; one line each on
 * `say`. Returns how many were found and how many are still left.
 */
export async function sweepManagedLeftovers(
  config: RunnerConfig,
  say: (line: string) => void,
): Promise<{ runs: number; stillLeft: number }> {
  const swept = await sweepOrphanedClusters(config.ledgerDir, say);
  return { runs: swept.length, stillLeft: swept.filter((s) => s.problems.length > 0).length };
}

/**
 * Cleans up after the abandoned runs of this machine: their managed servers, and what they left
 * on `target`'s server; one line per run on `say`. Returns how many still have something left
 * (0 when there was nothing to do).
 */
export async function sweepLeftovers(
  config: RunnerConfig,
  target: string,
  say: (line: string) => void,
  budgetMs = config.cleanupRetrySeconds * 1000,
  opts: { managed?: boolean } = {},
): Promise<{ runs: number; stillLeft: number }> {
  // `managed: false`: the caller swept the managed servers already (app/host-restore.ts).
  const managed = opts.managed === false ? { runs: 0, stillLeft: 0 } : await sweepManagedLeftovers(config, say);
  const driver = driverFor(target);
  const ledger = createLedger(config.ledgerDir);
  const { swept, notTried } = await sweepAbandoned(ledger, driver, target, budgetMs, config.stallTimeoutSeconds * 1000);
  let stillLeft = managed.stillLeft + notTried;
  for (const { record, report } of swept) {
    if (report.left.length === 0 && !report.globalsLeft) {
      const what = report.dropped.length ? `dropped ${report.dropped.join(', ')}` : 'nothing was left on the server';
      say(`earlier run ${record.runId} (${record.startedAt}): ${what}${restoredText(record.globals)}`);
    } else {
      stillLeft++;
      say(
        `earlier run ${record.runId} (${record.startedAt}): ${describeLeftovers(driver, target, record.runId, report)}`,
      );
    }
  }
  if (notTried > 0)
    say(
      `${notTried} more earlier ${notTried === 1 ? 'run' : 'runs'} not tried: the server did not answer; their records stay for the next sweep`,
    );
  return { runs: managed.runs + swept.length + notTried, stillLeft };
}
