/**
 * What earlier runs of this machine changed on the host and could not put back (their runner was
 * killed outright, or its throttle's lease ran out), put back at the start of every `tunelab`
 * command (cli.ts) and by `tunelab cleanup`:
 *
 * - a local server's process moved into the runner's cgroups (engine/host-changes.ts): moved back
 *   to its original cgroups, the runner's cgroups removed;
 * - envelope and throttle cgroups of runners that are gone (probe/envelope.ts
 *   `sweepOrphanEnvelopes`), which also catches those no record names;
 * - managed PostgreSQL servers of killed runners, stopped and removed (app/sweep.ts);
 * - global settings a killed run changed on a server (innodb_buffer_pool_size): restored on that
 *   server through the run's recorded target, its databases dropped (engine/leftovers.ts). A
 *   server that cannot be reached so is said with the commands that restore it by hand.
 */
import type { RunnerConfig } from '../config.ts';
import { restoreHostChanges } from '../engine/host-changes.ts';
import { serverKey, serversWithAbandonedSettings } from '../engine/leftovers.ts';
import { sweepOrphanEnvelopes } from '../probe/envelope.ts';
import { sweepLeftovers, sweepManagedLeftovers } from './sweep.ts';

/** How long the start of a command spends on one server's settings (it may be away). */
export const RESTORE_AT_START_MS = 3_000;

/**
 * Puts back what earlier runs of this machine left on the host; one line per thing on `say`.
 * `except` names a target the caller sweeps itself with its own credentials (`--target`), so its
 * records are not tried here with the password-less recorded URL; `sayOrphans` also says the
 * cgroups of gone runners no record names (any ledger's). Never throws. Returns how many
 * earlier runs of this ledger were found and how many still left something.
 */
export async function restoreHost(
  config: RunnerConfig,
  say: (line: string) => void,
  opts: { except?: string; budgetMs?: number; sayOrphans?: boolean } = {},
): Promise<{ found: number; stillLeft: number }> {
  let found = 0;
  let stillLeft = 0;
  const changes = await restoreHostChanges(config.ledgerDir, say).catch(() => []);
  found += changes.length;
  stillLeft += changes.filter((c) => c.left.length > 0).length;
  const swept = await sweepOrphanEnvelopes().catch(() => [] as string[]);
  // Machine-wide (not this ledger's): said by `tunelab cleanup`, done quietly elsewhere.
  // Not counted in `found` (this ledger's earlier runs): another ledger's runner may have left them.
  if (opts.sayOrphans) for (const dir of swept) say(`removed the cgroup ${dir} of a runner that is gone`);
  const managed = await sweepManagedLeftovers(config, say).catch(() => ({ runs: 0, stillLeft: 0 }));
  found += managed.runs;
  stillLeft += managed.stillLeft;
  const exceptKey = opts.except ? safeServerKey(opts.except) : null;
  for (const target of await serversWithAbandonedSettings(config.ledgerDir)) {
    if (exceptKey !== null && safeServerKey(target) === exceptKey) continue;
    // Managed servers were swept above; this sweeps only what the runs left on `target`'s server.
    const r = await sweepLeftovers(config, target, say, opts.budgetMs ?? RESTORE_AT_START_MS, { managed: false }).catch(
      (e: Error) => {
        say(`could not restore the settings earlier runs changed on ${target}: ${e.message}`);
        return { runs: 1, stillLeft: 1 };
      },
    );
    found += r.runs;
    stillLeft += r.stillLeft;
  }
  return { found, stillLeft };
}

const safeServerKey = (target: string) => {
  try {
    return serverKey(target);
  } catch {
    return null;
  }
};
