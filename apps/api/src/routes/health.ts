import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Health, Problem, Readiness } from '@tunelab/contracts';
import { ApiError } from '../problem.ts';

const health: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', { schema: { summary: 'Liveness', tags: ['health'], response: { 200: Health } } }, async () => ({
    status: 'ok' as const,
  }));

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: the results database answers',
        tags: ['health'],
        response: { 200: Readiness, 503: Problem },
      },
    },
    async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), 2000);
      });
      try {
        await Promise.race([app.resultsDb.ping(), timeout]);
      } catch {
        throw new ApiError('database-unavailable', 'The results database is not reachable.', undefined, {
          'retry-after': '5',
        });
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ok' as const, database: 'ok' as const };
    },
  );
};

export default health;
