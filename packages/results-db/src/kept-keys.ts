/**
 * What identifies a kept answer (kept-answers.ts) and what it was computed by: the row key of a
 * kept query, the version stamp (the scenario's, the answers code's and their shape's), and whether a scenario's
 * default kept answer is current. Apart from kept-answers.ts so that releases-events.ts, which
 * kept-answers.ts records events through, can ask the last without an import cycle.
 */
import { primaryMetric } from '@tunelab/answers';
import { answersCodeVersion, answersShapeVersion } from './code-version.ts';
import type { DbContext } from './context.ts';
import type { ScenarioDocument } from '@tunelab/contracts';

/** A kept query: a scenario, its metric (the primary one when not asked for) and the source. */
export type KeptQuery = { scenario: string; metric: string; source: 'measured' | 'published' };

/** `metric=…&source=…`: the row key of a kept query within its scenario. */
export const queryKeyOf = (q: KeptQuery) => `metric=${encodeURIComponent(q.metric)}&source=${q.source}`;

/**
 * What a kept answer was computed by, stored in its `scenario_version`: the scenario's version, the
 * answers code's and the answers' shape (code-version.ts), so that neither an edited scenario nor
 * an upgrade of the code serves an answer computed the old way as current (nor, after a change of
 * shape, at all: sameShape).
 */
export const keptVersion = (scenarioVersion: string) =>
  `${scenarioVersion} code ${answersCodeVersion()} shape ${answersShapeVersion()}`;

/** Whether a kept answer stamped `version` has the shape this code answers in (keptVersion's `shape`). */
export const sameShape = (version: string) => version.endsWith(` shape ${answersShapeVersion()}`);

/** The scenario's default kept query: its primary metric, measured (GET /v1/answers?scenario=…). */
export const defaultQuery = (scenario: string, doc: ScenarioDocument): KeptQuery => ({
  scenario,
  metric: primaryMetric(doc),
  source: 'measured',
});

/** Whether `q` is its scenario's default kept query (false for a scenario without a folder). */
export async function isDefaultQuery(db: DbContext, q: KeptQuery): Promise<boolean> {
  const loaded = await db.catalog.get(q.scenario);
  return loaded !== null && queryKeyOf(defaultQuery(q.scenario, loaded.doc)) === queryKeyOf(q);
}

/**
 * Whether the scenario's default kept answer is current (computed from its runs as they are, by
 * its scenario version and this code): its release events were then recorded from exactly these answers.
 */
export async function defaultAnswerCurrent(db: DbContext, scenario: string): Promise<boolean> {
  const loaded = await db.catalog.get(scenario);
  if (!loaded) return false;
  const [row] = await db.sql.query<{ current: boolean }>(
    `SELECT k.scenario_version = $3
            AND k.data_version = coalesce((SELECT version FROM answer_data_versions WHERE scenario_key = $1), 0) AS current
       FROM kept_answers k WHERE k.scenario_key = $1 AND k.query_key = $2`,
    [scenario, queryKeyOf(defaultQuery(scenario, loaded.doc)), keptVersion(loaded.version)],
    'kept_answers_default_current',
  );
  return row?.current === true;
}
