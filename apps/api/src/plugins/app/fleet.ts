import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { RunSubmission } from '@tunelab/contracts';
import { storedIdempotencyKey, type Fleet, type FleetOptions } from '@tunelab/results-db';
import { ApiError } from '../../problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The fleet's job queue (pg-boss in the results database). */
    fleet: Fleet;
  }
}

/** Starts the fleet's queue with the app and stops it (waking every long-polling agent) on close. */
export default fp<FleetOptions>(
  async (app, opts) => {
    const fleet = app.resultsDb.openFleet({
      ...opts,
      onError: (err) => app.log.error({ err }, 'fleet queue (pg-boss) error'),
    });
    await fleet.start();
    app.decorate('fleet', fleet);
    app.addHook('preClose', async () => fleet.stop());
  },
  { name: 'fleet', dependencies: ['results-db'] },
);

/**
 * Stores a run that answers a fleet job. Only the agent holding the job's lease may answer it,
 * with a run of exactly what was requested (scenario, parameters, repetitions, engine, server
 * major and release): anything else is a 409 or 422 naming the mismatch and nothing is stored. The job's one
 * run slot is reserved for this run's idempotency key (scoped to the runner, as runs are) before
 * the ingest (a second run for the job, e.g. a killed agent's spool delivering late, gets 409 and
 * is not stored), and the job completes once the run is stored.
 */
export async function ingestForJob<T extends { run: { id: string } }>(
  app: FastifyInstance,
  run: RunSubmission,
  runner: { id: string; name: string } | undefined,
  idempotencyKey: string,
  ingest: () => Promise<T>,
): Promise<T> {
  const jobId = run.job;
  if (!jobId || !app.hasDecorator('fleet')) return ingest();
  if (!runner)
    throw new ApiError('job-conflict', `job ${jobId} can be answered only by the runner token of the agent holding it`);
  const slotKey = storedIdempotencyKey(idempotencyKey, runner.id);
  const slot = await app.fleet.reserveRunSlot(jobId, slotKey, runner.name, {
    scenario: run.scenario.key,
    params: run.params,
    repetitions: run.options?.repetitions,
    engine: run.database.engine,
    major: run.database.major,
    minor: run.database.minor,
  });
  if (slot.status === 'unknown-job')
    throw new ApiError('validation-failed', `no fleet job with id ${jobId}`, [
      { path: '/job', message: 'unknown job' },
    ]);
  if (slot.status === 'not-yours')
    throw new ApiError('job-conflict', `${slot.reason}: this run is not stored (it stays with the runner)`);
  if (slot.status === 'mismatch')
    throw new ApiError('job-mismatch', `the run does not answer job ${jobId}: ${slot.reason}; nothing is stored`, [
      { path: slot.field, message: slot.reason },
    ]);
  if (slot.status === 'taken')
    throw new ApiError(
      'job-conflict',
      `job ${jobId} already has its run${slot.runId ? ` (${slot.runId})` : ''}; this one is not stored (it stays with the runner)`,
    );
  let result: T;
  try {
    result = await ingest();
  } catch (err) {
    await app.fleet.freeRunSlot(jobId, slotKey).catch(() => undefined);
    throw err;
  }
  await app.fleet.completeWithRun(jobId, slotKey, result.run.id);
  return result;
}
