/**
 * The sequential design, every scenario's default (scenario.yaml `decision`): blocks are added one
 * at a time until every declared pair at every sweep point is decided — as @tunelab/answers decides
 * it (decideBlocks: the always-valid confidence sequence of the within-block log ratios against
 * the scenario's margin), so the run stops exactly when the answer it prints is decided — or until
 * another block would pass the time budget, or at the scenario's most blocks. Looking after every
 * block does not inflate the error rates: the interval is valid at any stopping time.
 */
import { decideBlocks, primaryMetric, type PairDecision } from '@tunelab/answers';
import type { DatabaseEnvironment, Sample, ScenarioDocument, SweepPoint } from '@tunelab/contracts';
import { EQUIVALENCE_MARGIN, formatPercent, MIN_DECISION_BLOCKS } from '@tunelab/stats';
import type { Elapsed, StopDecision } from './stopping.ts';

/** No pair is decided on fewer blocks (stats' MIN_DECISION_BLOCKS): the first look. */
export const MIN_BLOCKS = MIN_DECISION_BLOCKS;
/** Without a scenario `decision` block: the design `--budget` asks for. */
export const DEFAULT_MAX_BLOCKS = 60;

export type Sequential = {
  /** The metric decided: the scenario's primary metric. */
  metric: string;
  margin: number;
  budgetSeconds: number;
  maxBlocks: number;
  /** `scenario`: scenario.yaml `decision`; `option`: `--budget`. */
  source: 'scenario' | 'option';
};

/** The design of a run that names no repetition count: the scenario's `decision`, with `--budget` over its budget. */
export function sequentialOf(doc: ScenarioDocument, budgetSeconds: number | undefined): Sequential | undefined {
  const declared = doc.decision;
  if (!declared && budgetSeconds === undefined) return undefined;
  return {
    metric: primaryMetric(doc),
    margin: declared?.margin ?? EQUIVALENCE_MARGIN,
    budgetSeconds: budgetSeconds ?? declared!.budget_seconds,
    maxBlocks: declared?.max_blocks ?? DEFAULT_MAX_BLOCKS,
    source: budgetSeconds === undefined ? 'scenario' : 'option',
  };
}

const pointText = (p: SweepPoint | null) => (p ? `${p.param} = ${p.value}: ` : '');
const pairText = (p: PairDecision) =>
  `${pointText(p.point)}${p.candidate} vs ${p.baseline} ${p.decision ?? 'no blocks'}`;

/**
 * After `blocks` full blocks at `points` (a run in `sweep.order: points` judges one point at a
 * time): stop, and why — or go on, and what is still undecided. `budgetSeconds` is this group's
 * share of the budget.
 */
export function decideSequential(input: {
  doc: ScenarioDocument;
  rule: Sequential;
  probed: { database: Pick<DatabaseEnvironment, 'engine' | 'major' | 'minor'> };
  samples: readonly Sample[];
  /** The run's planned sweep points (the family) and those judged now. */
  plannedPoints: number;
  points: readonly (SweepPoint | undefined)[];
  blocks: number;
  elapsed: Elapsed;
  budgetSeconds: number;
}): { stop: StopDecision } | { stop?: undefined; undecided: string } {
  const { rule, blocks, elapsed } = input;
  const judged = new Set(input.points.map((p) => (p ? p.value : null)));
  const decision = decideBlocks({
    doc: input.doc,
    samples: input.samples,
    metric: rule.metric,
    engine: input.probed.database.engine,
    major: input.probed.database.major,
    minor: input.probed.database.minor,
    points: input.plannedPoints,
  });
  const pairs = decision.pairs.filter((p) => judged.has(p.point ? p.point.value : null));
  const open = pairs.filter((p) => !p.conclusive);
  const summary = pairs.map(pairText).join(', ');
  const stop = (stopped: StopDecision['stopped'], reason: string) => ({
    stop: { stopped, repetitions: blocks, reason, cvs: [] },
  });
  if (pairs.length > 0 && open.length === 0)
    return stop(
      'decided',
      `decided after ${blocks} blocks (${rule.metric}, margin ±${formatPercent(rule.margin)}): ${summary}`,
    );
  const still = (open.length > 0 ? open : pairs).map(pairText).join(', ') || 'no pair has blocks to judge';
  if (blocks >= rule.maxBlocks)
    return stop('max-repetitions', `most blocks reached (${rule.maxBlocks}), still undecided: ${still}`);
  if (blocks >= MIN_BLOCKS && elapsed.seconds + elapsed.roundSeconds > input.budgetSeconds)
    return stop(
      'time-budget',
      `time budget reached (${input.budgetSeconds} s): ${elapsed.seconds.toFixed(0)} s measured, and another block (~${elapsed.roundSeconds.toFixed(0)} s) would pass it; still undecided: ${still}`,
    );
  return { undecided: blocks < MIN_BLOCKS ? `${blocks} of at least ${MIN_BLOCKS} blocks` : `undecided: ${still}` };
}
