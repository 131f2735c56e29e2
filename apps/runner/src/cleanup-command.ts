/**
 * `tunelab cleanup --target URL`, and the same sweep at the start of `tunelab run`: removes what
 * earlier runs of this machine left on that server (their records in TUNELAB_LEDGER_DIR, see
 * engine/leftovers.ts) — databases/schemas by the run's own prefix, global settings put back.
 */
import type { Command } from 'commander';
import type { RunnerConfig } from './config.ts';
import { driverFor } from './drivers/index.ts';
import { redactTarget } from './engine/connect.ts';
import { createLedger, describeLeftovers, sweepAbandoned } from './engine/leftovers.ts';
import { TargetUnreachable } from './errors.ts';
import { EXIT } from './exit-codes.ts';

type Io = { out: (s: string) => void; err: (s: string) => void };

const restoredText = (globals: Record<string, string> | undefined) =>
  globals && Object.keys(globals).length
    ? `; restored ${Object.entries(globals)
        .map(([k, v]) => `${k} = ${v}`)
        .join(', ')}`
    : '';

/**
 * Cleans up after the abandoned runs of this machine on `target`'s server; one line per run on
 * `say`. Returns how many still have something left (0 when there was nothing to do).
 */
export async function sweepLeftovers(
  config: RunnerConfig,
  target: string,
  say: (line: string) => void,
  budgetMs = config.cleanupRetrySeconds * 1000,
): Promise<{ runs: number; stillLeft: number }> {
  const driver = driverFor(target);
  const ledger = createLedger(config.ledgerDir);
  const swept = await sweepAbandoned(ledger, driver, target, budgetMs, config.stallTimeoutSeconds * 1000);
  let stillLeft = 0;
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
  return { runs: swept.length, stillLeft };
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
      "remove what earlier runs of this machine left on a server they lost (databases, schemas, changed global settings); never touches another machine's",
    )
    .requiredOption('--target <url>', 'the database server, e.g. postgres://postgres@127.0.0.1:5432/postgres')
    .action(async (opts: { target: string }) => {
      const driver = driverFor(opts.target);
      // Reachable at all? Otherwise exit 3 with the reason (records stay for a later try).
      try {
        const admin = await driver.openAdmin(opts.target, 'tunelab-cleanup');
        await admin.close();
      } catch (e) {
        throw new TargetUnreachable(`cannot reach the target ${redactTarget(opts.target)}: ${(e as Error).message}`);
      }
      const { runs, stillLeft } = await sweepLeftovers(config, opts.target, (line) => io.out(`${line}\n`));
      if (runs === 0)
        io.out(
          `nothing left by earlier runs of this machine on ${redactTarget(opts.target)} (records: ${config.ledgerDir})\n`,
        );
      if (stillLeft > 0) setExit(EXIT.LEFT_BEHIND);
    });
}
