import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyServerOptions } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FleetOptions, ResultsDb } from '@tunelab/results-db';
import resultsDbPlugin from './plugins/external/results-db.ts';
import swaggerPlugin from './plugins/external/swagger.ts';
import errorsPlugin from './plugins/app/errors.ts';
import jsonBodyPlugin from './plugins/app/json-body.ts';
import authPlugin from './plugins/app/auth.ts';
import requestDeadlinePlugin from './plugins/app/request-deadline.ts';
import readCachePlugin from './plugins/app/read-cache.ts';
import keptAnswersPlugin, { type KeptAnswersPluginOptions } from './plugins/app/kept-answers.ts';
import healthRoutes from './routes/health.ts';
import runsRoutes from './routes/runs.ts';
import catalogRoutes from './routes/catalog.ts';
import comparisonRoutes from './routes/comparisons.ts';
import answerRoutes from './routes/answers.ts';
import fleetPlugin from './plugins/app/fleet.ts';
import jobRoutes from './routes/jobs.ts';
import coverageRoutes from './routes/coverage.ts';
import runnerRoutes from './routes/runners.ts';
import releaseEventRoutes from './routes/release-events.ts';
import { answerClientError, ApiError, sendProblem } from './problem.ts';

export type BuildAppOptions = {
  resultsDb?: ResultsDb;
  databaseUrl?: string;
  dataDir?: string;
  migrate?: boolean;
  minRunnerVersion?: string;
  rateLimitPerMinute?: number;
  /** GETs of the expensive reads (EXPENSIVE_READS) per client address per minute (default 600). */
  readRateLimitPerMinute?: number;
  /** Failed authentications (401) per client address per minute before 429 (default 10). */
  authFailuresPerMinute?: number;
  /** Cached reads are recomputed after this even without an ingest here (default: see read-cache.ts). */
  readCacheMaxAgeMs?: number;
  /** An expensive read waits this long for a fresh answer, then gets the last computed one with its Age (default 1000; 0: always wait). */
  readBudgetMs?: number;
  bodyLimitBytes?: number;
  logger?: FastifyServerOptions['logger'];
  /** Whole request (headers and body) must arrive within this (default 30 s), else 408. */
  requestTimeoutMs?: number;
  /** An idle connection is closed after this (default 65 s). */
  connectionTimeoutMs?: number;
  /** Backstop for a whole request, database work included (default 60 s): 503 + Retry-After. */
  handlerTimeoutMs?: number;
  /** Kept answers of GET /v1/answers: their recomputation in the background and read budget (default `readBudgetMs`). */
  keptAnswers?: KeptAnswersPluginOptions;
  /** The fleet's job queue (lease, retries); `false` leaves the job routes out. */
  fleet?: FleetOptions | false;
};

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECTION_TIMEOUT_MS = 65_000;
export const DEFAULT_HANDLER_TIMEOUT_MS = 60_000;
/** Public GET routes whose answers are computed over many runs: cached, ETagged and rate-limited per client. */
export const EXPENSIVE_READS = [
  '/v1/comparisons',
  '/v1/findings',
  '/v1/answers',
  '/v1/hardware',
  '/v1/similar',
] as const;
/** POST routes that are reads computed over many runs (POST /v1/similar takes a probe's JSON): limited like EXPENSIVE_READS. */
const LIMITED_POST_READS = ['/v1/similar'] as const;
/** Public reads limited per address like EXPENSIVE_READS but not cached: jobs and coverage change without an ingest. */
const LIMITED_READS = ['/v1/coverage', '/v1/jobs'] as const;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** The API as a Fastify instance; `server.ts` listens, tests use `inject()` or listen on port 0. */
export async function buildApp(opts: BuildAppOptions = {}) {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: opts.bodyLimitBytes ?? 16 * 1024 * 1024,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: 200 },
    // Plugins open the results database and start the job queue: on a loaded machine (load 10, a
    // fresh-clone CI) that took longer than Fastify's 10 s default, and the API never started.
    pluginTimeout: 60_000,
    // A client sending headers and a partial body must not hold a connection for minutes.
    requestTimeout: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    connectionTimeout: opts.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    handlerTimeout: opts.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
    // Node checks request timeouts on this interval (default 30 s, which would double a short timeout).
    http: {
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(1000, Math.floor((opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) / 4)),
      ),
    },
    clientErrorHandler: answerClientError,
    // Errors the router raises before any route or hook: a %-encoding that does not decode, an
    // over-long path parameter. Same problem+json as everything else.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const err =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError('uri-too-long', 'a path segment is longer than 200 characters', [
              { path: 'url', message: 'too long' },
            ])
          : error.code === 'FST_ERR_BAD_URL'
            ? new ApiError('bad-request', 'the URL has a %-escape that does not decode', [
                { path: 'url', message: 'invalid percent-encoding' },
              ])
            : new ApiError('bad-request', error.message);
      void sendProblem(reply, request, err);
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
  });

  await app.register(errorsPlugin);
  await app.register(requestDeadlinePlugin, { requestTimeoutMs: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS });
  await app.register(resultsDbPlugin, {
    resultsDb: opts.resultsDb,
    databaseUrl: opts.databaseUrl,
    dataDir: opts.dataDir,
    migrate: opts.migrate,
  });
  await app.register(rateLimit, {
    global: false,
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    errorResponseBuilder: (_req, ctx) => {
      const seconds = Math.max(1, Math.ceil(ctx.ttl / 1000));
      return new ApiError(
        'rate-limited',
        `more than ${ctx.max} submissions per ${ctx.after} for this token; retry after ${seconds} s`,
        undefined,
        {
          'retry-after': String(seconds),
        },
      );
    },
  });
  await app.register(swaggerPlugin);
  await app.register(jsonBodyPlugin);
  await app.register(authPlugin, {
    minRunnerVersion: opts.minRunnerVersion ?? '0.1.0',
    failuresPerMinute: opts.authFailuresPerMinute ?? 10,
  });
  await app.register(readCachePlugin, {
    prefixes: EXPENSIVE_READS,
    limitedPrefixes: LIMITED_READS,
    limitedPostPrefixes: LIMITED_POST_READS,
    readsPerMinute: opts.readRateLimitPerMinute ?? 600,
    ...(opts.readCacheMaxAgeMs !== undefined ? { maxAgeMs: opts.readCacheMaxAgeMs } : {}),
    ...(opts.readBudgetMs !== undefined ? { readBudgetMs: opts.readBudgetMs } : {}),
  });

  await app.register(keptAnswersPlugin, {
    ...(opts.readBudgetMs !== undefined ? { readBudgetMs: opts.readBudgetMs } : {}),
    ...opts.keptAnswers,
  });

  await app.register(healthRoutes);
  await app.register(runsRoutes, { prefix: '/v1', rateLimitPerMinute: opts.rateLimitPerMinute ?? 600 });
  await app.register(catalogRoutes, { prefix: '/v1' });
  await app.register(comparisonRoutes, { prefix: '/v1' });
  await app.register(answerRoutes, { prefix: '/v1' });
  await app.register(runnerRoutes, { prefix: '/v1' });
  await app.register(releaseEventRoutes, { prefix: '/v1' });
  if (opts.fleet !== false) {
    await app.register(fleetPlugin, opts.fleet ?? {});
    await app.register(jobRoutes, { prefix: '/v1' });
    await app.register(coverageRoutes, { prefix: '/v1' });
  }
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
