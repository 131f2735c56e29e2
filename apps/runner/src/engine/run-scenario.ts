/**
 * Runs one scenario against one target, as a pipeline of named stages:
 * plan.ts → connect.ts → probe.ts → fixture.ts → measure.ts (measure-unit.ts per unit) →
 * assemble.ts. Every database the run created is dropped at the end (connect.ts `close()`) —
 * also on failure and when `signal` aborts. Errors are the domain errors of ../errors.ts.
 */
import { EngineError, Interrupted, LeftBehind, RunFailed } from '../errors.ts';
import { assemble } from './assemble.ts';
import { connect } from './connect.ts';
import { enterLocalEnvelope } from './local-envelope.ts';
import { describeLeftovers } from './leftovers.ts';
import { DEFAULT_CLEANUP_RETRY_S, DEFAULT_STALL_TIMEOUT_S } from './stall.ts';
import { buildFixture } from './fixture.ts';
import { measureAll } from './measure.ts';
import { planRun } from './plan.ts';
import { probe } from './probe.ts';
import { watchNoise } from '../probe/noise.ts';
import { createRunLog } from './run-log.ts';
import type { RunOptions, RunResult } from './types.ts';

export { cleanupRun } from './connect.ts';
export { DATABASE_PREFIX, idempotencyKeyOf, runPrefix } from './plan.ts';
export type { RunEvent, RunOptions, RunResult, Snapshot } from './types.ts';

/** After Ctrl-C the clean-up gets at most this long, so the process ends within 10 s. */
const CLEANUP_AFTER_ABORT_MS = 6_000;

export async function runScenario(opts: RunOptions): Promise<RunResult> {
  const plan = planRun(opts);
  const signal = opts.signal ?? new AbortController().signal;
  let abortedAt = signal.aborted ? Date.now() : 0;
  signal.addEventListener('abort', () => (abortedAt = Date.now()), { once: true });
  const log = createRunLog(opts.onEvent ?? (() => {}));
  log.notes.push(...(opts.notes ?? []));
  const startedAt = new Date();
  const ledger = plan.target.kind === 'server' ? opts.ledger : undefined;
  await ledger?.begin(plan.runId, plan.target.kind === 'server' ? plan.target.url : '', (text) => log.warn(text));
  log.emit({ type: 'phase', phase: 'probe', message: 'probing the target and this machine' });
  let conn;
  try {
    conn = await connect(
      plan,
      signal,
      (text) => log.warn(text),
      (message) => log.emit({ type: 'phase', phase: 'probe', message }),
      {
        stallMs: opts.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_S * 1000,
        ...(ledger ? { onGlobalsSaved: (previous) => ledger.saveGlobals(plan.runId, previous) } : {}),
      },
    );
  } catch (e) {
    await ledger?.finish(plan.runId, { dropped: [], left: [], globalsLeft: null });
    throw e;
  }
  if (conn.handle.description) log.notes.push({ kind: 'server', text: conn.handle.description });
  let stage = 'probing the target';
  let result: RunResult | undefined;
  let failure: unknown;
  let failedAt = 0;
  try {
    if (plan.localEnvelope)
      await enterLocalEnvelope(
        conn,
        plan.localEnvelope,
        ledger
          ? {
              ledgerDir: ledger.dir,
              runId: plan.runId,
              ...(opts.hostLeaseMs !== undefined ? { leaseMs: opts.hostLeaseMs } : {}),
            }
          : undefined,
      );
    const probed = await probe(plan, conn, log, opts.storage);
    stage = 'building the fixture';
    const buildSeconds = await buildFixture(plan, conn, probed, log, signal);
    stage = 'measuring';
    const [measured, noise] = await watchNoise(
      probed.dataDirectory,
      () => measureAll(plan, conn, probed, log, signal),
      (text) => log.warn(text),
    );
    stage = 'assembling the results';
    result = assemble(plan, probed, buildSeconds, measured, log, startedAt, noise);
    log.emit({ type: 'phase', phase: 'done', message: 'measurements complete' });
  } catch (e) {
    failure = e;
    failedAt = Date.now();
  }
  // A failure that came before a Ctrl-C is said as that failure.
  const interrupted = signal.aborted && (failure === undefined || abortedAt <= failedAt);
  log.emit({ type: 'phase', phase: 'cleanup', message: `dropping ${plan.prefix}* databases` });
  const until = Date.now() + (opts.cleanupRetryMs ?? DEFAULT_CLEANUP_RETRY_S * 1000);
  const report = await conn.close(() => (abortedAt ? Math.min(until, abortedAt + CLEANUP_AFTER_ABORT_MS) : until));
  await ledger?.finish(plan.runId, report);
  const clean = report.left.length === 0 && !report.globalsLeft;
  const url = conn.handle.url;
  const leftovers = clean ? '' : describeLeftovers(conn.handle.driver, url, plan.runId, report);
  // Measured is measured: a Ctrl-C during the clean-up still hands the run to the CLI.
  if (result) return clean ? result : { ...result, leftBehind: leftovers };
  if (interrupted) {
    if (!clean) throw new LeftBehind(`interrupted; ${leftovers}`);
    throw new Interrupted('interrupted; every database of this run was dropped');
  }
  if (failure instanceof EngineError) {
    if (!clean) throw new LeftBehind(`${failure.message}; ${leftovers}`, { cause: failure });
    throw failure;
  }
  // A driver's or the server's own error (a lost connection, SQL the server refused): said as a
  // domain error, so the CLI prints one sentence and the run's exit code, not a stack trace.
  const reason = `the run failed while ${stage}: ${failure instanceof Error ? failure.message : String(failure)}`;
  if (!clean) throw new LeftBehind(`${reason}; ${leftovers}`, { cause: failure });
  throw new RunFailed(`${reason}; every database of this run was dropped`, { cause: failure });
}
