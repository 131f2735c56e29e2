import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  HardwareDetail,
  HardwareList,
  HardwareListQuery,
  linkHardware,
  linkPage,
  Problem,
  ScenarioList,
  sha256Hex,
} from '@tunelab/contracts';
import { ApiError } from '../problem.ts';

/** Public reads: hardware profiles and scenarios. */
const catalog: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/hardware',
    {
      schema: {
        summary: 'Hardware profiles',
        tags: ['hardware'],
        querystring: HardwareListQuery,
        response: { 200: HardwareList, 400: Problem, 503: Problem },
      },
    },
    async (request) => linkPage(await app.resultsDb.listHardware(request.query), linkHardware),
  );

  app.get(
    '/hardware/:fingerprint',
    {
      schema: {
        summary: 'One hardware profile and the scenarios run on it',
        tags: ['hardware'],
        params: z.object({ fingerprint: sha256Hex }),
        response: { 200: HardwareDetail, 400: Problem, 404: Problem, 503: Problem },
      },
    },
    async (request) => {
      const h = await app.resultsDb.getHardware(request.params.fingerprint);
      if (!h) throw new ApiError('not-found', `no hardware profile with fingerprint ${request.params.fingerprint}`);
      return linkHardware(h);
    },
  );

  app.get(
    '/scenarios',
    {
      schema: {
        summary: 'Scenarios and their versions',
        tags: ['scenarios'],
        response: { 200: ScenarioList, 503: Problem },
      },
    },
    async () => app.resultsDb.listScenarios(),
  );
};

export default catalog;
