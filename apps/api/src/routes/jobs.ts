import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ClaimedJob,
  ClaimRequest,
  HeartbeatAnswer,
  Job,
  JobAttemptBody,
  JobFailBody,
  JobList,
  JobListQuery,
  JobReleasesRequest,
  JobRequest,
  Problem,
  SUPPORTED_POSTGRESQL_MAJORS,
} from '@tunelab/contracts';
import type { FastifyRequest } from 'fastify';
import { JobConflictError, JobRequestError, type JobViewer } from '@tunelab/results-db';
import { ApiError } from '../problem.ts';

const JobId = z.object({ id: z.uuid() });

/** Who may call a fleet route, as its OpenAPI operation says: an operator, or an agent (runner token). */
const BY_OPERATOR = { tags: ['fleet'], security: [{ operatorToken: [] }] };
const BY_AGENT = { tags: ['fleet'], security: [{ runnerToken: [] }] };
/** An agent's call about its attempt: a bad body, no runner token, a job not its own (409), the database away. */
const AGENT_CALL_ERRORS = { 400: Problem, 401: Problem, 409: Problem, 503: Problem };

/** Thrown by the fleet for a request the scenario refuses, or an agent call on a job not its own. */
function asApiError(err: unknown): never {
  if (err instanceof JobRequestError)
    throw new ApiError('validation-failed', err.message, [{ path: err.field, message: err.message }]);
  if (err instanceof JobConflictError) throw new ApiError('job-conflict', err.message);
  throw err;
}

/** What a route group registers its routes on: the API with the zod type provider. */
type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

/**
 * Anyone may list jobs; runner names and failure sentences as sent are for an operator only. A
 * request with an Authorization header must carry a valid operator token (a wrong one is a
 * counted authentication failure, as on the write routes).
 */
async function viewerOf(app: ZodApp, request: FastifyRequest): Promise<JobViewer> {
  if (request.headers.authorization === undefined) return 'public';
  await app.requireOperator(request);
  return 'operator';
}

/** Requesting, listing, reading and cancelling jobs (operators; anyone may read). */
function addJobRoutes(app: ZodApp): void {
  app.post(
    '/jobs',
    {
      onRequest: [app.requireOperator],
      schema: {
        summary: 'Request a run from the fleet',
        description: `Queues a job: a scenario with parameter overrides (checked by the scenario's own parameter schema), repetitions, an optional server major (a PostgreSQL scenario: one of the managed majors ${SUPPORTED_POSTGRESQL_MAJORS.join(', ')}; a MariaDB/MySQL scenario: none, the fleet knows no list of their majors — 400 naming \`/server\` otherwise), an optional \`release\` of such a major (MAJOR.MINOR, e.g. 17.4; 400 naming \`/release\` for another major or one that disagrees with \`server\`; whether the npm registry has it is the agent's to find: one that cannot install it fails the job with the registry's releases of that major), and which machines may run it (\`for\`: a hardware class, a runner, or labels an agent must all have).`,
        ...BY_OPERATOR,
        body: JobRequest,
        response: { 201: Job, 400: Problem, 401: Problem, 403: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const job = await app.fleet.requestJob(request.body, request.operator?.id ?? null).catch(asApiError);
      reply.header('location', `/v1/jobs/${job.id}`);
      return reply.code(201).send(job);
    },
  );

  app.post(
    '/jobs/releases',
    {
      onRequest: [app.requireOperator],
      schema: {
        summary: 'Request a scenario on several releases in one call',
        description: `One job per release (MAJOR.MINOR of a managed major, ${SUPPORTED_POSTGRESQL_MAJORS.join(', ')}), each as \`POST /v1/jobs\` with that \`release\`, in the order given. Every release is checked before any job is queued: a refused one is 400 naming \`/releases/N\` and nothing is queued. \`tunelab servers list --available --json\` lists the releases the npm registry has.`,
        ...BY_OPERATOR,
        body: JobReleasesRequest,
        response: { 201: JobList, 400: Problem, 401: Problem, 403: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const items = await app.fleet.requestReleases(request.body, request.operator?.id ?? null).catch(asApiError);
      return reply.code(201).send({ items });
    },
  );

  app.get(
    '/jobs',
    {
      schema: {
        summary: 'Jobs, newest first',
        tags: ['fleet'],
        querystring: JobListQuery,
        response: { 200: JobList, 400: Problem, 503: Problem },
      },
    },
    async (request) => ({ items: await app.fleet.listJobs(request.query, await viewerOf(app, request)) }),
  );

  app.get(
    '/jobs/:id',
    {
      schema: {
        summary: 'One job',
        tags: ['fleet'],
        params: JobId,
        response: { 200: Job, 400: Problem, 404: Problem, 503: Problem },
      },
    },
    async (request) => {
      const job = await app.fleet.getJob(request.params.id, await viewerOf(app, request));
      if (!job) throw new ApiError('not-found', `no job with id ${request.params.id}`);
      return job;
    },
  );

  app.delete(
    '/jobs/:id',
    {
      onRequest: [app.requireOperator],
      schema: {
        summary: 'Cancel a queued or active job',
        description: 'An agent running it stops at its next heartbeat and cleans up.',
        ...BY_OPERATOR,
        params: JobId,
        response: { 200: Job, 400: Problem, 401: Problem, 403: Problem, 404: Problem, 503: Problem },
      },
    },
    async (request) => {
      const job = await app.fleet.cancelJob(request.params.id);
      if (!job) throw new ApiError('not-found', `no job with id ${request.params.id}`);
      return job;
    },
  );
}

/** An agent claims a job it can run (long poll). */
function addClaimRoute(app: ZodApp): void {
  app.post(
    '/agent/claim',
    {
      onRequest: [app.requireRunner],
      schema: {
        summary: 'Claim a job this agent can run (long poll)',
        description:
          "Answers 200 with a job as soon as one fits the agent (engine and server major of its target; a job naming a release only to an agent whose target runs it, `release`, or that installs any release of its major, `anyRelease`; the job's class, runner or labels), or 204 after `waitSeconds`.",
        ...BY_AGENT,
        body: ClaimRequest,
        response: { 200: ClaimedJob, 204: z.null(), 400: Problem, 401: Problem, 503: Problem },
      },
    },
    async (request, reply) => {
      const b = request.body;
      // The agent went away (stopped, cut): stop waiting, so no job is claimed for nobody. The
      // response's 'close' is the one that comes when the socket closes: the request's comes once
      // its body is read.
      const aborted = new AbortController();
      reply.raw.once('close', () => aborted.abort());
      const job = await app.fleet.claim(
        {
          runnerName: request.runner?.name ?? '',
          runnerId: request.runner?.id ?? null,
          hardware: b.hardware,
          labels: b.labels,
          engine: b.engine,
          server: b.server,
          release: b.release,
          anyRelease: b.anyRelease,
        },
        b.waitSeconds * 1000,
        aborted.signal,
      );
      if (!job) return reply.code(204).send(null);
      return job;
    },
  );
}

/** An agent's calls about its attempt at a job: heartbeat, fail, release. */
function addAttemptRoutes(app: ZodApp): void {
  app.post(
    '/jobs/:id/heartbeat',
    {
      onRequest: [app.requireRunner],
      schema: {
        summary: "Keep this agent's lease on a job",
        description: '`stop: true` when the job was cancelled, re-leased to another agent or already answered.',
        ...BY_AGENT,
        params: JobId,
        body: JobAttemptBody,
        response: { 200: HeartbeatAnswer, ...AGENT_CALL_ERRORS },
      },
    },
    async (request) =>
      app.fleet.heartbeat(request.params.id, request.body.attempt, request.runner?.name ?? '').catch(asApiError),
  );

  app.post(
    '/jobs/:id/fail',
    {
      onRequest: [app.requireRunner],
      schema: {
        summary: 'Report that this attempt failed, with the runner’s own sentence',
        description:
          'The job is retried with backoff until its retry limit, then failed; with `final: true` (the runner refused the job itself: a release the registry does not have, a scenario it does not hold, a refused parameter) it fails now, without its retries.',
        ...BY_AGENT,
        params: JobId,
        body: JobFailBody,
        response: { 200: Job, ...AGENT_CALL_ERRORS },
      },
    },
    async (request) =>
      app.fleet
        .failJob(
          request.params.id,
          request.body.attempt,
          request.runner?.name ?? '',
          request.body.error,
          request.body.final ?? false,
        )
        .catch(asApiError),
  );

  app.post(
    '/jobs/:id/release',
    {
      onRequest: [app.requireRunner],
      schema: {
        summary: 'Give a job back (the agent is stopping); it is queued again at once',
        ...BY_AGENT,
        params: JobId,
        body: JobAttemptBody,
        response: { 200: Job, ...AGENT_CALL_ERRORS },
      },
    },
    async (request) =>
      app.fleet.releaseJob(request.params.id, request.body.attempt, request.runner?.name ?? '').catch(asApiError),
  );
}

/**
 * The fleet: operators request jobs (operator token); agents claim them with a long poll,
 * heartbeat while they run, and fail or release them (runner token). A job completes when its
 * run is stored (POST /v1/runs with `job`).
 */
const jobs: FastifyPluginAsyncZod = async (app) => {
  addJobRoutes(app);
  addClaimRoute(app);
  addAttemptRoutes(app);
};

export default jobs;
