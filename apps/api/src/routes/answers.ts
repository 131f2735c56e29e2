import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AnswersQuery, linkAnswers, Problem, ScenarioAnswers } from '@tunelab/contracts';
import { LikeMineQueryError, ScaleQueryError } from '@tunelab/results-db';
import { ApiError } from '../problem.ts';

/** Public read: a scenario's answers, computed by @tunelab/answers (the site draws the same). */
const answers: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/answers',
    {
      schema: {
        summary: 'A scenario’s answers: per group the verdict of each declared pair and its agreement with the article',
        description:
          'Groups pool runs only under equal conditions (scenario version, hardware class, engine and major version, every parameter value). Per group: its parameter values, engine, warnings and, per declared pair, the verdict in the metric’s direction (scenario.yaml `better`, or `direction`), the agreement with the article (reproduces, contradicts, inconclusive, not-comparable, no-article, insufficient-data) with its reasons and the article figure it was held against; the declared ratios, fits and crossings. `versions` puts the server version side by side: for every hardware class with the same pair measured on two engine majors or more under otherwise equal conditions, one row per major (n and mean per side, the difference and the improvement with its 95% interval in the metric’s direction, the verdict and the agreement), per two majors the interaction test (is the pair’s ratio different on one major than on the other: ratio of ratios, 95% interval, Holm-adjusted p), which alone decides whether the summary says “the version changes the answer”, and in one sentence which versions are measured. `classes` does the same across hardware: for every engine major with the same pair measured on two hardware classes or more under otherwise equal conditions (scenario version, parameter values, sweep point), one row per class (n and mean per side, the difference and the improvement with its 95% interval, the verdict and the agreement; `emulated` for a class measured inside a resource envelope, `--like-article`), per two classes the interaction test (is the pair’s ratio different on one class than on the other), Holm-adjusted over every class interaction of the same major and conditions, which alone decides whether the summary says “the hardware changes the answer”, and in one sentence which classes are measured. Each verdict is decided by Welch’s p adjusted by Holm’s method over the pairs × sweep points of its class and version (`welch.p` raw, `adjusted.p` adjusted). `major` (one major or several, `14,17`) keeps those majors’ groups. `rule` states the comparability rule. `noise` (and each group’s) counts the runs drawn on, those flagged noisy, those without noise figures and those left out; `noisy=exclude` leaves flagged runs out, `noisy=include` (the default) pools them. Each group’s `spread` states the noise of its pairs measured in paired blocks: the block-to-block sd of their log ratios, the smallest change each can tell from none, how many are unstable, in one sentence (null without blocks). The metric defaults to the scenario’s primary metric; `empty` says why there are no groups. `at=PARAM:VALUE` (the scenario’s scale parameter, e.g. `rows:40000000`) adds `atScale`: per hardware class, engine major and the other parameters, each declared pair’s variants fitted across every measured scale (log–log least squares) and answered at that scale — candidate ÷ baseline with its 95% confidence interval (Bonferroni over the declared pairs), `decision` by the rule of every answer (differs when the interval excludes 1, equivalent when it lies within ±the scenario’s margin, else undecided), the interval one new pair of runs falls in, p, the scale where the order changes (Fieller interval) and each fit’s leave-one-scale-out errors; a scale more than `limit`× outside the measured range is refused with the command that measures it; a scenario without a scale parameter, or another parameter, is a 400 naming `at`. For a scenario with a scale parameter, measured answers carry `scaleCurves` (with or without `at`): per class, major and the other parameters, each variant’s fitted line (its parameters and the sums its intervals come from, not the samples) and held-out errors — what `atScale` is computed from for any value, by the same function the site runs in the browser. “Hardware like mine”: your machine as GET /v1/similar takes it — `cores` and `memoryGb`, its storage as `machineStorage` (ssd, hdd, nvme, network-ssd, unknown; here `storage` stays the filter on the runs’ storage kind; it may be left out when `readIopsQd1` is given, whose tier stands for it) and optionally the probe’s figures as `tunelab probe --json` names them (`fsyncP50Us`, `readIopsQd1`, `readIopsQd16`, `seqWriteMBps`, `cpuScore` with `cpuWorkload`) — or `like=<fingerprint>`, a stored machine (the median of its probes), not with the others. With a machine the groups come nearest first, ranked as /v1/similar ranks classes (same storage first, unknown storage last, then `distance`, the mean |log2 ratio| over the figures both have, then the most runs; groups of one class in their usual order), each with its `similarity` (`storage`, `sameStorage`, `distance`, `basis`, `like`: same known storage within a mean of one doubling per figure; null for an article machine whose hardware is not stated), and `likeMine` says which classes are like the machine and gives the nearest like class’s answers, or in its `sentence` that no class is like it and how far the nearest is. A figure that is not a positive number, a missing `cores` or `memoryGb`, `like` with figures, or a fingerprint not stored is a 400 naming the parameter. Without these parameters the answers are unchanged.',
        tags: ['comparisons'],
        querystring: AnswersQuery,
        response: { 200: ScenarioAnswers, 400: Problem, 404: Problem, 503: Problem },
      },
    },
    async (request) => {
      const result = await app.resultsDb.answers(request.query).catch((err: unknown) => {
        if (err instanceof ScaleQueryError)
          throw new ApiError('bad-request', err.message, [{ path: 'querystring:/at', message: err.message }]);
        if (err instanceof LikeMineQueryError)
          throw new ApiError('bad-request', err.message, [{ path: `querystring:/${err.field}`, message: err.message }]);
        throw err;
      });
      if (!result)
        throw new ApiError('not-found', `no scenario ${request.query.scenario} in this server's scenario folders`);
      return linkAnswers(result);
    },
  );
};

export default answers;
