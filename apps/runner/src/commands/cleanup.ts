/**
 * `tunelab cleanup [--target URL]` (the same sweep runs at the start of every command: cli.ts,
 * app/host-restore.ts; and of `tunelab run`: app/sweep.ts): removes what earlier runs of this machine
 * left — a local server's process moved back out of a killed runner's cgroups and those cgroups
 * removed (engine/host-changes.ts), managed PostgreSQL servers of runners that were killed
 * (stopped, directories removed; engines/managed-postgresql/cluster/orphans.ts), global settings a
 * killed run changed put back on its recorded server and, on the `--target` server, databases/schemas
 * by the run's own prefix and global settings put back (their records in TUNELAB_LEDGER_DIR, see
 * engine/leftovers.ts).
 */
import type { Command } from 'commander';
import { restoreHost } from '../app/host-restore.ts';
import { sweepLeftovers } from '../app/sweep.ts';
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
      "remove what earlier runs of this machine left: a server process a killed run throttled (moved back to its own cgroups, the run's cgroups removed), managed PostgreSQL servers of killed runs (stopped, directories removed), global settings a killed run changed and, with --target, that server's databases, schemas and changed global settings; never touches another machine's",
    )
    .option('--target <url>', 'the database server, e.g. postgres://postgres@127.0.0.1:5432/postgres')
    .action(async (opts: { target?: string }) => {
      const say = (line: string) => io.out(`${line}\n`);
      if (opts.target === undefined) {
        const { found, stillLeft } = await restoreHost(config, say, {
          budgetMs: config.cleanupRetrySeconds * 1000,
          sayOrphans: true,
        });
        if (found === 0)
          io.out(
            `no managed servers left by earlier runs of this machine, no throttled server process and no changed setting (records: ${config.ledgerDir}); \`tunelab cleanup --target URL\` also cleans a server of yours\n`,
          );
        if (stillLeft > 0) setExit(EXIT.LEFT_BEHIND);
        return;
      }
      const target = opts.target;
      const driver = driverFor(target);
      // The host first: a server still throttled by a killed run's cgroups is moved back before its
      // settings are restored; the target's own records are swept below with its credentials.
      const host = await restoreHost(config, say, {
        except: target,
        budgetMs: config.cleanupRetrySeconds * 1000,
        sayOrphans: true,
      });
      if (host.stillLeft > 0) setExit(EXIT.LEFT_BEHIND);
      // Reachable at all? Otherwise exit 3 with the reason (records stay for a later try).
      try {
        const admin = await driver.openAdmin(target, 'tunelab-cleanup');
        await admin.close();
      } catch (e) {
        throw new TargetUnreachable(`cannot reach the target ${redactTarget(target)}: ${(e as Error).message}`);
      }
      const { runs, stillLeft } = await sweepLeftovers(config, target, say, undefined, { managed: false });
      if (runs === 0)
        io.out(
          `nothing left by earlier runs of this machine on ${redactTarget(target)} (records: ${config.ledgerDir})\n`,
        );
      if (stillLeft > 0 || host.stillLeft > 0) setExit(EXIT.LEFT_BEHIND);
    });
}
