// The only reader of `scenarios/<key>/`: scenario.yaml, SQL files, README.md, published.json and
// the scenario version. Runner, published importer (results-db) and site all read folders here.
export { DEFAULT_SCENARIOS_DIR, ScenarioError, loadScenario, listScenarioDirs, type LoadedScenario } from './load.ts';
export { hashScenarioFolder, sha256Hex } from './hash.ts';
export {
  parsePublished,
  publishedFigures,
  publishedMachineRuns,
  publishedVersion,
  readPublishedBytes,
  type PublishedData,
  type PublishedMachineRuns,
} from './published.ts';
export { readScenarioReadme } from './readme.ts';
export {
  ConditionValue,
  EssentialCondition,
  PublishedConditions,
  checkConditions,
  publishedConditions,
} from './conditions.ts';
