import { CrashServerStep } from '@tunelab/contracts';
import { managedCluster } from './managed.ts';
import type { StepAction } from './types.ts';

/** `action: crash_server` — CHECKPOINT (optional), then `pg_ctl stop -m immediate`. */
export const crashServerAction: StepAction<'crash_server'> = {
  action: 'crash_server',
  schema: CrashServerStep,
  async execute(step, ctx) {
    const cluster = managedCluster(ctx, 'crash_server');
    if (step.checkpoint) await ctx.session.exec('CHECKPOINT');
    ctx.signal.throwIfAborted();
    await cluster.crash();
  },
};
