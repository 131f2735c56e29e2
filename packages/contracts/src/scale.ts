/**
 * Answers at the user's scale (GET /v1/answers?at=rows:40000000): each variant's primary metric
 * fitted across the measured scales of one hardware class and engine major (log–log least squares,
 * `@tunelab/stats` scale.ts), the pair's ratio at the asked scale with its confidence and
 * prediction intervals, the scale where the pair's order changes, and how well the fit predicted
 * each measured scale it was not given. Computed by `@tunelab/answers` (the site draws the same).
 */
import { z } from 'zod';
import { ParamValues } from './primitives.ts';
import { Bounds, UsedDirection, variantPair } from './comparisons.ts';
import { Engine } from './database.ts';

const AT_PATTERN = /^([a-z][a-z0-9_]{0,62}):([0-9]+(?:\.[0-9]+)?(?:e[0-9]+)?)$/i;

/** The largest scale value asked about: far beyond any table (10^15 rows), so no fit's arithmetic overflows. */
const MAX_SCALE_VALUE = 1e15;
const scaleValueOk = (v: number) => v > 0 && v <= MAX_SCALE_VALUE;

/** `at=PARAM:VALUE`: a positive number of the scenario's scale parameter, e.g. `rows:40000000`. */
export const ScaleAt = z
  .string()
  .max(100)
  .refine((text) => scaleValueOk(Number(AT_PATTERN.exec(text)?.[2])), {
    message: `expected PARAM:VALUE with a positive number up to ${MAX_SCALE_VALUE.toExponential()}, e.g. rows:40000000`,
  });

/** The parameter and value of a valid `at` (see ScaleAt). */
export function parseScaleAt(text: string): { param: string; value: number } {
  const m = AT_PATTERN.exec(text);
  if (!m || !scaleValueOk(Number(m[2]))) throw new RangeError(`not a scale: ${text}`);
  return { param: m[1]!, value: Number(m[2]) };
}

const ScalePrediction = z.object({
  /** The fitted (median) value at the asked scale, in the metric's unit. */
  estimate: z.number(),
  ci95: Bounds,
  /** Where one new measurement at that scale falls, 95 %. */
  pi95: Bounds,
});

const HeldOut = z.object({
  /** A measured scale left out of the fit. */
  x: z.number(),
  observed: z.number(),
  predicted: z.number(),
  /** (predicted ÷ observed − 1) × 100 */
  errorPct: z.number(),
});

/** What a fit across scale was fitted to, on a variant's fit and on its curve alike. */
const FITTED = {
  /** Runs × repetitions fitted. */
  n: z.number().int(),
  /** The measured scales, ascending. */
  scales: z.array(z.number()),
  /** Leave-one-scale-out: the fit without a scale, predicting it. */
  heldOut: z.array(HeldOut),
};

export const ScaleFit = z.object({
  variant: z.string(),
  label: z.string(),
  /** ln value = intercept + slope · ln scale; the slope is the growth exponent (1 = linear). */
  slope: z.number(),
  intercept: z.number(),
  ...FITTED,
  prediction: ScalePrediction.nullable(),
});
export type ScaleFit = z.infer<typeof ScaleFit>;

export const ScalePairAnswer = z.object({
  ...variantPair,
  /**
   * answered: inside the measured range (or within the documented factor of it); refused: too far
   * outside it; insufficient-data: fewer measured scales than a fit needs.
   */
  status: z.enum(['answered', 'refused', 'insufficient-data']),
  /** The answer (or refusal) in words, saying the scale, the measured range and how sure. */
  sentence: z.string(),
  /**
   * Decided as every answer is (the paired verdict's rule): differs when `ci95` excludes 1,
   * equivalent when it lies within ±`margin`, else undecided; null when not answered.
   */
  decision: z.enum(['differs', 'equivalent', 'undecided']).nullable(),
  /** candidate ÷ baseline of the fitted values at the asked scale. */
  ratio: z.number().nullable(),
  /** Its interval, 95 % for the declared pairs together (Bonferroni: each at 1 − 0.05 / pairs). */
  ci95: Bounds.nullable(),
  /** Where the ratio of one new run of each at that scale falls, 95 %. */
  pi95: Bounds.nullable(),
  p: z.number().nullable(),
  /** How far the asked scale lies outside the range both variants measured (1 = inside). */
  extrapolation: z.number().nullable(),
  /** Where the two fitted lines cross (null when parallel or not fitted). */
  crossing: z
    .object({
      x: z.number(),
      /** Scales whose ratio interval holds 1 (Fieller); null when the data cannot bound it. */
      interval: Bounds.nullable(),
      /** The variant with the lower value above the crossing. */
      lowerAbove: z.string(),
      withinRange: z.boolean(),
      sentence: z.string(),
    })
    .nullable(),
  /** The largest |held-out error| of the two fits, in %; null when no scale could be held out. */
  heldOutMaxAbsErrorPct: z.number().nullable(),
  fits: z.array(ScaleFit),
  /** The command that measures the asked scale on the reader's own machine. */
  command: z.string(),
});
export type ScalePairAnswer = z.infer<typeof ScalePairAnswer>;

export const ScaleGroupAnswer = z.object({
  /** Hardware class × engine major × the other parameters: runs pooled across scales only here. */
  key: z.string(),
  /** The scenario version (hash) the group's runs measured: runs of two versions never pool. */
  scenarioVersion: z.string(),
  hardwareClass: z.string(),
  engine: Engine,
  major: z.number().int(),
  /** The parameter values other than the scale. */
  params: ParamValues,
  runs: z.number().int(),
  pairs: z.array(ScalePairAnswer),
});
export type ScaleGroupAnswer = z.infer<typeof ScaleGroupAnswer>;

/** How far answers at a scale may reach, as every answer across scale states it. */
const SCALE_LIMITS = {
  /** Answers go at most this factor beyond the measured range (either side). */
  limit: z.number(),
  /** The fewest distinct measured scales a fit answers from. */
  minScales: z.number().int(),
};

export const ScaleAnswers = z.object({
  param: z.string(),
  value: z.number(),
  metric: z.string(),
  unit: z.string(),
  ...SCALE_LIMITS,
  groups: z.array(ScaleGroupAnswer),
  /** Why there are no groups, when there are none. */
  empty: z.string().nullable(),
});
export type ScaleAnswers = z.infer<typeof ScaleAnswers>;

/**
 * One variant's log–log least-squares line across scale, whole (`@tunelab/stats` LogLogFit): its
 * parameters and the sums its intervals come from, not the samples behind it.
 */
export const ScaleLine = z.object({
  n: z.number().int(),
  slope: z.number(),
  intercept: z.number(),
  /** Residual standard deviation on the log scale (n − 2 degrees of freedom). */
  residualSd: z.number(),
  df: z.number(),
  meanLogX: z.number(),
  /** Σ (ln x − mean ln x)² */
  sxx: z.number(),
  range: z.object({ min: z.number(), max: z.number() }),
});

/** One variant of a group fitted across scale: what its answers at any scale are computed from. */
export const ScaleCurve = z.object({
  variant: z.string(),
  label: z.string(),
  /** Null with fewer than three points or two distinct scales. */
  line: ScaleLine.nullable(),
  ...FITTED,
});
export type ScaleCurve = z.infer<typeof ScaleCurve>;

export const ScaleCurveGroup = ScaleGroupAnswer.omit({ pairs: true }).extend({
  /** "MariaDB 10.11": the engine and its release line (`major` holds the first number only). */
  server: z.string(),
  /** The group's metric unit. */
  unit: z.string(),
  /** How the command that measures another scale reaches this group's server (`--server 15`, or `--target …`). */
  serverFlags: z.string(),
  curves: z.array(ScaleCurve),
});
export type ScaleCurveGroup = z.infer<typeof ScaleCurveGroup>;

/**
 * A scenario's variants fitted across its scale parameter, per hardware class × engine major ×
 * the other parameters: everything `atScale` is computed from for any value (`answerCurvesAtScale`
 * of `@tunelab/answers`), so that a page can answer at a reader's scale without a server.
 */
export const ScaleCurves = z.object({
  scenario: z.string(),
  param: z.string(),
  metric: z.string(),
  metricLabel: z.string(),
  unit: z.string(),
  direction: UsedDirection,
  ...SCALE_LIMITS,
  /** The declared pairs, answered in this order; their count is the family the intervals share. */
  pairs: z.array(z.object(variantPair)),
  /** The relative change that counts as none (scenario.yaml `decision.margin`, else ±10 %). */
  margin: z.number().gt(0).lt(1),
  groups: z.array(ScaleCurveGroup),
  empty: z.string().nullable(),
  /** The scale parameter's declared range and type (scenario.yaml params): a printed command stays inside it. */
  paramRange: z.object({ min: z.number().nullable(), max: z.number().nullable(), integer: z.boolean() }).optional(),
});
export type ScaleCurves = z.infer<typeof ScaleCurves>;
