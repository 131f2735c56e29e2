export {
  mean,
  median,
  sampleStdDev,
  standardError,
  coefficientOfVariation,
  robustCoefficientOfVariation,
  MAD_SCALE,
  confidenceIntervalMean,
  geometricMean,
  geometricMeanOfRatios,
  type Interval,
  type ConfidenceInterval,
  type RatioPair,
} from './descriptive.ts';
export { summarize, findOutliers, OUTLIER_MODIFIED_Z, type Summary } from './summarize.ts';
export {
  welchTTest,
  mannWhitneyU,
  type WelchTTest,
  type MannWhitneyU,
  type MannWhitneyMethod,
} from './significance.ts';
export { relativeDifference, type RelativeDifference, type RelativeDifferenceMethod } from './relative-difference.ts';
export {
  verdict,
  formatP,
  formatPercent,
  formatLevel,
  UNBOUNDED_INTERVAL_TEXT,
  EQUIVALENCE_MARGIN,
  type Direction,
  type Quantity,
  type VerdictKind,
  type LabeledSample,
  type VerdictInput,
  type Verdict,
} from './verdict.ts';
export { findCrossings, interpolate, type Crossing, type CurvePoint } from './crossover.ts';
export { seededRandom } from './random.ts';
export { linearFit, fitByVariant, type LinearFit, type FitSample, type VariantFit } from './fit.ts';
export {
  logLogFit,
  predictAt,
  pairAtScale,
  crossingScale,
  heldOutErrors,
  extrapolationFactor,
  type ScalePoint,
  type LogLogFit,
  type ScalePrediction,
  type PairAtScale,
  type ScaleCrossing,
  type HeldOutError,
} from './scale.ts';
export {
  interactionTest,
  type Interaction,
  type InteractionMethod,
  type Moments,
  type PairMoments,
} from './interaction.ts';
export { adjustPValues, type AdjustMethod } from './multiplicity.ts';
export {
  confidenceSequence,
  decideInterval,
  logRatios,
  pairedTTest,
  sequentialMultiplier,
  tBayesFactor,
  tEValue,
  SEQUENTIAL_PRIOR_SCALES,
  type ConfidenceSequence,
  type PairedTTest,
  type SequentialDecision,
} from './sequential.ts';
export {
  pairedVerdict,
  MIN_DECISION_BLOCKS,
  type PairedDecision,
  type PairedVerdict,
  type PairedVerdictInput,
} from './paired-verdict.ts';
export {
  detectChangePoints,
  eDivisive,
  energyCandidate,
  segmentTTest,
  type ChangePoint,
  type ChangePointOptions,
  type SegmentTest,
} from './change-points.ts';
export { welchShift, type SampleMoments, type Shift } from './shift.ts';
