import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Problem } from '@tunelab/contracts';

const Me = z.object({ name: z.string() });

/** `GET /v1/runners/me`: whom a runner token names. Changes nothing; a runner checks its token with it before measuring. */
const runners: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/runners/me',
    {
      onRequest: [app.requireRunner],
      schema: {
        summary: 'The runner this token belongs to (a token check that changes nothing)',
        description:
          '200 with the runner’s name for a valid runner token; 401 for an unknown or revoked one, 426 for a runner older than the minimum. `tunelab run --api` and `tunelab agent` call it before measuring.',
        tags: ['runs'],
        security: [{ runnerToken: [] }],
        response: { 200: Me, 401: Problem, 426: Problem, 429: Problem, 503: Problem },
      },
    },
    async (request) => ({ name: request.runner?.name ?? '' }),
  );
};

export default runners;
