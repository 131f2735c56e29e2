import { TimedStep } from '@tunelab/contracts';
import type { WalPosition } from '../../engines/driver.ts';
import { inMeasuredBlock } from '../stall.ts';
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
    // An engine without a log position records the time only (the `wal` metric then has no value).
    const wal = ctx.session.capabilities.wal;
    const walBefore = await wal?.walPosition();
    const start = process.hrtime.bigint();
    // The measured block: no stall timeout inside it (its length is the measurement).
    await inMeasuredBlock(() => ctx.runSteps(step.steps));
    ctx.record(step.metric, Number(process.hrtime.bigint() - start) / 1e9);
    if (wal && walBefore) ctx.record(WAL_RECORD, walDelta(walBefore, await wal.walPosition()));
  },
};
