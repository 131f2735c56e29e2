/**
 * One pair of variants compared in the metric's direction: difference, improvement with its
 * interval (log scale for positive values) at 1 − 0.05/family, the p of the test that interval
 * inverts (Bonferroni-adjusted over the family), Welch's and Mann–Whitney's p on the raw values as
 * descriptions, and the verdict sentence, worded by what the metric measures. One rule for runs
 * with and without blocks: the interval decides. A descriptive metric gets its figures (the
 * relative change, candidate against baseline) and no verdict.
 */
import type { Bounds, PairComparison, UsedDirection } from '@tunelab/contracts';
import { formatPercent, mannWhitneyU, mean, pairedVerdict, verdict, welchTTest, type Quantity } from '@tunelab/stats';

/** How the metric is worded, and the decisions that share alpha. */
export type CompareOptions = {
  quantity?: Quantity;
  label?: string;
  unit?: string;
  /**
   * Runs without blocks: the decisions that share alpha (the scenario's declared pairs × points;
   * Bonferroni) and the margin of "no measurable difference". Default: 1 and ±10 %.
   */
  decision?: { family: number; margin: number };
  /**
   * The pair's values block by block (every run of the group measured in blocks): the paired,
   * sequential analysis decides, over `family` decisions against `margin` (stats' pairedVerdict).
   */
  paired?: { baseline: number[]; candidate: number[]; runs: number; family: number; margin: number };
};

const finite = (x: number) => (Number.isFinite(x) ? x : null);
const bounds = (i: { low: number; high: number }): Bounds => ({ low: finite(i.low), high: finite(i.high) });

export function comparePair(
  baseline: string,
  candidate: string,
  a: readonly number[] | undefined,
  b: readonly number[] | undefined,
  direction: UsedDirection,
  options: CompareOptions = {},
): PairComparison {
  const missing = [a ? null : baseline, b ? null : candidate].filter((x): x is string => x !== null);
  if (!a || !b) {
    return {
      baseline,
      candidate,
      direction,
      difference: null,
      differenceCi95: null,
      improvement: null,
      ci95: null,
      welch: null,
      adjusted: null,
      mannWhitney: null,
      verdict: {
        kind: 'insufficient-data',
        sentence: `No runs of ${missing.join(' and ')} in this group, so ${candidate} cannot be compared with ${baseline}`,
        significant: false,
        conclusive: false,
      },
    };
  }
  const paired = options.paired;
  if (paired && direction !== 'descriptive' && paired.baseline.length >= 2)
    return comparePaired(baseline, candidate, a, b, direction, options, paired);
  // A descriptive metric: the relative change (c̄ − b̄)/b̄, as "higher is better" computes it.
  const v = verdict({
    baseline: { label: baseline, values: a },
    candidate: { label: candidate, values: b },
    direction: direction === 'descriptive' ? 'higher-is-better' : direction,
    ...(options.quantity ? { quantity: options.quantity } : {}),
    ...(options.label ? { label: options.label } : {}),
    ...(options.unit ? { unit: options.unit } : {}),
    ...(options.decision && direction !== 'descriptive' ? options.decision : {}),
  });
  const tested = direction !== 'descriptive' && v.p !== null;
  const enough = a.length >= 2 && b.length >= 2;
  const welch = enough ? welchTTest(b, a) : null;
  const mw = mannWhitneyU(b, a, { method: 'auto' });
  const difference = finite(mean(b) - mean(a));
  const change = mean(a) !== 0 ? (mean(b) - mean(a)) / mean(a) : null;
  return {
    baseline,
    candidate,
    direction,
    // Null when the difference of two means near ±1.8e308 exceeds the double range.
    difference,
    differenceCi95: tested && v.absolute ? bounds(v.absolute.ci) : null,
    improvement: direction === 'descriptive' ? (change !== null ? finite(change) : null) : v.relative,
    ci95: v.ci ? bounds(v.ci) : null,
    welch: welch ? { t: finite(welch.t), df: welch.df, p: welch.p } : null,
    adjusted: tested && v.p !== null ? { method: 'bonferroni', p: v.pAdjusted ?? v.p, family: v.family } : null,
    mannWhitney: { u: mw.u, p: mw.p, method: mw.method },
    verdict:
      direction === 'descriptive'
        ? {
            kind: 'descriptive',
            sentence: `${candidate} is ${change === null ? 'not comparable in relative terms with' : change === 0 ? 'equal to' : `${formatPercent(Math.abs(change))} ${change > 0 ? 'larger' : 'smaller'} than`} ${baseline} (a description of the conditions, not a goal: no verdict)`,
            significant: false,
            conclusive: false,
          }
        : {
            kind: v.kind,
            sentence: v.sentence,
            significant: v.kind === 'faster' || v.kind === 'slower',
            conclusive: v.conclusive,
          },
  };
}

/** A pair measured in blocks: the paired verdict decides; Welch and Mann–Whitney stay as descriptions of the values. */
function comparePaired(
  baseline: string,
  candidate: string,
  a: readonly number[],
  b: readonly number[],
  direction: 'lower-is-better' | 'higher-is-better',
  options: CompareOptions,
  paired: NonNullable<CompareOptions['paired']>,
): PairComparison {
  const v = pairedVerdict({
    baseline: { label: baseline, values: paired.baseline },
    candidate: { label: candidate, values: paired.candidate },
    direction,
    family: paired.family,
    margin: paired.margin,
    runs: paired.runs,
    ...(options.quantity ? { quantity: options.quantity } : {}),
    ...(options.label ? { label: options.label } : {}),
  });
  const welch = a.length >= 2 && b.length >= 2 ? welchTTest(b, a) : null;
  const mw = mannWhitneyU(b, a, { method: 'auto' });
  return {
    baseline,
    candidate,
    direction,
    difference: finite(mean(b) - mean(a)),
    differenceCi95: null,
    improvement: finite(v.relative),
    ci95: bounds(v.ci),
    welch: welch ? { t: finite(welch.t), df: welch.df, p: welch.p } : null,
    adjusted: { method: 'bonferroni', p: v.pAdjusted, family: v.family },
    paired: {
      method: 'confidence-sequence',
      decision: v.decision,
      blocks: v.blocks,
      runs: paired.runs,
      family: v.family,
      margin: v.margin,
      ratio: v.ratio.estimate,
      ratioCi: bounds({ low: v.ratio.low, high: v.ratio.high }),
      sdLogRatio: v.sdLogRatio,
      detectable: finite(v.detectable),
      eValue: Math.min(v.eValue, Number.MAX_VALUE),
      p: v.p,
    },
    mannWhitney: { u: mw.u, p: mw.p, method: mw.method },
    verdict: {
      kind: v.kind,
      sentence: v.sentence,
      significant: v.decision === 'differs',
      conclusive: v.conclusive,
    },
  };
}
