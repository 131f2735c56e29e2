/**
 * `tunelab cleanup [--target URL]`, and the same sweep at the start of `tunelab run`: removes what
 * earlier runs of this machine left — managed PostgreSQL servers of runners that were killed
 * (stopped, directories removed; engines/managed-postgresql/cluster/orphans.ts) and, on the `--target`
 * server, databases/schemas by the run's own prefix and global settings put back (their records
 * in TUNELAB_LEDGER_DIR, see engine/leftovers.ts).
 */
import type { Command } from 'commander';
import type { RunnerConfig } from '../config.ts';
import { driverFor } from '../engines/index.ts';
import { sweepOrphanedClusters } from '../engines/managed-postgresql/cluster/orphans.ts';
import { redactTarget } from '../engine/connect.ts';
import { createLedger, describeLeftovers, sweepAbandoned } from '../engine/leftovers.ts';
import { TargetUnreachable } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';

type Io = { out: (s: string) => void; err: (s: string) => void };

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
): Promise<{ runs: number; stillLeft: number }> {
  const managed = await sweepManagedLeftovers(config, say);
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

export function registerCleanupCommand(
  program: Command,
  config: RunnerConfig,
  io: Io,
  setExit: (code: number) => void,
) {
  program
    .command('cleanup')
    .description(
      "remove what earlier runs of this machine left: managed PostgreSQL servers of killed runs (stopped, directories removed) and, with --target, that server's databases, schemas and changed global settings; never touches another machine's",
    )
    .option('--target <url>', 'the database server, e.g. postgres://postgres@127.0.0.1:5432/postgres')
    .action(async (opts: { target?: string }) => {
      const say = (line: string) => io.out(`${line}\n`);
      if (opts.target === undefined) {
        const { runs, stillLeft } = await sweepManagedLeftovers(config, say);
        if (runs === 0)
          io.out(
            `no managed servers left by earlier runs of this machine (records: ${config.ledgerDir}); \`tunelab cleanup --target URL\` also cleans a server of yours\n`,
          );
        if (stillLeft > 0) setExit(EXIT.LEFT_BEHIND);
        return;
      }
      const target = opts.target;
      const driver = driverFor(target);
      // Reachable at all? Otherwise exit 3 with the reason (records stay for a later try).
      try {
        const admin = await driver.openAdmin(target, 'tunelab-cleanup');
        await admin.close();
      } catch (e) {
        // The managed servers of killed runs need no server of yours: they go first.
        const managed = await sweepManagedLeftovers(config, say);
        if (managed.stillLeft > 0) setExit(EXIT.LEFT_BEHIND);
        throw new TargetUnreachable(`cannot reach the target ${redactTarget(target)}: ${(e as Error).message}`);
      }
      const { runs, stillLeft } = await sweepLeftovers(config, target, say);
      if (runs === 0)
        io.out(
          `nothing left by earlier runs of this machine on ${redactTarget(target)} (records: ${config.ledgerDir})\n`,
        );
      if (stillLeft > 0) setExit(EXIT.LEFT_BEHIND);
    });
}
