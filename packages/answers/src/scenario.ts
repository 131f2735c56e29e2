/** A scenario's answers: every group of runs under equal conditions, answered pair by pair. */
import type {
  Agreement,
  ArticleFinding,
  CrossingAnswer,
  LeftOut,
  FitAnswer,
  GroupSpread,
  NoiseCounts,
  RatioAnswer,
} from '@tunelab/contracts';
import {
  answerPair,
  articleMachine,
  COMPARABILITY_RULE,
  groupName,
  type AnswerGroup,
  type PairAnswerRecord,
  type ScenarioInput,
} from './answer.ts';
import { conditionsSentence } from './conditions.ts';
import { articleFindings } from './article-findings.ts';
import { labelLeftOut } from './left-out.ts';
import { metricList, type ResolvedDirection } from './direction.ts';
import { groupSpread } from './spread.ts';
import { declaredCrossings, declaredFits, declaredRatios, type SeriesPoint, type UnitSample } from './figures.ts';

export type AnswerScenarioInput<G extends AnswerGroup> = {
  scenario: ScenarioInput;
  /** published.json's numeric maps (`publishedFigures` of @tunelab/scenarios), for declared ratios. */
  figures: Record<string, Record<string, number>>;
  metric: string;
  direction: ResolvedDirection;
  source: 'measured' | 'published';
  /** The groups to answer (of `source`), and the article's groups of the same metric. */
  groups: readonly G[];
  /** The groups of the runs the left-out policy left out (`groupByPolicy`): answered into `leftOut`, labelled. */
  leftOutGroups?: readonly G[];
  articleGroups: readonly G[];
  /**
   * Every sample / series point of a group's runs (ratios and fits pool every unit of the runs;
   * the declared conditions read theirs: `conditionMetrics`).
   */
  samplesOf?: (g: G) => readonly UnitSample[];
  seriesOf?: (g: G) => readonly SeriesPoint[];
  /** The runs behind `groups` and how many were flagged noisy or left out as noisy (groupSamples' `noise`). */
  noise: NoiseCounts;
};

export type GroupAnswerOf<G extends AnswerGroup> = {
  group: Omit<G, 'comparisons'>;
  name: string;
  pairs: PairAnswerRecord[];
  ratios: RatioAnswer[];
  fits: FitAnswer[];
  crossings: CrossingAnswer[];
  spread: GroupSpread | null;
};

export type ScenarioAnswersOf<G extends AnswerGroup> = {
  scenario: {
    key: string;
    title: string;
    version: string | null;
    article: { title: string; publisher: string; url: string | null } | null;
  };
  metric: {
    key: string;
    label: string;
    unit: string;
    direction: ResolvedDirection['direction'];
    directionFrom: ResolvedDirection['from'];
  };
  metrics: ReturnType<typeof metricList>;
  source: 'measured' | 'published';
  rule: string;
  empty: string | null;
  groups: GroupAnswerOf<G>[];
  leftOut: (GroupAnswerOf<G> & { leftOut: LeftOut })[];
  articleFindings: ArticleFinding[];
  noise: NoiseCounts;
};

/** Why a metric has no groups: not declared, or no runs of it (for this filter). */
function emptyReason(input: {
  scenario: ScenarioInput;
  metric: string;
  source: string;
  groups: readonly unknown[];
  noise: NoiseCounts;
}): string | null {
  if (input.groups.length > 0) return null;
  const doc = input.scenario.doc;
  if (!doc.metrics.some((m) => m.key === input.metric))
    return `${doc.key} declares no metric "${input.metric}"; it declares: ${doc.metrics.map((m) => m.key).join(', ')}`;
  if (input.noise.excluded > 0)
    return `every ${input.source} run of ${doc.key} that matches these filters (${input.noise.excluded}) was flagged noisy and left out (noisy=exclude); \`leftOut\` answers them, labelled`;
  return `no ${input.source} runs of ${doc.key} with samples of ${input.metric} match these filters`;
}

export function answerScenario<G extends AnswerGroup>(input: AnswerScenarioInput<G>): ScenarioAnswersOf<G> {
  const { scenario, metric } = input;
  const doc = scenario.doc;
  const def = doc.metrics.find((m) => m.key === metric);
  const machines = input.articleGroups.map(articleMachine);
  const answerGroups = (list: readonly G[]) =>
    [...list]
      .sort(
        (a, b) =>
          b.runCount - a.runCount ||
          a.hardware.class.localeCompare(b.hardware.class) ||
          (a.point?.value ?? 0) - (b.point?.value ?? 0),
      )
      .map((g) => {
        const samples = input.samplesOf?.(g) ?? [];
        const ratios = declaredRatios(doc, input.figures, samples);
        const declared =
          doc.comparisons.length > 0
            ? doc.comparisons
            : g.comparisons.map((c) => ({ baseline: c.baseline, candidate: c.candidate }));
        const { comparisons: _omit, ...group } = g;
        return {
          group,
          name: groupName(scenario, g),
          pairs: declared.map((p) => answerPair(scenario, g, machines, p.baseline, p.candidate, ratios, samples)),
          ratios,
          fits: declaredFits(doc, samples),
          crossings: declaredCrossings(doc, input.seriesOf?.(g) ?? []),
          spread: groupSpread(g.comparisons),
        };
      });
  const groups = answerGroups(input.groups);
  const src = scenario.published?.source;
  return {
    scenario: {
      key: doc.key,
      title: doc.title,
      version: input.groups[0]?.scenario.version ?? null,
      article: src ? { title: src.title, publisher: src.publisher, url: src.url ?? null } : null,
    },
    metric: {
      key: metric,
      label: def?.label ?? metric,
      unit: def?.unit ?? input.groups[0]?.unit ?? '',
      direction: input.direction.direction,
      directionFrom: input.direction.from,
    },
    metrics: metricList(doc),
    source: input.source,
    rule: `${COMPARABILITY_RULE} ${conditionsSentence(scenario.published)}`,
    empty: emptyReason(input),
    groups,
    leftOut: labelLeftOut(answerGroups(input.leftOutGroups ?? []), 'noisy'),
    articleFindings: articleFindings(input),
    noise: input.noise,
  };
}

/** How many pairs of the answers have each agreement (the home page's summary). */
export function agreementCounts(pairs: readonly { agreement: Agreement }[]): Partial<Record<Agreement, number>> {
  const out: Partial<Record<Agreement, number>> = {};
  for (const p of pairs) out[p.agreement] = (out[p.agreement] ?? 0) + 1;
  return out;
}
