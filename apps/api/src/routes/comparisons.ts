import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ComparisonQuery,
  ComparisonResult,
  FindingList,
  FindingsQuery,
  linkComparisons,
  linkFinding,
  linkSimilar,
  linkSimilarBySpec,
  Problem,
  SimilarBySpec,
  SimilarBySpecQuery,
  SimilarHardware,
  SimilarHardwareQuery,
  sha256Hex,
} from '@tunelab/contracts';
import { ApiError } from '../problem.ts';

/** Public reads over the results: comparisons with statistics, findings, hardware like mine. */
const comparisons: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/comparisons',
    {
      schema: {
        summary: 'Compare variants per hardware group, with statistics',
        description:
          'Per group (scenario version × source × machine or hardware class × unit): per-variant n, mean, median, sd, 95% CI, CV and outliers; per pair the difference, its Fieller 95% CI, Welch and Mann–Whitney p-values and a verdict sentence. Pairs: baseline/candidate if given, else the pairs the scenario version declares, else every two variants. Two scenario versions are never pooled. `metric` defaults to the scenario’s primary metric (`report.primary_metric`, as /v1/answers) when `scenario` is given, else to `duration`; the response’s `metric` says which was used. `source` defaults to measured; published figures appear with source=published or all, in groups of their own.',
        tags: ['comparisons'],
        querystring: ComparisonQuery,
        response: { 200: ComparisonResult, 400: Problem, 503: Problem },
      },
    },
    async (request) => linkComparisons(await app.resultsDb.compare(request.query)),
  );

  app.get(
    '/findings',
    {
      schema: {
        summary: 'Verdict sentences per scenario × group, newest data first',
        description:
          "The same filters as /v1/comparisons: `metric` defaults to the scenario's primary metric when `scenario` is given, else to `duration`.",
        tags: ['comparisons'],
        querystring: FindingsQuery,
        response: { 200: FindingList, 400: Problem, 503: Problem },
      },
    },
    async (request) => ({ items: (await app.resultsDb.listFindings(request.query)).items.map(linkFinding) }),
  );

  app.get(
    '/hardware/:fingerprint/similar',
    {
      schema: {
        summary: 'Hardware classes closest to a machine: same storage kind first, then cores and memory',
        tags: ['hardware', 'comparisons'],
        params: z.strictObject({ fingerprint: sha256Hex }),
        querystring: SimilarHardwareQuery,
        response: { 200: SimilarHardware, 400: Problem, 404: Problem, 503: Problem },
      },
    },
    async (request) => {
      const similar = await app.resultsDb.findSimilarHardware(request.params.fingerprint, request.query);
      if (!similar)
        throw new ApiError('not-found', `no hardware profile with fingerprint ${request.params.fingerprint}`);
      return linkSimilar(similar);
    },
  );

  app.get(
    '/similar',
    {
      schema: {
        summary: 'Hardware classes closest to a machine given by its spec (cores, memoryGb, storage)',
        description:
          'For a machine that has no stored profile yet: same storage kind first, then |log2 cores ratio| + |log2 memory ratio|. `like` is false when no class has the same known storage kind within two doublings — the items are then only the nearest. Article machines whose hardware the article never described are not ranked.',
        tags: ['hardware', 'comparisons'],
        querystring: SimilarBySpecQuery,
        response: { 200: SimilarBySpec, 400: Problem, 503: Problem },
      },
    },
    async (request) => linkSimilarBySpec(await app.resultsDb.findSimilarBySpec(request.query)),
  );
};

export default comparisons;
