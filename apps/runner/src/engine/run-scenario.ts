/**
 * Runs one scenario against one target, as a pipeline of named stages:
 * plan.ts → connect.ts → probe.ts → fixture.ts → measure.ts (measure-unit.ts per unit) →
 * assemble.ts. Every database the run created is dropped at the end (connect.ts `close()`) —
 * also on failure and when `signal` aborts. Errors are the domain errors of ../errors.ts.
 */
import { EngineError, Interrupted, RunFailed } from '../errors.ts';
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
  let stage = 'probing the target';
  try {
    const probed = await probe(plan, conn, log, opts.storage);
    stage = 'building the fixture';
    const buildSeconds = await buildFixture(plan, conn, probed, log, signal);
    stage = 'measuring';
    const measured = await measureAll(plan, conn, probed, log, signal);
    stage = 'assembling the results';
    const result = assemble(plan, probed, buildSeconds, measured, log, startedAt);
    log.emit({ type: 'phase', phase: 'done', message: 'measurements complete' });
    return result;
  } catch (e) {
    if (signal.aborted) throw new Interrupted('interrupted; every database of this run was dropped');
    if (e instanceof EngineError) throw e;
    // A driver's or the server's own error (a lost connection, SQL the server refused): said as a
    // domain error, so the CLI prints one sentence and the run's exit code, not a stack trace.
    throw new RunFailed(
      `the run failed while ${stage}: ${e instanceof Error ? e.message : String(e)}; every database of this run was dropped`,
      { cause: e },
    );
  } finally {
    log.emit({ type: 'phase', phase: 'cleanup', message: `dropping ${plan.prefix}* databases` });
    await conn.close();
  }
}
