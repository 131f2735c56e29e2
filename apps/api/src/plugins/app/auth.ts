import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256Hex, type RunnerIdentity } from '@tunelab/results-db';
import { ApiError } from '../../problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook for write routes: a valid, unrevoked runner token and a recent enough runner. */
    requireRunner: (request: FastifyRequest) => Promise<void>;
    /**
     * Like requireRunner, but a token seen before is identified from memory, without a query: only
     * for routes whose own statement refuses a revoked runner (ingestRun raises RunnerRevokedError),
     * which then call forgetRunnerToken. Revocation is thus seen at once, by every API process.
     */
    identifyRunner: (request: FastifyRequest) => Promise<void>;
    /** Drops the request's token from identifyRunner's memory (its runner turned out revoked). */
    forgetRunnerToken: (request: FastifyRequest) => void;
    /** onRequest hook for fleet job requests: a valid operator token (a runner token gets 403). */
    requireOperator: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    runner?: RunnerIdentity;
    operator?: RunnerIdentity;
  }
}

export type AuthOptions = {
  minRunnerVersion: string;
  /** Failed authentications per client address per minute; beyond it 429 before the token is looked at. */
  failuresPerMinute: number;
};

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,200})$/;
/** Tokens identifyRunner remembers (by sha256, never the token itself); the oldest is dropped first. */
const REMEMBERED_TOKENS = 10_000;
const RUNNER_AGENT = /(?:^|\s)tunelab-runner\/(\d+)\.(\d+)\.(\d+)/;

function olderThan(v: number[], min: number[]) {
  for (let i = 0; i < 3; i++) {
    if ((v[i] ?? 0) !== (min[i] ?? 0)) return (v[i] ?? 0) < (min[i] ?? 0);
  }
  return false;
}

/** The 401 for an unknown or revoked token (also what a route answers when ingest finds the runner revoked). */
export const unknownToken = () =>
  new ApiError('unauthorized', 'the runner token is unknown or revoked', [], {
    'www-authenticate': 'Bearer error="invalid_token"',
  });

type FailureGuard = {
  /** 429 when this address failed to authenticate too often, before its token is looked at. */
  check: (request: FastifyRequest) => Promise<void>;
  /** Rethrows `err`, counting it as a failed authentication when it is a 401. */
  refuse: (request: FastifyRequest, err: unknown) => Promise<never>;
};

function createFailureGuard(app: FastifyInstance, failuresPerMinute: number): FailureGuard {
  // Counts only failures (an increment on 401; a peek before the token is looked at): a runner
  // that authenticates is never counted, and an address that guessed wrong too often gets 429
  // without learning whether its next guess was right.
  const failures = app.createRateLimit({
    max: failuresPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => req.ip,
  });
  return {
    check: async (request) => {
      const seen = await failures(request, { increment: false });
      if (!seen.isAllowed && seen.remaining <= 0) {
        const seconds = Math.max(1, seen.ttlInSeconds);
        throw new ApiError(
          'rate-limited',
          `more than ${seen.max} failed authentications per minute from this address; retry after ${seconds} s`,
          undefined,
          { 'retry-after': String(seconds) },
        );
      }
    },
    refuse: async (request, err) => {
      if (err instanceof ApiError && err.code === 'unauthorized') await failures(request);
      throw err;
    },
  };
}

function checkRunnerVersion(request: FastifyRequest, min: number[], minRunnerVersion: string): void {
  const ua = request.headers['user-agent'] ?? '';
  const m = RUNNER_AGENT.exec(ua);
  // Other clients (curl, scripts) are let through; TuneLab runners must be recent enough to
  // produce submissions this API understands.
  if (m && olderThan([Number(m[1]), Number(m[2]), Number(m[3])], min)) {
    throw new ApiError(
      'runner-too-old',
      `runner ${m[1]}.${m[2]}.${m[3]} is older than the minimum ${minRunnerVersion}; upgrade the TuneLab runner and submit again (the run file is kept)`,
    );
  }
}

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header)
    throw new ApiError('unauthorized', 'send the runner token as `Authorization: Bearer <token>`', [], {
      'www-authenticate': 'Bearer',
    });
  const bearer = BEARER.exec(header);
  if (!bearer?.[1])
    throw new ApiError('unauthorized', 'the Authorization header must be `Bearer <token>`', [], {
      'www-authenticate': 'Bearer error="invalid_request"',
    });
  return bearer[1];
}

async function authenticate(app: FastifyInstance, token: string): Promise<RunnerIdentity> {
  const runner = await app.resultsDb.authenticateRunner(token);
  if (!runner) throw unknownToken();
  return runner;
}

/** The runner of a token, from `remembered` when seen before (keyed by its sha256), else looked up and remembered. */
async function rememberedRunner(
  app: FastifyInstance,
  remembered: Map<string, RunnerIdentity>,
  token: string,
): Promise<RunnerIdentity> {
  const key = sha256Hex(token);
  let runner = remembered.get(key);
  if (!runner) {
    runner = await authenticate(app, token);
    if (remembered.size >= REMEMBERED_TOKENS) remembered.delete(remembered.keys().next().value!);
    remembered.set(key, runner);
  }
  return runner;
}

// Operator tokens are throttled like runner tokens: a wrong one counts as a failed
// authentication, and an address over the limit gets 429 whatever it sends.
async function operatorOf(app: FastifyInstance, request: FastifyRequest): Promise<RunnerIdentity> {
  const header = request.headers.authorization;
  const bearer = header ? BEARER.exec(header) : null;
  if (!bearer?.[1])
    throw new ApiError('unauthorized', 'send an operator token as `Authorization: Bearer <token>`', [], {
      'www-authenticate': 'Bearer',
    });
  const operator = await app.resultsDb.authenticateRunner(bearer[1], 'operator');
  if (operator) return operator;
  if (await app.resultsDb.authenticateRunner(bearer[1], 'runner'))
    throw new ApiError(
      'forbidden',
      'a runner token cannot request, cancel or see the private fields of jobs; use an operator token (npm run admin -- create-operator NAME)',
    );
  throw new ApiError('unauthorized', 'the operator token is unknown or revoked', [], {
    'www-authenticate': 'Bearer error="invalid_token"',
  });
}

export default fp<AuthOptions>(
  async (app, opts) => {
    const min = opts.minRunnerVersion.split('.').map(Number);
    const failures = createFailureGuard(app, opts.failuresPerMinute);
    const checkVersion = (request: FastifyRequest) => checkRunnerVersion(request, min, opts.minRunnerVersion);
    app.decorate('requireRunner', async (request: FastifyRequest) => {
      await failures.check(request);
      checkVersion(request);
      try {
        request.runner = await authenticate(app, bearerToken(request));
      } catch (e) {
        await failures.refuse(request, e);
      }
    });

    const remembered = new Map<string, RunnerIdentity>();
    app.decorate('identifyRunner', async (request: FastifyRequest) => {
      await failures.check(request);
      checkVersion(request);
      try {
        request.runner = await rememberedRunner(app, remembered, bearerToken(request));
      } catch (e) {
        await failures.refuse(request, e);
      }
    });
    app.decorate('forgetRunnerToken', (request: FastifyRequest) => {
      const header = request.headers.authorization;
      const bearer = header ? BEARER.exec(header) : null;
      if (bearer?.[1]) remembered.delete(sha256Hex(bearer[1]));
    });
    app.decorate('requireOperator', async (request: FastifyRequest) => {
      await failures.check(request);
      try {
        request.operator = await operatorOf(app, request);
      } catch (e) {
        await failures.refuse(request, e);
      }
    });
  },
  { name: 'auth', dependencies: ['results-db', '@fastify/rate-limit'] },
);
