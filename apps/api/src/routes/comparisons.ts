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
  ProbeReport,
  SimilarBySpec,
  SimilarByProbeQuery,
  SimilarBySpecQuery,
  similarQueryOfProbe,
  SimilarHardware,
  SimilarHardwareQuery,
  sha256Hex,
} from '@tunelab/contracts';
import { ApiError } from '../problem.ts';

/** How every "hardware like mine" route ranks (packages/answers/src/similar.ts says why). */
const SIMILAR_RULE =
  'Ranking: same storage first (the kernel’s storage kind, or where it is unknown the tier the probe measured; unknown storage last), then `distance`, the mean |log2 ratio| over the figures both the machine and the class have — cores, memory, and where both were probed fsync p50 latency, random reads/s at queue depth 1, sequential write MB/s and the CPU score of the same workload — then the most runs. A class’s figures are the median of its runs’ probes; `basis` names the figures its distance rests on (cores and memory alone for a class never probed).';

/** POST /v1/similar's body limit: a probe's JSON is about 1 kB. */
const SIMILAR_BODY_LIMIT = 64 * 1024;

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
        summary: 'Hardware classes closest to a machine: same storage first, then the measured distance',
        description: `${SIMILAR_RULE} The machine's figures are the median of all its probes.`,
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
        summary: 'Hardware classes closest to a machine given by its spec (cores, memoryGb, storage) and figures',
        description: `For a machine that has no stored profile yet. \`cores\` and \`memoryGb\` are required; \`storage\` (ssd, hdd, nvme, network-ssd, unknown) is required unless \`readIopsQd1\` is given, whose storage tier then stands for an unknown one. The probe's figures are optional, named as \`tunelab probe --json\` prints them: \`fsyncP50Us\`, \`readIopsQd1\`, \`readIopsQd16\` (only for the tier), \`seqWriteMBps\`, \`cpuScore\` with \`cpuWorkload\`. ${SIMILAR_RULE} \`like\` is false when no class has the same known storage within a mean of one doubling per figure — the items are then only the nearest. Article machines whose hardware the article never described are not ranked.`,
        tags: ['hardware', 'comparisons'],
        querystring: SimilarBySpecQuery,
        response: { 200: SimilarBySpec, 400: Problem, 503: Problem },
      },
    },
    async (request) => linkSimilarBySpec(await app.resultsDb.findSimilarBySpec(request.query)),
  );

  app.post(
    '/similar',
    {
      // A probe's JSON is about 1 kB; anything near this is not one (413, the usual problem+json).
      bodyLimit: SIMILAR_BODY_LIMIT,
      schema: {
        summary: 'Hardware classes closest to the machine whose `tunelab probe --json` output is the body',
        description: `The body is the JSON \`tunelab probe --json\` prints (validated as such: an unknown key, a figure that is not a positive number, a missing field is a 400 naming it; over ${SIMILAR_BODY_LIMIT / 1024} KiB is a 413). Its \`machine\` gives the cores, memory and the kernel's storage kind; \`cores\`, \`memoryGb\` and \`storage\` in the query override them (and are required when the JSON has no \`machine\`). The tier is derived from the figures again, never read from \`tier\`. The answer is GET /v1/similar's for the same figures. ${SIMILAR_RULE}`,
        tags: ['hardware', 'comparisons'],
        querystring: SimilarByProbeQuery,
        body: ProbeReport,
        response: { 200: SimilarBySpec, 400: Problem, 413: Problem, 415: Problem, 503: Problem },
      },
    },
    async (request) => {
      const resolved = similarQueryOfProbe(request.body, request.query);
      if (!resolved.ok)
        throw new ApiError(
          'validation-failed',
          `querystring is invalid: ${resolved.errors.map((e) => `/${e.field} ${e.message}`).join('; ')}`,
          resolved.errors.map((e) => ({ path: `querystring:/${e.field}`, message: e.message })),
        );
      return linkSimilarBySpec(await app.resultsDb.findSimilarBySpec(resolved.query));
    },
  );
};

export default comparisons;
