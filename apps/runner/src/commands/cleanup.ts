/**
 * `tunelab cleanup [--target URL]` (the same sweep runs at the start of `tunelab run`: app/sweep.ts):
 * removes what earlier runs of this machine left — managed PostgreSQL servers of runners that were killed
 * (stopped, directories removed; engines/managed-postgresql/cluster/orphans.ts) and, on the `--target`
 * server, databases/schemas by the run's own prefix and global settings put back (their records
 * in TUNELAB_LEDGER_DIR, see engine/leftovers.ts).
 */
import type { Command } from 'commander';
import { sweepLeftovers, sweepManagedLeftovers } from '../app/sweep.ts';
import { driverFor } from '../engines/index.ts';
import { redactTarget } from '../engine/connect.ts';
import { TargetUnreachable } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import type { CommandContext } from './context.ts';

/** `tunelab cleanup [--target URL]`. */
export function cleanupCommand(program: Command, { config, io, setExit }: CommandContext): void {
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
