// The answer engine: verdicts in each metric's direction, agreement with the article under one
// comparability rule, and the declared ratios, fits and crossings. Used by results-db (the API),
// the site and the runner's report; never computed in an app.
export {
  defaultMetric,
  metricDirection,
  metricList,
  primaryMetric,
  quantityOf,
  type ResolvedDirection,
} from './direction.ts';
export { comparePair } from './compare.ts';
export {
  AGREEMENT_TEXT,
  agreementSentence,
  COMPARABILITY_RULE,
  advice,
  answerPair,
  articleMachine,
  comparability,
  groupMajor,
  groupName,
  hardwareDistance,
  nearestArticleMachine,
  serverName,
  settingValues,
  storageName,
  type AnswerGroup,
  type ArticleMachine,
  type Comparability,
  type PairAnswerRecord,
  type ScenarioInput,
} from './answer.ts';
export {
  declaredCrossings,
  declaredFits,
  declaredRatios,
  meanCurve,
  type SeriesPoint,
  type UnitSample,
} from './figures.ts';
export {
  agreementCounts,
  answerScenario,
  type AnswerScenarioInput,
  type GroupAnswerOf,
  type ScenarioAnswersOf,
} from './scenario.ts';
export { engineDefault, isNoiseSetting, storedWarningText, normalizeSetting, sameSetting } from './settings.ts';
export { findingsOf, groupSamples, type Filters, type SampleRow } from './groups.ts';
export { leftOutLabel, leftOutOfGroup } from './left-out.ts';
export { groupByPolicy } from './groups.ts';
export { articleFindings } from './article-findings.ts';
export { publishedSubmissions } from './published.ts';
export { answerRun } from './run.ts';
export { conditionMetrics, evaluateConditions, type ConditionCheck } from './conditions.ts';
export { answerVersions } from './versions.ts';
export { answerClasses, classLabel, CLASSES_NAMED_UP_TO } from './classes.ts';
export { interactionWords } from './side-by-side.ts';
export {
  decidingP,
  intervalLevelText,
  formatP,
  meanImprovement,
  notDifferentWords,
  pairClaims,
  verdictMagnitude,
  type PairClaim,
} from './claims.ts';
export {
  answerAtScale,
  checkScaleQuery,
  fitScaleCurves,
  MIN_SCALES,
  SCALE_EXTRAPOLATION_LIMIT,
  ScaleQueryError,
  type AnswerAtScaleInput,
  type FitScaleCurvesInput,
  type ScaleQuery,
} from './scale.ts';
export { answerCurvesAtScale, answersAtScale } from './scale-curves.ts';
export { answerLikeMine, type GroupSimilarityOf, type LikeMineGroup, type LikeMineOf } from './like-mine.ts';
export { weighRunners } from './runners.ts';
export { decideBlocks, type BlocksDecision, type PairDecision } from './blocks.ts';
export {
  answerReleaseLine,
  answerReleaseSeries,
  answerUpgrade,
  measuredOnBusyMachine,
  ReleaseQueryError,
} from './releases.ts';
