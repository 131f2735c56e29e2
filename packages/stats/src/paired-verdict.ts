/**
 * The verdict of a pair measured in blocks: one model (sequential.ts' confidence sequence of the
 * mean within-block log ratio) gives the interval, the test and the words, so an interval that
 * excludes no change is always called a difference and one within the margin always "equivalent".
 *
 * - The family: `family` decisions share `alpha` (Bonferroni: each interval at level
 *   1 − alpha/family), so the intervals hold together at 1 − alpha whatever is looked at, and the
 *   family is what the scenario declares (pairs × points), never what a query asks for.
 * - `differs` (`faster` / `slower` in the metric's direction): the interval excludes no change.
 * - `equivalent`: the whole interval of the change lies within ±margin.
 * - `unstable`: neither, and the pair's block-to-block spread (sd of the log ratios) exceeds the
 *   margin: more blocks of this noise decide slowly, and the sentence says why.
 * - `undecided`: neither; the sentence names the smallest difference this evidence could have
 *   detected (the interval's half-width as a change).
 */
import { confidenceSequence, decideInterval, logRatios } from './sequential.ts';
import {
  EQUIVALENCE_MARGIN,
  formatInterval,
  formatLevel,
  formatP,
  formatPercent,
  phrase,
  type Direction,
  type Quantity,
  type VerdictKind,
} from './verdict.ts';
import type { Interval } from './descriptive.ts';
import { assertProbability } from './validate.ts';

export type PairedDecision = 'differs' | 'equivalent' | 'undecided' | 'unstable';

/**
 * Fewest blocks a decision is made on. The confidence sequence is valid from 2 blocks for normal
 * log ratios, but a loaded machine's noise is not normal (a core busy or not: two states), and on
 * 3 blocks three ratios alike by chance decided an A/A "differs" in 1 of 2 calibration runs at
 * load 5-6 (npm run bench:aa); from 6 on, the spread is judged on enough blocks to see it.
 */
export const MIN_DECISION_BLOCKS = 6;

export type PairedVerdictInput = {
  /** Labels and values block by block: baseline.values[i] and candidate.values[i] ran in one block. */
  baseline: { label: string; values: readonly number[] };
  candidate: { label: string; values: readonly number[] };
  direction: Direction;
  quantity?: Quantity;
  label?: string;
  /** Family-wise error rate; default 0.05. */
  alpha?: number;
  /** Decisions sharing alpha (declared pairs × sweep points); default 1. */
  family?: number;
  /** Relative change that counts as none; default EQUIVALENCE_MARGIN (±10 %). */
  margin?: number;
  /** How many runs the blocks come from, for the sentence; default 1. */
  runs?: number;
  /** Fewest blocks a decision is made on; default MIN_DECISION_BLOCKS. */
  minBlocks?: number;
};

export type PairedVerdict = {
  kind: VerdictKind;
  decision: PairedDecision;
  sentence: string;
  /** Improvement in the metric's direction (1 − ratio when lower is better, ratio − 1 otherwise). */
  relative: number;
  /** Its interval at the family-wise level (±Infinity: unbounded). */
  ci: Interval;
  /** The geometric-mean ratio candidate / baseline and its interval. */
  ratio: { estimate: number; low: number; high: number };
  /** Always-valid p against no change, raw and times the family (capped at 1); the e-value. */
  p: number;
  pAdjusted: number;
  eValue: number;
  blocks: number;
  family: number;
  /** Family-wise level of the interval (1 − alpha). */
  level: number;
  margin: number;
  /** Block-to-block sd of the log ratios. */
  sdLogRatio: number;
  /** The smallest relative change this evidence could tell from none (Infinity: any). */
  detectable: number;
  /** A margin-sized difference decided (the whole interval beyond ±margin): a run may stop on it. */
  beyondMargin: boolean;
  conclusive: boolean;
};

export function pairedVerdict(input: PairedVerdictInput): PairedVerdict {
  const { baseline, candidate, direction } = input;
  const alpha = input.alpha ?? 0.05;
  const family = input.family ?? 1;
  const margin = input.margin ?? EQUIVALENCE_MARGIN;
  const runs = input.runs ?? 1;
  const quantity = input.quantity ?? (direction === 'higher-is-better' ? 'rate' : 'duration');
  assertProbability(alpha, 'alpha');
  if (!Number.isInteger(family) || family < 1)
    throw new RangeError(`family must be a positive integer (got ${family})`);
  if (!(margin > 0 && margin < 1)) throw new RangeError(`margin must be in (0, 1) (got ${margin})`);
  const d = logRatios(baseline.values, candidate.values);
  const cs = confidenceSequence(d, alpha / family);
  const enough = cs.n >= (input.minBlocks ?? MIN_DECISION_BLOCKS);
  const judged = decideInterval(cs, margin);
  const decided = enough ? judged.decision : 'undecided';
  const beyondMargin = enough && judged.beyondMargin;
  const sdChange = Math.expm1(cs.sd);
  const decision: PairedDecision =
    decided === 'undecided' && enough && cs.sd > Math.log1p(margin) ? 'unstable' : decided;
  const ratio = { estimate: Math.exp(cs.mean), low: Math.exp(cs.low), high: Math.exp(cs.high) };
  const sign = direction === 'lower-is-better' ? -1 : 1;
  const relative = sign * (ratio.estimate - 1);
  const ci = sign === 1 ? { low: ratio.low - 1, high: ratio.high - 1 } : { low: 1 - ratio.high, high: 1 - ratio.low };
  const kind: VerdictKind = decision === 'differs' ? (relative > 0 ? 'faster' : 'slower') : 'no-significant-difference';
  const pAdjusted = Math.min(1, cs.p * family);
  const detectable = Math.expm1(cs.halfWidth);

  // Words follow the change of the value (down or up), as verdict() words them.
  const c = candidate.label;
  const b = baseline.label;
  const down = ratio.estimate < 1;
  const shownCi = down ? { low: 1 - ratio.high, high: 1 - ratio.low } : { low: ratio.low - 1, high: ratio.high - 1 };
  const change = phrase(quantity, down, c, b, formatPercent(Math.abs(ratio.estimate - 1)), input.label);
  const level = 1 - alpha;
  // Printed as each interval's own level, 1 − alpha/family, as verdict() and the reports print it
  // ("97.5% CI … over 2 decisions"): the family-wise 1 − alpha is what `level` says.
  const shown = formatLevel(1 - alpha / family);
  const blocksText = `${cs.n} paired blocks${runs > 1 ? ` of ${runs} runs` : ''}`;
  const pText =
    family > 1 ? `${formatP(pAdjusted, alpha)} over ${family} decisions (Bonferroni)` : formatP(cs.p, alpha);
  const details = `${shown}% CI ${formatInterval(shownCi)}, always valid, ${pText}, ${blocksText}`;
  const could = Number.isFinite(detectable)
    ? `could only have detected differences above ${formatPercent(detectable)}`
    : 'are too few to detect any difference';
  let sentence: string;
  if (decision === 'differs') sentence = `${change.full} (${details})`;
  else if (decision === 'equivalent')
    sentence = `${c} and ${b} are equivalent within ±${formatPercent(margin)}: ${change.short} (${details})`;
  else if (decision === 'unstable')
    sentence = `Unstable: ${c} against ${b} varies by ${formatPercent(sdChange)} from block to block, more than the ±${formatPercent(margin)} margin, so ${blocksText} ${could}: ${change.short} (${details})`;
  else if (!enough)
    sentence = `Undecided whether ${c} differs from ${b} after only ${blocksText}: a decision waits for ${input.minBlocks ?? MIN_DECISION_BLOCKS}, enough to judge their spread; so far ${change.short} (${details})`;
  else
    sentence = `Undecided whether ${c} differs from ${b}: ${change.short}, but the ${shown}% CI, ${formatInterval(shownCi)}, holds both no change and a change beyond ±${formatPercent(margin)}; ${blocksText} ${could} (always valid, ${pText})`;
  return {
    kind,
    decision,
    sentence,
    relative,
    ci,
    ratio,
    p: cs.p,
    pAdjusted,
    eValue: cs.eValue,
    blocks: cs.n,
    family,
    level,
    margin,
    sdLogRatio: cs.sd,
    detectable,
    beyondMargin,
    conclusive: decision === 'differs' || decision === 'equivalent',
  };
}
