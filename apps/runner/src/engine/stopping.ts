import type { ScenarioDocument } from '@tunelab/contracts';
import { coefficientOfVariation } from '@tunelab/stats';

/**
 * The `--until-stable` stopping rule (the Phoronix Test Suite's): keep adding full interleaved
 * rounds while the coefficient of variation (sd / mean) of a timed metric of any variant that
 * takes part in a comparison pair is above the threshold, up to a maximum repetition count.
 * Without comparison pairs every variant counts.
 */

export const DEFAULT_MAX_REPETITIONS = 10;
export const DEFAULT_CV_THRESHOLD = 0.03;
/** The rule needs a spread to judge: it starts from at least this many repetitions. */
export const MIN_STARTING_REPETITIONS = 3;

/**
 * As given: `maxRepetitions` defaults to DEFAULT_MAX_REPETITIONS, or the starting count if higher.
 * `budgetSeconds`: no round is added that would take the measuring past this many seconds (its
 * length judged by the last round's). `source`: `scenario` when the rule is the scenario's default
 * (scenario.yaml `repetitions.until_stable`), `option` when the user asked for it.
 */
export type UntilStableOptions = {
  maxRepetitions?: number;
  cvThreshold?: number;
  budgetSeconds?: number;
  source?: 'scenario' | 'option';
};
export type UntilStable = {
  maxRepetitions: number;
  cvThreshold: number;
  budgetSeconds?: number;
  source?: 'scenario' | 'option';
};

/** The measuring so far and the last full round, in seconds: what a time budget is held against. */
export type Elapsed = { seconds: number; roundSeconds: number };

export type VariantCv = { variant: string; metric: string; n: number; cv: number };

export type Stability = {
  stable: boolean;
  /** One entry per compared variant × timed metric that has at least two values. */
  cvs: VariantCv[];
  /** Entries above the threshold, worst first. */
  unstable: VariantCv[];
};

export type StopDecision = {
  /** `decided`: the sequential design (sequential.ts) decided every declared pair. */
  stopped: 'stable' | 'decided' | 'max-repetitions' | 'time-budget';
  repetitions: number;
  reason: string;
  cvs: VariantCv[];
};

/** "3%", "0.5%", "0.0001%": the threshold as people write it. */
export const formatCvPercent = (fraction: number) => `${Number((fraction * 100).toPrecision(3))}%`;
export const formatCv = (cv: number) => (Number.isFinite(cv) ? `${(cv * 100).toFixed(1)}%` : '∞');

/** Variants whose spread decides: those in a comparison pair, else all of them (scenario order). */
export function comparedVariants(doc: Pick<ScenarioDocument, 'variants' | 'comparisons'>): string[] {
  if (!doc.comparisons.length) return doc.variants.map((v) => v.key);
  const inPairs = new Set(doc.comparisons.flatMap((c) => [c.baseline, c.candidate]));
  return doc.variants.map((v) => v.key).filter((k) => inPairs.has(k));
}

/** CV of one sample; all-zero values count as perfectly stable, any other zero mean as unstable. */
export function cvOf(values: number[]): number {
  if (values.every((v) => v === 0)) return 0;
  try {
    return coefficientOfVariation(values);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export function assessStability(
  doc: Pick<ScenarioDocument, 'variants' | 'comparisons' | 'metrics'>,
  samples: readonly { variant: string; metric: string; value: number }[],
  cvThreshold: number,
): Stability {
  const cvs: VariantCv[] = [];
  for (const m of doc.metrics.filter((x) => x.source === 'timed')) {
    for (const variant of comparedVariants(doc)) {
      const values = samples.filter((s) => s.variant === variant && s.metric === m.key).map((s) => s.value);
      if (values.length < 2) continue;
      cvs.push({ variant, metric: m.key, n: values.length, cv: cvOf(values) });
    }
  }
  const unstable = cvs.filter((c) => !(c.cv <= cvThreshold)).sort((a, b) => b.cv - a.cv);
  return { stable: unstable.length === 0, cvs, unstable };
}

/**
 * Whether to stop after `repetitions` full rounds, and why — in words for the table footer, the
 * `stopping-rule` note and the progress output. `null`: add another round.
 */
export function decideStop(
  doc: Pick<ScenarioDocument, 'variants' | 'comparisons' | 'metrics'>,
  samples: readonly { variant: string; metric: string; value: number }[],
  repetitions: number,
  rule: UntilStable,
  elapsed?: Elapsed,
): StopDecision | null {
  const s = assessStability(doc, samples, rule.cvThreshold);
  const limit = formatCvPercent(rule.cvThreshold);
  const manyMetrics = new Set(s.cvs.map((c) => c.metric)).size > 1;
  const name = (c: VariantCv) => (manyMetrics ? `${c.variant} ${c.metric}` : c.variant);
  if (s.stable) {
    const worst = [...s.cvs].sort((a, b) => b.cv - a.cv)[0];
    return {
      stopped: 'stable',
      repetitions,
      reason: `stable: all compared variants' CV ≤ ${limit} after ${repetitions} repetitions${worst ? ` (highest: ${name(worst)} = ${formatCv(worst.cv)})` : ''}`,
      cvs: s.cvs,
    };
  }
  if (repetitions >= rule.maxRepetitions) {
    return {
      stopped: 'max-repetitions',
      repetitions,
      reason: `max-repetitions reached (${rule.maxRepetitions}): CV of ${s.unstable.map((c) => `${name(c)} = ${formatCv(c.cv)}`).join(', ')} > ${limit}`,
      cvs: s.cvs,
    };
  }
  if (rule.budgetSeconds !== undefined && elapsed && elapsed.seconds + elapsed.roundSeconds > rule.budgetSeconds) {
    return {
      stopped: 'time-budget',
      repetitions,
      reason: `time budget reached (${rule.budgetSeconds} s): ${elapsed.seconds.toFixed(0)} s measured, and another round (~${elapsed.roundSeconds.toFixed(0)} s) would pass it; CV of ${s.unstable.map((c) => `${name(c)} = ${formatCv(c.cv)}`).join(', ')} > ${limit}`,
      cvs: s.cvs,
    };
  }
  return null;
}

/** One line for progress output when another round is added. */
export function describeUnstable(
  doc: Pick<ScenarioDocument, 'variants' | 'comparisons' | 'metrics'>,
  samples: readonly { variant: string; metric: string; value: number }[],
  rule: UntilStable,
): string {
  const s = assessStability(doc, samples, rule.cvThreshold);
  const worst = s.unstable[0];
  return worst ? `CV of ${worst.variant} = ${formatCv(worst.cv)} > ${formatCvPercent(rule.cvThreshold)}` : 'stable';
}
