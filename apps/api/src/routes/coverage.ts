import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Coverage, CoverageQuery, Problem } from '@tunelab/contracts';

/** What has been measured where: scenario × hardware class × server major, with the open jobs. */
const coverage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/coverage',
    {
      schema: {
        summary: 'Runs and open jobs per scenario × hardware class × server major',
        description:
          'A cell with no runs and no open jobs is a gap; open jobs without a class have `hardwareClass: null`.',
        tags: ['fleet'],
        querystring: CoverageQuery,
        response: { 200: Coverage, 400: Problem, 503: Problem },
      },
    },
    async (request) => app.resultsDb.coverage(request.query.scenario),
  );
};

export default coverage;
