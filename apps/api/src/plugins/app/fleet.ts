import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Fleet, FleetOptions } from '@tunelab/results-db';
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
 * Stores a run that answers a fleet job: the job's one run slot is reserved for this run's
 * idempotency key before the ingest (a second run for the job, e.g. a killed agent's spool
 * delivering late, gets 409 and is not stored), and the job completes once the run is stored.
 */
export async function ingestForJob<T extends { run: { id: string } }>(
  app: FastifyInstance,
  jobId: string | undefined,
  idempotencyKey: string,
  ingest: () => Promise<T>,
): Promise<T> {
  if (!jobId || !app.hasDecorator('fleet')) return ingest();
  const slot = await app.fleet.reserveRunSlot(jobId, idempotencyKey);
  if (slot.status === 'unknown-job')
    throw new ApiError('validation-failed', `no fleet job with id ${jobId}`, [
      { path: '/job', message: 'unknown job' },
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
    await app.fleet.freeRunSlot(jobId, idempotencyKey).catch(() => undefined);
    throw err;
  }
  await app.fleet.completeWithRun(jobId, idempotencyKey, result.run.id);
  return result;
}
