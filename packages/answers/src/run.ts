/**
 * One run answered on its own (the runner's closing report): the run just measured is one
 * measured group per sweep point, held against the article's groups built from published.json —
 * the same grouping, verdicts, agreement, ratios, fits and crossings `GET /v1/answers` gives for
 * that run alone, without a database.
 */
import {
  ComparisonQuery,
  RunSubmission,
  canonicalJson,
  hardwareClassOf,
  judgeNoise,
  stableHardwareFields,
  type ComparisonGroupRecord,
  type NoisyPolicy,
  type ScenarioDocument,
} from '@tunelab/contracts';
import { publishedFigures, type PublishedData } from '@tunelab/scenarios';
import { metricDirection } from './direction.ts';
import { groupSamples, sampleRows, type SampleRow } from './groups.ts';
import { publishedSubmissions } from './published.ts';
import { groupByPolicy } from './groups.ts';
import { answerScenario, type ScenarioAnswersOf } from './scenario.ts';

/** What results-db stores for a run with no machine described: its class says so. */
const UNSPECIFIED_HARDWARE_CLASS = 'unspecified (published)';

/** A submission's samples of one metric as the rows results-db would load for it. */
function submissionRows(
  run: RunSubmission,
  metric: string,
  meta: { runId: string; source: 'measured' | 'published'; hardwareClass: string },
): SampleRow[] {
  return sampleRows(run.samples, metric, {
    run_id: meta.runId,
    scenario_key: run.scenario.key,
    version_hash: run.scenario.version,
    comparisons: run.scenario.comparisons ?? null,
    fingerprint: canonicalJson(stableHardwareFields(run.hardware)),
    hardware_class: meta.hardwareClass,
    cpu_model: run.hardware.cpuModel,
    storage_kind: run.hardware.storage.kind,
    physical_cores: run.hardware.physicalCores,
    memory_bytes: run.hardware.memoryBytes,
    source: meta.source,
    received_at: new Date(run.finishedAt),
    engine: run.database.engine,
    db_version: run.database.version,
    major: run.database.major,
    minor: run.database.minor,
    params: run.params,
    run_warnings: run.warnings,
    settings: run.database.settings,
    noisy: run.noise ? judgeNoise(run.noise).noisy : null,
  });
}

const query = (doc: ScenarioDocument, metric: string, source: 'measured' | 'published') => ({
  ...ComparisonQuery.parse({ scenario: doc.key, source, groupBy: 'class' }),
  metric,
});

/** The article's groups of `metric`, from published.json as results-db imports it. */
function articleGroups(doc: ScenarioDocument, published: PublishedData | null, metric: string) {
  if (!published) return [];
  const rows = publishedSubmissions(published.file, published.version).flatMap(({ machine, submission }) => {
    const run = RunSubmission.parse(submission);
    const undescribed = machine === 'article' && run.hardware.storage.kind === 'unknown';
    return submissionRows(run, metric, {
      runId: `published:${machine}`,
      source: 'published',
      hardwareClass: undescribed ? UNSPECIFIED_HARDWARE_CLASS : hardwareClassOf(run.hardware),
    });
  });
  // The article's pairs are its own (published.json `comparisons`), as the importer records them.
  const pairs = (published.file.comparisons ?? []).map(([baseline, candidate]) => ({ baseline, candidate }));
  const withPairs = pairs.length > 0 ? rows.map((r) => ({ ...r, comparisons: pairs })) : rows;
  return groupSamples(withPairs, query(doc, metric, 'published'), new Map([[doc.key, doc]])).groups;
}

/**
 * Answers one run: per sweep point one measured group of `metric` (this run), its declared pairs
 * against the article, and the declared ratios, fits and crossings of this run's samples.
 */
export function answerRun(input: {
  doc: ScenarioDocument;
  published: PublishedData | null;
  run: RunSubmission;
  metric: string;
  /** The run's id, when it has one (a stored run); otherwise a placeholder. */
  runId?: string;
  /** `exclude`: a run flagged noisy is left out of the verdict and answered in `leftOut` (left-out.ts); default include. */
  noisy?: NoisyPolicy;
}): ScenarioAnswersOf<ComparisonGroupRecord> {
  const { doc, run, metric } = input;
  const runId = input.runId ?? 'this-run';
  const docs = new Map([[doc.key, doc]]);
  const { groups, noise, leftOutGroups } = groupByPolicy(
    submissionRows(run, metric, { runId, source: 'measured', hardwareClass: hardwareClassOf(run.hardware) }),
    { ...query(doc, metric, 'measured'), ...(input.noisy ? { noisy: input.noisy } : {}) },
    docs,
  );
  return answerScenario({
    scenario: { doc, published: input.published?.file ?? null },
    figures: publishedFigures(input.published),
    metric,
    direction: metricDirection(doc, metric),
    source: 'measured',
    groups,
    leftOutGroups,
    articleGroups: articleGroups(doc, input.published, metric),
    samplesOf: () => run.samples.map((s) => ({ ...s, run: runId, point: s.point ?? null })),
    seriesOf: () => run.timeSeries.map(({ point: _point, ...p }) => ({ ...p, run: runId })),
    noise,
  });
}
