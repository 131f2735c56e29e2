import { TimedStep } from '@tunelab/contracts';
import type { WalPosition } from '../../drivers/driver.ts';
import type { StepAction } from './types.ts';

/** Recorded name of the WAL generated inside the timed block (read by the `wal` metric source). */
export const WAL_RECORD = '@timed.wal_bytes';

const walDelta = (a: WalPosition, b: WalPosition) =>
  a.statBytes !== null && b.statBytes !== null ? b.statBytes - a.statBytes : b.lsnBytes - a.lsnBytes;

/** `action: timed` — runs its steps and records their wall time (seconds) as `metric`, and the WAL they wrote. */
export const timedAction: StepAction<'timed'> = {
  action: 'timed',
  schema: TimedStep,
  async execute(step, ctx) {
    const walBefore = await ctx.session.walPosition();
    const start = process.hrtime.bigint();
    await ctx.runSteps(step.steps);
    ctx.record(step.metric, Number(process.hrtime.bigint() - start) / 1e9);
    ctx.record(WAL_RECORD, walDelta(walBefore, await ctx.session.walPosition()));
  },
};
