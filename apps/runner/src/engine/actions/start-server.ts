import { StartServerStep } from '@tunelab/contracts';
import { RunFailed } from '../../errors.ts';
import { analyzeStartup } from '../../engines/managed-postgresql/cluster/index.ts';
import { lastFileCount, managedCluster } from './managed.ts';
import type { StepAction } from './types.ts';

/** 60 s, plus 5 ms per data-directory file (a cold fsync pass took ~1.7 ms per file on a 2-core VM). */
export const startTimeoutMs = (files: number) => 60_000 + 5 * files;

/**
 * `action: start_server` — starts the managed server with `-c` settings, records ready, sync and
 * redo durations (ms) read from the start and its log, notes the startup progress lines.
 */
export const startServerAction: StepAction<'start_server'> = {
  action: 'start_server',
  schema: StartServerStep,
  async execute(step, ctx) {
    const cluster = managedCluster(ctx, 'start_server');
    const settings = Object.fromEntries(Object.entries(step.settings).map(([k, v]) => [k, String(v)]));
    const started = await cluster.start(
      { settings, timeoutMs: startTimeoutMs(lastFileCount.get(cluster) ?? 0) },
      ctx.signal,
    );
    ctx.record('ready_duration', started.readyMs);
    const log = analyzeStartup(await cluster.readLog(started.logOffset));
    if (step.expect_recovery && !log.recovered)
      throw new RunFailed(
        'start_server: the server started without crash recovery (was it crashed first? add a crash_server step before it)',
      );
    if (log.syncMs !== null) ctx.record('sync_duration', log.syncMs);
    if (log.redoMs !== null) ctx.record('redo_duration', log.redoMs);
    if (log.progress.length) ctx.note('startup-progress', log.progress.join('\n'));
    for (const [name, value] of Object.entries(settings)) {
      const [row] = await ctx.session.exec(`SELECT current_setting('${name}') AS v`);
      if (String(row?.v) !== value)
        throw new RunFailed(`start_server: ${name} is ${String(row?.v)} after the start, not ${value}`);
    }
  },
};
