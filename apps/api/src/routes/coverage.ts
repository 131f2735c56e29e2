import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Coverage, CoverageQuery, Problem, SUPPORTED_POSTGRESQL_MAJORS } from '@tunelab/contracts';

/** What has been measured where: scenario × hardware class × server major, with the open jobs. */
const coverage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/coverage',
    {
      schema: {
        summary: 'Runs and open jobs per scenario × hardware class × server major, and scenario × release',
        description:
          '`cells` are what was measured or requested (open jobs without a class have `hardwareClass: null`). `gaps` lists what is still unmeasured, per scenario (every scenario folder, measured or not) × server it should run on (each supported PostgreSQL major, ' +
          SUPPORTED_POSTGRESQL_MAJORS.join(', ') +
          '; a MariaDB/MySQL engine with any major) × hardware class (null while no class has runs or jobs), with `missing`: `scenario` (no run at all), `server` (runs on other servers only) or `class`, the open jobs that may fill it and a sentence. `releaseMatrix`: scenario × release (PostgreSQL MAJOR.MINOR) over every release measured or named by a job — per cell the runs and their classes, open and failed jobs naming it, the newest failure (masked) and a `status` (measured, pending, failed, missing).',
        tags: ['fleet'],
        querystring: CoverageQuery,
        response: { 200: Coverage, 400: Problem, 503: Problem },
      },
    },
    async (request) => app.resultsDb.coverage(request.query.scenario),
  );
};

export default coverage;
