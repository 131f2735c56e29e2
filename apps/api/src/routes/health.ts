import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Health, Problem, Readiness } from '@tunelab/contracts';
import type { QueueTables } from '@tunelab/results-db';
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
        description:
          "With the fleet's routes on, `queue` gives its tables' live and dead rows from the server's statistics (dead rows of pg-boss's tables slow every claim until vacuumed).",
        tags: ['health'],
        response: { 200: Readiness, 503: Problem },
      },
    },
    async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), 2000);
      });
      let queue: QueueTables | null = null;
      try {
        await Promise.race([app.resultsDb.ping(), timeout]);
        if (app.hasDecorator('fleet')) queue = await Promise.race([app.resultsDb.queueTables(), timeout]);
      } catch {
        throw new ApiError('database-unavailable', 'The results database is not reachable.', undefined, {
          'retry-after': '5',
        });
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ok' as const, database: 'ok' as const, ...(queue ? { queue } : {}) };
    },
  );
};

export default health;
