/**
 * Everything the comparisons and answers of a whole site read, loaded in one pass and computed in
 * memory: the sample rows of the metrics asked (every scenario, both sources), and the samples and
 * time-series points the answers read besides (answerMetrics), of every run or of the runs listed.
 * Runs are immutable, so a site build keeps the inputs of the runs it built (`packInputs`) and, the
 * next time, reads only the new runs' from the database: `compareInputs` and `answerInputs` give
 * what `compare` and `answers` give over the same runs, whatever order the rows come in.
 */
import type {
  AnswersQuery,
  ComparisonResultRecord,
  ReleaseEventsQuery,
  ScenarioAnswersRecord,
} from '@tunelab/contracts';
import { groupSamples, type Filters, type SampleRow, type SeriesPoint, type UnitSample } from '@tunelab/answers';
import { z } from 'zod';
import type { PrismaClient } from './generated/prisma/client.ts';
import { loadSamples } from './comparison-samples.ts';
import { resolveMetric, type ComparisonFilters } from './comparisons.ts';
import { answerFromReads, answerMetrics, seriesPoints, unitSamples } from './answers.ts';
import type { ScenarioCatalog } from './scenario-catalog.ts';
import { listReleaseEvents, releaseEventsQuery } from './releases-events.ts';
import type { DbContext, Queries } from './context.ts';

export type ComparisonInputs = {
  /** Sample rows per metric asked. */
  rows: Map<string, SampleRow[]>;
  /** The metrics `samples` and `series` hold (every catalog scenario's answerMetrics). */
  sampleMetrics: string[];
  seriesMetrics: string[];
  samples: UnitSample[];
  series: SeriesPoint[];
};

async function catalogMetrics(catalog: ScenarioCatalog) {
  const sample = new Set<string>();
  const series = new Set<string>();
  for (const key of (await catalog.docs()).keys()) {
    const loaded = await catalog.get(key);
    if (!loaded) continue;
    const m = answerMetrics(loaded);
    for (const x of m.sampleMetrics) sample.add(x);
    for (const x of m.seriesMetrics) series.add(x);
  }
  return { sampleMetrics: [...sample].sort(), seriesMetrics: [...series].sort() };
}

/** The inputs of `metrics` for every run, or for `runIds` only (e.g. the runs new since a build). */
export async function loadInputs(
  prisma: PrismaClient,
  catalog: ScenarioCatalog,
  metrics: readonly string[],
  runIds?: readonly string[],
): Promise<ComparisonInputs> {
  const { sampleMetrics, seriesMetrics } = await catalogMetrics(catalog);
  const rows = new Map<string, SampleRow[]>();
  for (const metric of [...new Set(metrics)].sort())
    rows.set(metric, await loadSamples(prisma, { metric, source: 'all', groupBy: 'class' }, runIds));
  // The answers read these of their groups' runs, and a group's runs are runs with rows.
  const ids = [...new Set([...rows.values()].flatMap((list) => list.map((r) => r.run_id)))];
  return {
    rows,
    sampleMetrics,
    seriesMetrics,
    samples: await unitSamples(prisma, ids, sampleMetrics),
    series: await seriesPoints(prisma, ids, seriesMetrics),
  };
}

/** Two sets of inputs of different runs (kept and new) as one. */
export function mergeInputs(a: ComparisonInputs, b: ComparisonInputs): ComparisonInputs {
  const same = (x: string[], y: string[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  if (
    !same([...a.rows.keys()].sort(), [...b.rows.keys()].sort()) ||
    !same(a.sampleMetrics, b.sampleMetrics) ||
    !same(a.seriesMetrics, b.seriesMetrics)
  )
    throw new Error('comparison inputs of different metrics cannot be merged');
  return {
    rows: new Map([...a.rows].map(([m, list]) => [m, [...list, ...(b.rows.get(m) ?? [])]])),
    sampleMetrics: a.sampleMetrics,
    seriesMetrics: a.seriesMetrics,
    samples: [...a.samples, ...b.samples],
    series: [...a.series, ...b.series],
  };
}

/** The filters `rowsOf` applies (the ones the site asks with) and the query fields that are no filter (`noisy` is applied by groupSamples). */
const ROWS_FILTERED_BY = new Set(['scenario', 'metric', 'source', 'engine', 'major', 'groupBy', 'direction', 'noisy']);

/** `rows` of the metric, filtered as loadSamples filters the database for the filters a site asks with. */
function rowsOf(inputs: ComparisonInputs, q: Filters): SampleRow[] {
  const rows = inputs.rows.get(q.metric);
  if (!rows) throw new Error(`the comparison inputs hold no samples of ${q.metric}`);
  // Any other filter set would be ignored here and answer differently from loadSamples: refused.
  const unsupported = Object.entries(q)
    .filter(([k, v]) => v !== undefined && !ROWS_FILTERED_BY.has(k))
    .map(([k]) => k);
  if (unsupported.length > 0) throw new Error(`comparison inputs are not filtered by ${unsupported.join(', ')}`);
  return rows.filter(
    (r) =>
      (q.scenario === undefined || r.scenario_key === q.scenario) &&
      (q.source === 'all' || r.source === q.source) &&
      (q.engine === undefined || r.engine === q.engine) &&
      (q.major === undefined || q.major.includes(r.major)),
  );
}

/** What `compare(q)` gives, from the inputs. */
export async function compareInputs(
  catalog: ScenarioCatalog,
  inputs: ComparisonInputs,
  asked: ComparisonFilters,
): Promise<ComparisonResultRecord> {
  const q = await resolveMetric(asked, catalog);
  return groupSamples(rowsOf(inputs, q), q, await catalog.docs());
}

/** What `answers(q)` gives, from the inputs. */
export function answerInputs(
  catalog: ScenarioCatalog,
  inputs: ComparisonInputs,
  q: AnswersQuery,
): Promise<ScenarioAnswersRecord | null> {
  const within = (metrics: string[], held: string[], what: string) => {
    const missing = metrics.filter((m) => !held.includes(m));
    if (missing.length > 0) throw new Error(`the comparison inputs hold no ${what} of ${missing.join(', ')}`);
  };
  return answerFromReads(catalog, q, {
    rows: (filters) => rowsOf(inputs, filters),
    samples: (runIds, metrics) => {
      within(metrics, inputs.sampleMetrics, 'samples');
      const ids = new Set(runIds);
      const wanted = new Set(metrics);
      return inputs.samples.filter((s) => ids.has(s.run) && wanted.has(s.metric));
    },
    series: (runIds, metrics) => {
      within(metrics, inputs.seriesMetrics, 'time series');
      const ids = new Set(runIds);
      const wanted = new Set(metrics);
      return inputs.series.filter((s) => ids.has(s.run) && wanted.has(s.metric));
    },
  });
}

// Packed for a build directory: a run's own columns once, its samples as tuples.
const Json = z.json();
const PackedRun = z.strictObject({
  id: z.string(),
  scenario_key: z.string(),
  version_hash: z.string(),
  comparisons: Json,
  fingerprint: z.string(),
  hardware_class: z.string(),
  cpu_model: z.string(),
  storage_kind: z.string(),
  physical_cores: z.number(),
  memory_bytes: z.number(),
  source: z.string(),
  received_at: z.iso.datetime(),
  engine: z.string(),
  db_version: z.string(),
  major: z.number(),
  minor: z.number(),
  params: z.record(z.string(), Json),
  run_warnings: z.array(z.string()),
  settings: z.record(z.string(), z.string()),
  /** Whether the run was flagged noisy; null without noise figures (absent in inputs packed before runs had them). */
  noisy: z.boolean().nullable().optional(),
  /** The runner that sent the run; null for an article's (absent in inputs packed before runners were read). */
  runner: z.string().nullable().optional(),
  /** metric → [variant, repetition, value, unit, point_param, point_value, position (absent before blocks)] */
  rows: z.record(
    z.string(),
    z.array(
      z.tuple([
        z.string(),
        z.number(),
        z.number(),
        z.string(),
        z.string().nullable(),
        z.number().nullable(),
        z.number().nullable().optional(),
      ]),
    ),
  ),
  /** [variant, repetition, metric, value, point_param, point_value] */
  samples: z.array(
    z.tuple([z.string(), z.number(), z.string(), z.number(), z.string().nullable(), z.number().nullable()]),
  ),
  /** [variant, repetition, metric, x, value] */
  series: z.array(z.tuple([z.string(), z.number(), z.string(), z.number(), z.number()])),
});
const PackedInputs = z.strictObject({
  format: z.literal(1),
  /** Every run the inputs were loaded over (with rows or without). */
  covers: z.array(z.string()),
  metrics: z.array(z.string()),
  sampleMetrics: z.array(z.string()),
  seriesMetrics: z.array(z.string()),
  runs: z.array(PackedRun),
});
type PackedRun = z.infer<typeof PackedRun>;

/** The inputs as JSON, one record per run; `covers`: every run they were loaded over. */
export function packInputs(inputs: ComparisonInputs, covers: readonly string[]): string {
  const runs = new Map<string, PackedRun>();
  const runOf = (r: SampleRow): PackedRun => {
    let p = runs.get(r.run_id);
    if (!p) {
      p = {
        id: r.run_id,
        scenario_key: r.scenario_key,
        version_hash: r.version_hash,
        comparisons: (r.comparisons ?? null) as z.infer<typeof Json>,
        fingerprint: r.fingerprint,
        hardware_class: r.hardware_class,
        cpu_model: r.cpu_model,
        storage_kind: r.storage_kind,
        physical_cores: r.physical_cores,
        memory_bytes: r.memory_bytes,
        source: r.source,
        received_at: r.received_at.toISOString(),
        engine: r.engine,
        db_version: r.db_version,
        major: r.major,
        minor: r.minor,
        params: r.params as Record<string, z.infer<typeof Json>>,
        run_warnings: r.run_warnings,
        settings: r.settings,
        noisy: r.noisy ?? null,
        runner: r.runner ?? null,
        rows: {},
        samples: [],
        series: [],
      };
      runs.set(r.run_id, p);
    }
    return p;
  };
  for (const [metric, list] of [...inputs.rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    for (const r of list)
      (runOf(r).rows[metric] ??= []).push([
        r.variant,
        r.repetition,
        r.value,
        r.unit,
        r.point_param,
        r.point_value,
        r.position ?? null,
      ]);
  const known = (run: string, what: string) => {
    const p = runs.get(run);
    if (!p) throw new Error(`${what} of run ${run}, which has no sample rows in the inputs`);
    return p;
  };
  for (const s of inputs.samples)
    known(s.run, 'samples').samples.push([
      s.variant,
      s.repetition,
      s.metric,
      s.value,
      s.point?.param ?? null,
      s.point?.value ?? null,
    ]);
  for (const s of inputs.series) known(s.run, 'series').series.push([s.variant, s.repetition, s.metric, s.x, s.value]);
  // One text for the same runs whatever order they were read in (kept + new, or all at once).
  const cmp = (a: readonly unknown[], b: readonly unknown[]) => {
    for (let i = 0; i < a.length; i++) {
      const x = a[i] ?? '';
      const y = b[i] ?? '';
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  const packed = [...runs.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const p of packed) {
    for (const list of Object.values(p.rows)) list.sort(cmp);
    p.samples.sort(cmp);
    p.series.sort(cmp);
  }
  return JSON.stringify({
    format: 1,
    covers: [...covers].sort(),
    metrics: [...inputs.rows.keys()].sort(),
    sampleMetrics: inputs.sampleMetrics,
    seriesMetrics: inputs.seriesMetrics,
    runs: packed,
  });
}

/** Packed inputs read back (validated), with the runs they cover; throws when the text is not packed inputs. */
export function unpackInputs(text: string): { inputs: ComparisonInputs; covers: string[] } {
  const packed = PackedInputs.parse(JSON.parse(text));
  const rows = new Map<string, SampleRow[]>(packed.metrics.map((m) => [m, []]));
  const samples: UnitSample[] = [];
  const series: SeriesPoint[] = [];
  for (const { rows: byMetric, samples: s, series: t, id, received_at, ...run } of packed.runs) {
    const at = new Date(received_at);
    for (const [metric, list] of Object.entries(byMetric)) {
      const out = rows.get(metric);
      if (!out) throw new Error(`packed inputs: run ${id} has rows of ${metric}, which the inputs do not list`);
      for (const [variant, repetition, value, unit, point_param, point_value, position] of list)
        out.push({
          ...run,
          run_id: id,
          received_at: at,
          variant,
          repetition,
          position: position ?? null,
          value,
          unit,
          point_param,
          point_value,
        });
    }
    for (const [variant, repetition, metric, value, param, pointValue] of s)
      samples.push({
        run: id,
        variant,
        repetition,
        metric,
        value,
        point: param !== null && pointValue !== null ? { param, value: pointValue } : null,
      });
    for (const [variant, repetition, metric, x, value] of t)
      series.push({ run: id, variant, repetition, metric, x, value });
  }
  return {
    inputs: { rows, sampleMetrics: packed.sampleMetrics, seriesMetrics: packed.seriesMetrics, samples, series },
    covers: packed.covers,
  };
}

/** Comparison inputs as `ResultsDb` methods (see context.ts). */
export const comparisonInputQueries = {
  loadInputs: (db: DbContext, metrics: readonly string[], runIds?: readonly string[]) =>
    loadInputs(db.prisma, db.catalog, metrics, runIds),
  compareInputs: (db: DbContext, inputs: ComparisonInputs, q: ComparisonFilters) =>
    compareInputs(db.catalog, inputs, q),
  answerInputs: (db: DbContext, inputs: ComparisonInputs, q: AnswersQuery) => answerInputs(db.catalog, inputs, q),
  /**
   * What `releaseEvents(q)` gives, the events recorded from the answers computed from the inputs
   * (which must hold every kept run's primary metric): a site build's, without reading every
   * sample again.
   */
  releaseEventsFromInputs: (db: DbContext, inputs: ComparisonInputs, q?: ReleaseEventsQuery) =>
    listReleaseEvents(db, q, (scenario) => answerInputs(db.catalog, inputs, releaseEventsQuery(scenario))),
} satisfies Queries;
