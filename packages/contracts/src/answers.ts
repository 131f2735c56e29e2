/**
 * GET /v1/answers: per group of runs under equal conditions, per declared pair the verdict in the
 * metric's direction and the agreement with the article, with the reasons read from the data;
 * the declared ratios, fits and crossings. Computed by `@tunelab/answers` (the site draws the same).
 */
import { z } from 'zod';
import {
  Bounds,
  checkRanges,
  ComparisonGroup,
  ComparisonSource,
  DirectionSource,
  PairComparison,
  Range,
  serverAndHardwareFilters,
  UsedDirection,
  variantPair,
  VerdictKind,
} from './comparisons.ts';
import { SweepPoint } from './run.ts';
import { NoiseCounts } from './noise.ts';
import { LeftOut } from './left-out.ts';
import { identifier, ParamValues } from './primitives.ts';
import { Engine } from './database.ts';
import { ScaleAnswers, ScaleAt, ScaleCurves } from './scale.ts';
import { checkReleaseRange, releaseRangeParams, UpgradeAnswer } from './releases.ts';
import { ReleaseLine } from './release-events.ts';
import { checkLikeMine, likeMineParams, RankedMachine, SimilarBasis, SimilarStorage } from './similar-hardware.ts';

export const AnswersQuery = z
  .strictObject({
    scenario: identifier,
    /** Default: the scenario's primary metric (report.primary_metric, else duration, else its first goal). */
    metric: identifier.optional(),
    ...serverAndHardwareFilters,
    /** measured (default): measured groups answered against the article; published: the article's own groups. */
    source: z.enum(['measured', 'published']).default('measured'),
    direction: z.enum(['lower-is-better', 'higher-is-better']).optional(),
    /** Answer at this value of the scenario's scale parameter too (`rows:40000000`): see `atScale`. */
    at: ScaleAt.optional(),
    /** "Hardware like mine": order the groups by their class's distance to this machine (see `likeMine`). */
    ...likeMineParams,
    /** Upgrading from one PostgreSQL release to another: see `upgrade`. */
    ...releaseRangeParams,
  })
  .superRefine((q, ctx) => {
    checkRanges(q, ctx);
    checkLikeMine(q, ctx);
    checkReleaseRange(q, ctx);
  });
export type AnswersQuery = z.infer<typeof AnswersQuery>;

export const Agreement = z.enum([
  'reproduces',
  'contradicts',
  'inconclusive',
  'not-comparable',
  'no-article',
  'insufficient-data',
]);
export type Agreement = z.infer<typeof Agreement>;

/** The article's figure a pair was held against. */
export const ArticleFigure = z.object({
  /**
   * `comparison`: the article's runs of the pair on the same metric; `ratio`: a declared ratio it
   * published; `claim`: a direction it stated without figures (published.json `claims`).
   */
  kind: z.enum(['comparison', 'ratio', 'claim']),
  /** The article's machine ("server-1", "article"), its label, and whether the article described its hardware. */
  machine: z.string(),
  label: z.string(),
  stated: z.boolean(),
  /** The sweep point of the article's figure, when it has one. */
  point: z.object({ param: z.string(), value: z.number() }).nullable(),
  /** Per variant the article's mean (comparison) or ratio to the baseline (ratio). */
  values: z.record(z.string(), z.number()),
  /** faster / slower / none (no difference) for the candidate, in the pair's orientation; unknown without a direction. */
  outcome: z.enum(['faster', 'slower', 'none', 'unknown']),
  sentence: z.string(),
});
export type ArticleFigure = z.infer<typeof ArticleFigure>;

/**
 * How the runners (tokens) of a class group answer a pair on their own runs, on a group whose runs
 * come from two runners or more: a class weighs runners, not runs, so that one runner's many runs
 * cannot outvote another's. `standing`: `agreed` (two runners or more give the pooled verdict on
 * their own runs), `pooled` (no runner's runs alone give it; none contradicts it), `one-runner`
 * (exactly one runner's runs give it: the verdict rests on that runner), `contested` (one runner
 * finds the candidate better, another worse: the pair's agreement is then `inconclusive` and its
 * advice says why).
 */
export const PairRunners = z.object({
  /** The group's runners whose own runs answer the pair. */
  count: z.number().int(),
  /** Per verdict kind, how many runners' own runs give it (the most first). */
  verdicts: z.array(z.object({ kind: VerdictKind, runners: z.number().int() })),
  /** How many runners' own runs give the pooled verdict's kind. */
  support: z.number().int(),
  standing: z.enum(['agreed', 'pooled', 'one-runner', 'contested']),
  /** "2 runners: 1 finds 1-2 better than 1-1 on its own runs, 1 worse — contested: …" */
  sentence: z.string(),
});
export type PairRunners = z.infer<typeof PairRunners>;

export const PairAnswer = z.object({
  ...variantPair,
  /** The measured verdict (kind, sentence, numbers); null when the group has no runs of the pair. */
  measured: PairComparison.nullable(),
  agreement: Agreement,
  /** Why the agreement is what it is: the conditions that differ from the article's ("scale: rows 700,000 here vs 200,000,000 in the article (1/286)"). */
  reasons: z.array(z.string()),
  /** Remarks that do not decide the agreement ("the article did not state its hardware"). */
  notes: z.array(z.string()),
  article: ArticleFigure.nullable(),
  /** "prefer ff100 (fillfactor 100) over ff40 (…)", or why not. */
  advice: z.string(),
  /**
   * The agreement in words: "reproduces the article", or for an emulated run (`--like-article`)
   * "reproduces the article under emulated conditions (data:memory 0.37 vs 0.375, …); not reproduced: …".
   */
  sentence: z.string(),
  /** On a group with runs of two runners or more: how its runners answer the pair on their own runs (`PairRunners`). */
  runners: PairRunners.optional(),
});
export type PairAnswer = z.infer<typeof PairAnswer>;

export const RatioAnswer = z.object({
  metric: z.string(),
  baseline: z.string(),
  label: z.string(),
  rows: z.array(
    z.object({
      variant: z.string(),
      mean: z.number(),
      ratio: z.number().nullable(),
      /** 95% Fieller interval of the ratio; null with fewer than two units on either side. */
      interval: z.object({ low: z.number().nullable(), high: z.number().nullable() }).nullable(),
      article: z.number().nullable(),
      /** Whether the article's ratio lies inside the interval (widened by the declared tolerance); null when one is missing. */
      agrees: z.boolean().nullable(),
      units: z.number().int(),
    }),
  ),
});
export type RatioAnswer = z.infer<typeof RatioAnswer>;

export const FitAnswer = z.object({
  metric: z.string(),
  per: z.string(),
  /** What x was: `per`, or the sweep parameter for runs that did not record `per` (an article's table). */
  against: z.string(),
  label: z.string(),
  factor: z.number(),
  rows: z.array(
    z.object({
      variant: z.string(),
      /** Slope × factor, with its 95% interval (null with fewer than three units). */
      slope: z.number(),
      interval: Range.nullable(),
      r2: z.number(),
      units: z.number().int(),
    }),
  ),
});
export type FitAnswer = z.infer<typeof FitAnswer>;

export const CrossingAnswer = z.object({
  metric: z.string(),
  ...variantPair,
  /** Where the mean curves cross: x, y and which is above after. */
  crossings: z.array(z.object({ x: z.number(), y: z.number(), above: z.enum(['baseline', 'candidate']) })),
});
export type CrossingAnswer = z.infer<typeof CrossingAnswer>;

/**
 * How near a group's hardware class is to the asker's machine (`@tunelab/answers/similar`'s
 * similarScore, as GET /v1/similar ranks): the storage the class was compared as, whether it is the
 * machine's, the mean |log2 ratio| over `basis`, and `like` (same known storage, within one
 * doubling per figure).
 */
export const GroupSimilarity = z.object({
  storage: SimilarStorage,
  sameStorage: z.boolean(),
  distance: z.number(),
  basis: z.array(SimilarBasis),
  like: z.boolean(),
});
export type GroupSimilarity = z.infer<typeof GroupSimilarity>;

/**
 * A group's noise from its pairs measured in paired blocks: the block-to-block sd of their log
 * ratios (low–high over the pairs), the smallest change each could tell from none (null: none
 * bounded yet), their blocks, how many are unstable (spread beyond the margin), in one sentence.
 */
export const GroupSpread = z.object({
  sdLogRatio: Range,
  detectable: Range.nullable(),
  blocks: z.object({ low: z.number().int(), high: z.number().int() }),
  unstable: z.number().int(),
  sentence: z.string(),
});
export type GroupSpread = z.infer<typeof GroupSpread>;

export const GroupAnswer = z.object({
  group: ComparisonGroup.omit({ comparisons: true }),
  /** "2 cores / 8 GB / virtual or unknown disk · rows = 700,000" */
  name: z.string(),
  pairs: z.array(PairAnswer),
  ratios: z.array(RatioAnswer),
  fits: z.array(FitAnswer),
  crossings: z.array(CrossingAnswer),
  /** The noise of its pairs measured in blocks; null when none was (runs from before blocks, the article's). */
  spread: GroupSpread.nullable(),
  /** With a machine given ("like mine"): how near the group's class is to it; null for an article machine whose hardware is not stated. */
  similarity: GroupSimilarity.nullable().optional(),
  /** Set on the groups of `leftOut`: why the group does not count towards the verdict. */
  leftOut: LeftOut.optional(),
});
export type GroupAnswer = z.infer<typeof GroupAnswer>;

/**
 * One thing the article found, as its own figures say it (published.json, imported as the
 * article's runs): a pair the article compared on one of its machines, a ratio it published, or a
 * direction it stated without figures. `sentence` says it as the article's, not measured here.
 */
export const ArticleFinding = z.object({
  ...variantPair,
  /** The unit of `figure.values` (the metric's for a comparison; none for a ratio or a claim). */
  unit: z.string(),
  figure: ArticleFigure,
  /** "the article found 1-2 faster than 1-1 on <its machine>: <mean> s for 1-1 vs <mean> s for 1-2 (n = 5 + 5, Welch p …); not yet measured here" */
  sentence: z.string(),
});
export type ArticleFinding = z.infer<typeof ArticleFinding>;

/** One answer of "hardware like mine": a group's pair, its verdict sentence, agreement and advice. */
export const LikeMineAnswer = z.object({
  group: z.string(),
  name: z.string(),
  ...variantPair,
  verdict: z.string().nullable(),
  agreement: Agreement,
  advice: z.string(),
});

/** "Hardware like mine" on GET /v1/answers: the machine ranked against, which classes are like it, and their answer. */
export const LikeMine = z.object({
  /** The machine as ranked: a stored one's fingerprint (`like`) or null, its cores, memory, storage, tier and figures. */
  machine: z.object({ fingerprint: z.string().nullable(), ...RankedMachine.shape }),
  /** Whether any class of the groups is like the machine. */
  like: z.boolean(),
  /** Every class of the groups, nearest first (the order of `groups`), with its similarity and number of groups. */
  classes: z.array(
    z.object({
      class: z.string(),
      source: z.enum(['measured', 'published']),
      groups: z.number().int(),
      ...GroupSimilarity.shape,
    }),
  ),
  /** The nearest class that is like the machine; null when none is. */
  nearest: z.string().nullable(),
  /**
   * The machine's answers: with `like=<fingerprint>` and runs of that machine here, its own runs'
   * (`mine`); otherwise the nearest like class's. Per group and pair, the verdict sentence, the
   * agreement and the advice.
   */
  answers: z.array(LikeMineAnswer),
  /**
   * With `like=<fingerprint>`: the answers of that machine's own runs alone (no other machine's
   * runs, so no other runner's, take part), and how many runs they rest on; absent for a machine
   * given by its figures.
   */
  mine: z.object({ runs: z.number().int(), answers: z.array(LikeMineAnswer) }).optional(),
  /** In words: which classes are like the machine, or that none is, with the nearest one's distance. */
  sentence: z.string(),
});
export type LikeMine = z.infer<typeof LikeMine>;

/** One engine major's row of a pair across server versions, read from that major's group answer. */
export const VersionRow = z.object({
  engine: Engine,
  major: z.number().int(),
  /** The server builds behind the row ("PostgreSQL 17.10 …"), as the group lists them. */
  serverVersions: z.array(z.string()),
  /** The key of the group the row is read from (GroupAnswer.group.key), and its number of runs. */
  group: z.string(),
  runCount: z.number().int(),
  /** The runners behind the row's group (ComparisonGroup.runners). */
  runners: z.number().int().min(0),
  baseline: z.object({ n: z.number().int(), mean: z.number() }).nullable(),
  candidate: z.object({ n: z.number().int(), mean: z.number() }).nullable(),
  /** mean(candidate) − mean(baseline), in the metric's unit. */
  difference: z.number().nullable(),
  /** The candidate's improvement over the baseline in the metric's direction (0.375 = 37.5% better), with its 95% interval (log scale for positive values). */
  improvement: z.number().nullable(),
  ci95: Bounds.nullable(),
  /** The p of the test the interval inverts (two units or more per side), and its Bonferroni-adjusted value over the declared decisions, which decided the verdict. */
  p: z.number().nullable(),
  pAdjusted: z.number().nullable(),
  verdict: PairComparison.shape.verdict,
  agreement: Agreement,
});
export type VersionRow = z.infer<typeof VersionRow>;

/** One declared pair on one hardware class under equal conditions, side by side per engine major. */
export const VersionComparison = z.object({
  hardwareClass: z.string(),
  engine: Engine,
  scenarioVersion: z.string(),
  source: z.enum(['measured', 'published']),
  params: ParamValues,
  point: SweepPoint.nullable(),
  /** The shared conditions in words ("2 cores / 8 GB / SSD · rows = 2,000"), without the server version. */
  conditions: z.string(),
  ...variantPair,
  direction: UsedDirection,
  unit: z.string(),
  /** Oldest major first. */
  rows: z.array(VersionRow),
  /**
   * Per two majors with a test on both: does the pair's answer differ between them (interaction)?
   * `log-ratio`: `estimate` is the pair's ratio of means on `a` ÷ that on `b` (1 = the same),
   * from a Welch-type t test on the difference of the log ratios with delta-method variances;
   * `difference` (some value ≤ 0): the difference of the differences of means, in the unit.
   * `adjusted` is Holm's over every interaction test of the same class and conditions.
   */
  interactions: z.array(
    z.object({
      a: z.number().int(),
      b: z.number().int(),
      method: z.enum(['log-ratio', 'difference']),
      estimate: z.number(),
      ci95: Bounds,
      df: z.number(),
      p: z.number(),
      adjusted: z.object({ method: z.literal('holm'), p: z.number(), family: z.number().int() }),
      /** Adjusted p < 0.05: the version changes the answer between `a` and `b`. */
      differs: z.boolean(),
    }),
  ),
  /** Whether the verdict words are the same on every major (labels, not a test). */
  sameVerdict: z.boolean(),
  /** Whether an interaction test shows that the version changes the answer (any `differs`). */
  versionChangesAnswer: z.boolean(),
  /** In words: "the version changes the answer" only when an interaction test says so. */
  summary: z.string(),
});
export type VersionComparison = z.infer<typeof VersionComparison>;

/** The server version as an answer axis. */
export const VersionAnswers = z.object({
  /** Per hardware class and engine, the majors with runs. */
  measured: z.array(z.object({ hardwareClass: z.string(), engine: Engine, majors: z.array(z.number().int()) })),
  /** Every pair measured on two majors or more of one class under equal conditions. */
  comparisons: z.array(VersionComparison),
  /** Which versions are measured, in one sentence. */
  sentence: z.string(),
});
export type VersionAnswers = z.infer<typeof VersionAnswers>;

/**
 * One hardware class's row of a pair across classes, read from that class's group answer: the
 * figures of a `VersionRow` (its server is the comparison's), the class, and whether it is emulated.
 */
export const ClassRow = VersionRow.omit({ engine: true, major: true }).extend({
  hardwareClass: z.string(),
  /** The class is an emulated run's (`--like-article`: the server inside a resource envelope). */
  emulated: z.boolean(),
});
export type ClassRow = z.infer<typeof ClassRow>;

/** An interaction test between two hardware classes (`a`, `b`), as `VersionComparison.interactions`. */
export const ClassInteraction = VersionComparison.shape.interactions.element.extend({ a: z.string(), b: z.string() });
export type ClassInteraction = z.infer<typeof ClassInteraction>;

/** One declared pair on one engine major under equal conditions, side by side per hardware class. */
export const ClassComparison = VersionComparison.omit({
  hardwareClass: true,
  rows: true,
  interactions: true,
  versionChangesAnswer: true,
}).extend({
  /** The engine's first number (`engine.major` of the groups) and its release line in words ("MariaDB 10.11"). */
  major: z.number().int(),
  server: z.string(),
  /** Measured classes first, then emulated ones; each by cores, memory and name. */
  rows: z.array(ClassRow),
  /**
   * Per two classes with a test on both: does the pair's answer differ between them (interaction)?
   * As `VersionComparison.interactions`, with `a` and `b` hardware classes (`a` the earlier row):
   * `log-ratio` estimate = the pair's ratio of means on `a` ÷ that on `b`. `adjusted` is Holm's
   * over every class interaction of the same engine major and conditions (every pair and sweep point).
   */
  interactions: z.array(ClassInteraction),
  /** Whether an interaction test shows that the hardware changes the answer (any `differs`). */
  hardwareChangesAnswer: z.boolean(),
  /**
   * The classes grouped by the verdict they give (the words of the summary: "1-2 better than 1-1",
   * "no measurable difference", "not enough repetitions to be sure"), the most classes first; each
   * group's classes in the rows' order.
   */
  verdictGroups: z.array(
    z.object({ kind: VerdictKind, conclusive: z.boolean(), words: z.string(), classes: z.array(z.string()) }),
  ),
  /**
   * Where the hardware changes the answer after adjustment, and only there: per two verdict groups
   * (`a` ≤ `b`, indexes into `verdictGroups`; `a` = `b` within one group) with an interaction test
   * that `differs`, how many class pairs between them were tested, how many differ, and the one
   * with the smallest adjusted p. The most differing first.
   */
  changes: z.array(
    z.object({
      a: z.number().int().nonnegative(),
      b: z.number().int().nonnegative(),
      tests: z.number().int().positive(),
      differing: z.number().int().positive(),
      strongest: ClassInteraction,
    }),
  ),
});
export type ClassComparison = z.infer<typeof ClassComparison>;

/** The hardware class as an answer axis. */
export const ClassAnswers = z.object({
  /** Per engine major, the hardware classes with runs. */
  measured: z.array(
    z.object({ engine: Engine, major: z.number().int(), server: z.string(), classes: z.array(z.string()) }),
  ),
  /** Every pair measured on two classes or more of one engine major under equal conditions. */
  comparisons: z.array(ClassComparison),
  /** Which classes are measured, in one sentence. */
  sentence: z.string(),
});
export type ClassAnswers = z.infer<typeof ClassAnswers>;

export const ScenarioAnswers = z.object({
  scenario: z.object({
    key: z.string(),
    title: z.string(),
    version: z.string().nullable(),
    article: z.object({ title: z.string(), publisher: z.string(), url: z.string().nullable() }).nullable(),
  }),
  metric: z.object({
    key: z.string(),
    label: z.string(),
    unit: z.string(),
    direction: UsedDirection,
    directionFrom: DirectionSource,
  }),
  metrics: z.array(z.object({ key: z.string(), label: z.string(), unit: z.string(), direction: UsedDirection })),
  source: ComparisonSource,
  /** The comparability rule, in words (the same for every scenario). */
  rule: z.string(),
  /** Why there are no groups, when there are none. */
  empty: z.string().nullable(),
  groups: z.array(GroupAnswer),
  /**
   * The runs left out of the verdict (flagged noisy under `noisy=exclude`), answered the same way
   * and grouped the same way, each group with its `leftOut` label: what was measured and why it
   * does not count. Empty when nothing was left out.
   */
  leftOut: z.array(GroupAnswer),
  /** What the article found (its own figures, ratios and stated directions): shown as such where nothing is measured. */
  articleFindings: z.array(ArticleFinding),
  /** The same pairs side by side per engine major version, for every class measured on two majors or more. */
  versions: VersionAnswers,
  /** The same pairs side by side per hardware class, for every engine major measured on two classes or more. */
  classes: ClassAnswers,
  /** With `at`: the declared pairs fitted across the measured scales and answered at that scale. */
  atScale: ScaleAnswers.optional(),
  /**
   * For a scenario with a scale parameter (measured answers): each variant's fit across the
   * measured scales, per class, major and the other parameters — what `atScale` is computed from,
   * for any value (the site answers at a reader's scale from it).
   */
  scaleCurves: ScaleCurves.optional(),
  /** With a machine given (`cores`, `memoryGb`, … or `like`): the classes like it and their answer. */
  likeMine: LikeMine.optional(),
  /** With `from` and `to`: what upgrading between those releases changes, and the changes between adjacent releases. */
  upgrade: UpgradeAnswer.optional(),
  /** The pair's ratio on every measured PostgreSQL release and the changes between them, where two or more are measured. */
  releaseLine: ReleaseLine.optional(),
  /** The runs every group drew on together, how many were flagged noisy, and how many were left out as noisy (`noisy=exclude`). */
  noise: NoiseCounts,
});
export type ScenarioAnswers = z.infer<typeof ScenarioAnswers>;
