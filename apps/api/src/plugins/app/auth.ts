import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { RunnerIdentity } from '@tunelab/results-db';
import { ApiError } from '../../problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook for write routes: a valid, unrevoked runner token and a recent enough runner. */
    requireRunner: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    runner?: RunnerIdentity;
  }
}

export type AuthOptions = { minRunnerVersion: string };

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,200})$/;
const RUNNER_AGENT = /(?:^|\s)tunelab-runner\/(\d+)\.(\d+)\.(\d+)/;

function olderThan(v: number[], min: number[]) {
  for (let i = 0; i < 3; i++) {
    if ((v[i] ?? 0) !== (min[i] ?? 0)) return (v[i] ?? 0) < (min[i] ?? 0);
  }
  return false;
}

export default fp<AuthOptions>(
  async (app, opts) => {
    const min = opts.minRunnerVersion.split('.').map(Number);
    app.decorate('requireRunner', async (request: FastifyRequest) => {
      const ua = request.headers['user-agent'] ?? '';
      const m = RUNNER_AGENT.exec(ua);
      // Other clients (curl, scripts) are let through; TuneLab runners must be recent enough to
      // produce submissions this API understands.
      if (m && olderThan([Number(m[1]), Number(m[2]), Number(m[3])], min)) {
        throw new ApiError(
          'runner-too-old',
          `runner ${m[1]}.${m[2]}.${m[3]} is older than the minimum ${opts.minRunnerVersion}; upgrade the TuneLab runner and submit again (the run file is kept)`,
        );
      }
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
      const runner = await app.resultsDb.authenticateRunner(bearer[1]);
      if (!runner)
        throw new ApiError('unauthorized', 'the runner token is unknown or revoked', [], {
          'www-authenticate': 'Bearer error="invalid_token"',
        });
      request.runner = runner;
    });
  },
  { name: 'auth', dependencies: ['results-db'] },
);
