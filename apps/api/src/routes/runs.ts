import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  linkPage,
  linkRun,
  Problem,
  RunAccepted,
  RunDetail,
  RunList,
  RunListQuery,
  RunSubmission,
} from '@tunelab/contracts';
import { requestHash, RunnerRevokedError, sha256Hex } from '@tunelab/results-db';
import { ApiError } from '../problem.ts';
import { unknownToken } from '../plugins/app/auth.ts';
import { ingestForJob } from '../plugins/app/fleet.ts';

export type RunsRouteOptions = { rateLimitPerMinute: number };

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * The submission contract compiled once by zod's own compiler (`z.compile`, https://zod.dev/compile):
 * the same results and the same issues (a body the fast path refuses is parsed again by the
 * ordinary parser, which reports it), in about half the CPU — on a benchmark body of 520 objects
 * validation was the API's largest cost (apps/api/bench/README.md).
 */
export const RunSubmissionBody = z.compile(RunSubmission);

/**
 * A stored run's answer as JSON, the contract's keys in its order: the same text the zod
 * serializer writes (run-accepted.test.ts compares them) without validating a record that
 * `ingestRun` built from the stored row, typed `RunAccepted`.
 */
const runAcceptedJson = (run: RunAccepted): string =>
  JSON.stringify({
    id: run.id,
    status: run.status,
    idempotencyKey: run.idempotencyKey,
    scenario: { key: run.scenario.key, version: run.scenario.version },
    hardware: { fingerprint: run.hardware.fingerprint, class: run.hardware.class },
    samples: run.samples,
    timeSeriesPoints: run.timeSeriesPoints,
    receivedAt: run.receivedAt,
    links: { self: run.links.self },
  });

const problems = {
  400: Problem,
  401: Problem,
  409: Problem,
  413: Problem,
  415: Problem,
  426: Problem,
  429: Problem,
  503: Problem,
} as const;

const runs: FastifyPluginAsyncZod<RunsRouteOptions> = async (app, opts) => {
  app.post(
    '/runs',
    {
      // The token is identified from memory when seen before; ingestRun refuses a revoked runner.
      onRequest: [app.identifyRunner],
      config: {
        // An ingest goes before new answer computations (read-cache.ts).
        holdsReads: true,
        rateLimit: {
          max: opts.rateLimitPerMinute,
          timeWindow: '1 minute',
          // Per token, not per address: runners behind one NAT must not throttle each other.
          keyGenerator: (req) => (req.headers.authorization ? sha256Hex(req.headers.authorization) : req.ip),
        },
      },
      schema: {
        summary: 'Submit a finished run',
        description:
          'Stores one run in one transaction. `Idempotency-Key` makes retries safe: the same key with the same body returns the original answer (200); with another body, 409. Without the header the key is derived from the body.',
        tags: ['runs'],
        security: [{ runnerToken: [] }],
        headers: z.object({
          'idempotency-key': z.string().optional().describe('1–200 characters of A–Z a–z 0–9 . _ : -'),
        }),
        body: RunSubmissionBody,
        response: { 200: RunAccepted, 201: RunAccepted, ...problems },
      },
    },
    async (request, reply) => {
      const header = request.headers['idempotency-key'];
      if (header !== undefined && !IDEMPOTENCY_KEY.test(header)) {
        throw new ApiError('validation-failed', 'Idempotency-Key must be 1–200 characters of A–Z a–z 0–9 . _ : -', [
          { path: 'headers:/idempotency-key', message: 'invalid format' },
        ]);
      }
      const document = request.document ?? request.body;
      const idempotencyKey = header ?? `body:${requestHash(document)}`;
      const started = performance.now();
      let result;
      try {
        result = await ingestForJob(app, request.body, request.runner, idempotencyKey, () =>
          app.resultsDb.ingestRun({
            submission: request.body,
            document,
            ...(request.documentText === undefined ? {} : { documentText: request.documentText }),
            idempotencyKey,
            runnerId: request.runner?.id ?? null,
          }),
        );
      } catch (err) {
        if (!(err instanceof RunnerRevokedError)) throw err;
        app.forgetRunnerToken(request);
        throw unknownToken();
      }
      // Time spent storing the run (RFC: W3C Server Timing), so clients and benchmarks can tell
      // database work from transport.
      reply.header('server-timing', `ingest;dur=${(performance.now() - started).toFixed(1)}`);
      const run = linkRun(result.run);
      reply.header('location', run.links.self).type('application/json; charset=utf-8').serializer(runAcceptedJson);
      // Cached comparisons, findings and answers include this run from now on.
      if (result.outcome === 'created') app.markDataChanged();
      if (result.outcome === 'replayed') {
        reply.header('idempotent-replayed', 'true');
        return reply.code(200).send(run);
      }
      return reply.code(201).send(run);
    },
  );

  app.get(
    '/runs',
    {
      schema: {
        summary: 'List runs, newest first',
        tags: ['runs'],
        querystring: RunListQuery,
        response: { 200: RunList, 400: Problem, 503: Problem },
      },
    },
    async (request) => linkPage(await app.resultsDb.listRuns(request.query), linkRun),
  );

  app.get(
    '/runs/:id',
    {
      schema: {
        summary: 'One run with its samples, time series and notes',
        tags: ['runs'],
        params: z.object({ id: z.string().max(100) }),
        response: { 200: RunDetail, 404: Problem, 503: Problem },
      },
    },
    async (request) => {
      const run = await app.resultsDb.getRun(request.params.id);
      if (!run) throw new ApiError('not-found', `no run with id ${request.params.id}`);
      return linkRun(run);
    },
  );
};

export default runs;
