/**
 * A scenario's answers (GET /v1/answers): the comparison groups of its primary metric (or the one
 * asked for), the article's groups of the same metric, and every sample and series point of the
 * groups' runs, handed to `@tunelab/answers`, which computes verdicts, agreement, ratios, fits and
 * crossings. The scenario folder (scenario.yaml, published.json) comes from the scenario catalog.
 */
import {
  likeMineOf,
  parseScaleAt,
  SimilarStorage,
  withoutLikeMine,
  type AnswersQuery,
  type ComparisonGroupRecord,
  type ScenarioAnswersRecord,
} from '@tunelab/contracts';
import {
  answerCurvesAtScale,
  answerScenario,
  checkScaleQuery,
  conditionMetrics,
  answerLikeMine,
  answerVersions,
  answerClasses,
  answerReleaseLine,
  answerUpgrade,
  fitScaleCurves,
  groupByPolicy,
  metricDirection,
  primaryMetric,
  weighRunners,
  type SeriesPoint,
  type UnitSample,
} from '@tunelab/answers';
import { publishedFigures, type LoadedScenario } from '@tunelab/scenarios';
import { Prisma, type PrismaClient } from './generated/prisma/client.ts';
import { loadSamples } from './comparison-samples.ts';
import { groupSamples, type Filters, type SampleRow } from '@tunelab/answers';
import type { ScenarioCatalog } from './scenario-catalog.ts';
import type { DbContext, Queries } from './context.ts';
import { similarClasses, similarMachines } from './similar-hardware.ts';
import { similarStorageOf } from '@tunelab/answers/similar';

/** A child row's run and unit of a run: what every sample and time-series point carries. */
type ChildRow = { run_id: string; variant: string; repetition: number; metric: string };
const unitOf = (r: ChildRow) => ({ run: r.run_id, variant: r.variant, repetition: r.repetition, metric: r.metric });

/** The rows of `table` (samples or time_series_points) that belong to these runs and metrics, with `columns`. */
async function childRows<R extends ChildRow>(
  prisma: PrismaClient,
  table: 'samples' | 'time_series_points',
  columns: Prisma.Sql,
  runIds: readonly string[],
  metrics: readonly string[],
): Promise<R[]> {
  if (runIds.length === 0 || metrics.length === 0) return [];
  return prisma.$queryRaw<R[]>`SELECT run_id::text, variant, repetition, metric, ${columns} FROM ${Prisma.raw(table)}
    WHERE run_id = ANY(${[...runIds]}::uuid[]) AND metric = ANY(${[...metrics]}::text[])`;
}

export async function unitSamples(
  prisma: PrismaClient,
  runIds: readonly string[],
  metrics: readonly string[],
): Promise<UnitSample[]> {
  const rows = await childRows<ChildRow & { value: number; point_param: string | null; point_value: number | null }>(
    prisma,
    'samples',
    Prisma.sql`value, point_param, point_value`,
    runIds,
    metrics,
  );
  return rows.map((r) => ({
    ...unitOf(r),
    value: r.value,
    point: r.point_param !== null && r.point_value !== null ? { param: r.point_param, value: r.point_value } : null,
  }));
}

export async function seriesPoints(
  prisma: PrismaClient,
  runIds: readonly string[],
  metrics: readonly string[],
): Promise<SeriesPoint[]> {
  const rows = await childRows<ChildRow & { x: number; value: number }>(
    prisma,
    'time_series_points',
    Prisma.sql`x, value`,
    runIds,
    metrics,
  );
  return rows.map((r) => ({ ...unitOf(r), x: r.x, value: r.value }));
}

/** The metrics a scenario's answers read besides its primary one: ratios, fits and conditions (samples), series charts. */
export function answerMetrics(loaded: LoadedScenario): { sampleMetrics: string[]; seriesMetrics: string[] } {
  const doc = loaded.doc;
  return {
    sampleMetrics: [
      ...new Set([
        ...(doc.report.ratios ?? []).map((r) => r.metric),
        ...(doc.report.fits ?? []).flatMap((f) => [f.metric, f.per]),
        ...conditionMetrics(loaded.published?.file ?? null),
      ]),
    ],
    seriesMetrics: doc.report.charts.flatMap((c) => (c.kind === 'series' ? [c.metric] : [])),
  };
}

/** What a scenario's answers are computed from, however it was read (the database, or a site build's kept inputs). */
export type AnswerReads = {
  /** Sample rows of the query's filters (scenario, metric, source, …). */
  rows(filters: Filters): Promise<SampleRow[]> | SampleRow[];
  /** These runs' samples of these metrics, and their time-series points. */
  samples(runIds: string[], metrics: string[]): Promise<UnitSample[]> | UnitSample[];
  series(runIds: string[], metrics: string[]): Promise<SeriesPoint[]> | SeriesPoint[];
};

/** The same order whatever order they were read in (sums over them do not depend on how a database returned them). */
function byRunThenPlace<T extends { run: string; metric: string; variant: string; repetition: number }>(
  key: (x: T) => number,
) {
  return (a: T, b: T) =>
    (a.run < b.run ? -1 : a.run > b.run ? 1 : 0) ||
    (a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0) ||
    (a.variant < b.variant ? -1 : a.variant > b.variant ? 1 : 0) ||
    a.repetition - b.repetition ||
    key(a) - key(b);
}
const sampleOrder = byRunThenPlace<UnitSample>((x) => x.point?.value ?? 0);
const seriesOrder = byRunThenPlace<SeriesPoint>((x) => x.x);

/** A scenario's answers (GET /v1/answers) from its reads; null when the scenario has no folder in the catalog. */
export async function answerFromReads(
  catalog: ScenarioCatalog,
  q: AnswersQuery,
  reads: AnswerReads,
): Promise<ScenarioAnswersRecord | null> {
  const loaded = await catalog.get(q.scenario);
  if (!loaded) return null;
  const doc = loaded.doc;
  const metric = q.metric ?? primaryMetric(doc);
  const docs = new Map([[doc.key, doc]]);
  const { source, at: atText, from, to, ...filters } = q;
  const at = atText === undefined ? undefined : parseScaleAt(atText);
  if (at) checkScaleQuery(doc, at);
  // `major` (one or several engine majors) is applied where the samples are read.
  const base: Filters = { ...filters, metric, source, groupBy: 'class' };
  const rows = await reads.rows(base);
  const { groups, noise, leftOutGroups } = groupByPolicy(rows, base, docs);
  const articleQuery: Filters = {
    scenario: q.scenario,
    metric,
    source: 'published',
    groupBy: 'class',
    direction: q.direction,
  };
  const articleGroups =
    source === 'published' ? groups : groupSamples(await reads.rows(articleQuery), articleQuery, docs).groups;

  const { sampleMetrics, seriesMetrics } = answerMetrics(loaded);
  const runIds = [...new Set([...groups, ...leftOutGroups].flatMap((g) => g.runs.map((r) => r.id)))];
  const samples = [...(await reads.samples(runIds, sampleMetrics))].sort(sampleOrder);
  const series = [...(await reads.series(runIds, seriesMetrics))].sort(seriesOrder);
  const of =
    <T extends { run: string }>(xs: T[]) =>
    (g: ComparisonGroupRecord) => {
      const ids = new Set(g.runs.map((r) => r.id));
      return xs.filter((x) => ids.has(x.run));
    };
  const input = {
    scenario: { doc, published: loaded.published?.file ?? null },
    figures: publishedFigures(loaded.published),
    metric,
    direction: metricDirection(doc, metric, q.direction),
    source,
    groups,
    leftOutGroups,
    articleGroups,
    samplesOf: of(samples),
    seriesOf: of(series),
    noise,
  };
  const pooled = answerScenario(input);
  // A class weighs runners, not runs: each runner's rows answered alone (runners.ts of @tunelab/answers).
  const answered = { ...pooled, groups: weighRunners(pooled.groups, answersPerRunner(rows, base, docs, input)) };
  // The same pairs side by side per engine major, read from the per-group answers.
  const versions = answerVersions(answered.groups);
  // The same pairs side by side per hardware class, likewise.
  const classes = answerClasses(answered.groups);
  // Upgrading from one release to another: the measured rows per release (releases.ts of @tunelab/answers).
  const upgrade =
    from !== undefined && to !== undefined
      ? answerUpgrade({
          rows: source === 'measured' ? rows : await reads.rows({ ...base, source: 'measured' }),
          filters: base,
          docs,
          from,
          to,
          margin: doc.decision?.margin,
        })
      : undefined;
  // The pair's ratio on every measured release, drawn where two or more are (the site's release line).
  const releaseLine =
    source === 'measured' ? answerReleaseLine({ rows, filters: base, docs, margin: doc.decision?.margin }) : undefined;
  const extra = { versions, classes, ...(upgrade ? { upgrade } : {}), ...(releaseLine ? { releaseLine } : {}) };
  if (!doc.scale) return { ...answered, ...extra };
  // Each variant fitted across the measured scales: `scaleCurves` (measured answers), and at `at`
  // the pairs answered from those very curves.
  const direction = metricDirection(doc, metric, q.direction).direction;
  const measured = source === 'measured' ? rows : at ? await reads.rows({ ...base, source: 'measured' }) : [];
  const curves = fitScaleCurves({ doc, rows: measured, param: doc.scale.param, metric, direction });
  return {
    ...answered,
    ...extra,
    ...(source === 'measured' ? { scaleCurves: curves } : {}),
    ...(at ? { atScale: answerCurvesAtScale(curves, at.value) } : {}),
  };
}

/**
 * The groups' answers from each runner's rows alone, for the runners of the groups with runs of two
 * runners or more (none when there is no such group): what `weighRunners` holds the pooled verdicts against.
 */
function answersPerRunner(
  rows: readonly SampleRow[],
  base: Filters,
  docs: Parameters<typeof groupByPolicy>[2],
  input: Parameters<typeof answerScenario<ComparisonGroupRecord>>[0],
) {
  const shared = new Set(input.groups.filter((g) => g.runners >= 2).map((g) => g.key));
  if (shared.size === 0) return [];
  const byRunner = new Map<string, SampleRow[]>();
  for (const r of rows) {
    if (!r.runner) continue;
    const list = byRunner.get(r.runner) ?? [];
    list.push(r);
    byRunner.set(r.runner, list);
  }
  return [...byRunner.values()].map((own) => {
    const { groups, noise } = groupByPolicy(own, base, docs);
    const mine = groups.filter((g) => shared.has(g.key));
    return mine.length === 0 ? [] : answerScenario({ ...input, groups: mine, leftOutGroups: [], noise }).groups;
  });
}

/** Null when the scenario has no folder in the catalog. */
export function answerScenarioQuery(
  prisma: PrismaClient,
  catalog: ScenarioCatalog,
  q: AnswersQuery,
): Promise<ScenarioAnswersRecord | null> {
  return answerFromReads(catalog, q, {
    rows: (filters) => loadSamples(prisma, filters),
    samples: (runIds, metrics) => unitSamples(prisma, runIds, metrics),
    series: (runIds, metrics) => seriesPoints(prisma, runIds, metrics),
  });
}

/** A "hardware like mine" parameter of GET /v1/answers that names nothing stored (`like` with an unknown fingerprint). */
export class LikeMineQueryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'LikeMineQueryError';
  }
}

/**
 * A scenario's answers; with a machine (`cores`, `memoryGb`, … or `like`) the groups nearest it
 * first, each with its similarity, and `likeMine` (`@tunelab/answers`' answerLikeMine). Without
 * one, exactly `answerScenarioQuery`'s. Null when the scenario has no folder in the catalog.
 */
export async function answerLikeMineQuery(
  prisma: PrismaClient,
  catalog: ScenarioCatalog,
  q: AnswersQuery,
): Promise<ScenarioAnswersRecord | null> {
  const asked = likeMineOf(q);
  const plain = withoutLikeMine(q);
  if (!asked) return answerScenarioQuery(prisma, catalog, plain);
  let machine: NonNullable<ScenarioAnswersRecord['likeMine']>['machine'];
  if ('fingerprint' in asked) {
    const stored = (await similarMachines(prisma, [asked.fingerprint])).get(asked.fingerprint);
    if (!stored) throw new LikeMineQueryError('like', `no hardware profile with fingerprint ${asked.fingerprint}`);
    machine = {
      fingerprint: stored.fingerprint,
      cores: stored.physicalCores,
      memoryGb: stored.memoryGb,
      storage: stored.storage,
      storageTier: stored.storageTier,
      figures: stored.figures,
    };
  } else {
    const { spec } = asked;
    machine = {
      fingerprint: null,
      cores: spec.cores,
      memoryGb: spec.memoryGb,
      // As GET /v1/similar reports it: the storage given, else the tier of the reads', else unknown.
      storage: SimilarStorage.parse(similarStorageOf(spec.storage, spec.storageTier)),
      storageTier: spec.storageTier,
      figures: spec.figures,
    };
  }
  const answered = await answerScenarioQuery(prisma, catalog, plain);
  if (!answered) return null;
  // A stored machine's own runs answer for it first: its class pools other machines' (and runners') runs.
  const own =
    machine.fingerprint === null
      ? undefined
      : (await answerScenarioQuery(prisma, catalog, { ...plain, hardware: machine.fingerprint }))?.groups;
  const candidates = await similarClasses(prisma, { scenario: q.scenario, source: q.source });
  const spec = {
    cores: machine.cores,
    memoryGb: machine.memoryGb,
    storage: machine.storage,
    storageTier: machine.storageTier,
    figures: machine.figures,
  };
  const { groups, classes, ...likeMine } = answerLikeMine(answered.groups, candidates, spec, own);
  const storageOf = <T extends { storage: string }>(x: T) => ({ ...x, storage: SimilarStorage.parse(x.storage) });
  return {
    ...answered,
    groups: groups.map((g) => ({ ...g, similarity: g.similarity && storageOf(g.similarity) })),
    likeMine: {
      machine,
      like: likeMine.like,
      classes: classes.map(storageOf),
      nearest: likeMine.nearest,
      answers: likeMine.answers,
      ...(likeMine.mine ? { mine: likeMine.mine } : {}),
      sentence: likeMine.sentence,
    },
  };
}

/** A scenario's answers as a `ResultsDb` method (see context.ts). */
export const answerQueries = {
  /** A scenario's answers (null when the scenario has no folder in the catalog); "like mine" with a machine. */
  answers: (db: DbContext, q: AnswersQuery) => answerLikeMineQuery(db.prisma, db.catalog, q),
} satisfies Queries;
