/**
 * Runs one scenario against one target, as a pipeline of named stages:
 * plan.ts → connect.ts → probe.ts → fixture.ts → measure.ts (measure-unit.ts per unit) →
 * assemble.ts. Every database the run created is dropped at the end (connect.ts `close()`) —
 * also on failure and when `signal` aborts. Errors are the domain errors of ../errors.ts.
 */
import { Interrupted } from '../errors.ts';
import { assemble } from './assemble.ts';
import { connect } from './connect.ts';
import { buildFixture } from './fixture.ts';
import { measureAll } from './measure.ts';
import { planRun } from './plan.ts';
import { probe } from './probe.ts';
import { createRunLog } from './run-log.ts';
import type { RunOptions, RunResult } from './types.ts';

export { cleanupRun } from './connect.ts';
export { DATABASE_PREFIX, idempotencyKeyOf, runPrefix } from './plan.ts';
export type { RunEvent, RunOptions, RunResult, Snapshot } from './types.ts';

export async function runScenario(opts: RunOptions): Promise<RunResult> {
  const plan = planRun(opts);
  const signal = opts.signal ?? new AbortController().signal;
  const log = createRunLog(opts.onEvent ?? (() => {}));
  const startedAt = new Date();
  log.emit({ type: 'phase', phase: 'probe', message: 'probing the target and this machine' });
  const conn = await connect(plan, signal, (text) => log.warn(text));
  try {
    const probed = await probe(plan, conn, log, opts.storage);
    const buildSeconds = await buildFixture(plan, conn, probed, log, signal);
    const measured = await measureAll(plan, conn, probed, log, signal);
    const result = assemble(plan, probed, buildSeconds, measured, log, startedAt);
    log.emit({ type: 'phase', phase: 'done', message: 'measurements complete' });
    return result;
  } catch (e) {
    if (signal.aborted) throw new Interrupted('interrupted; every database of this run was dropped');
    throw e;
  } finally {
    log.emit({ type: 'phase', phase: 'cleanup', message: `dropping ${plan.prefix}* databases` });
    await conn.close();
  }
}
