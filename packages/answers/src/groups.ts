/**
 * Grouping (pure): runs are pooled only under equal conditions — a group is scenario version ×
 * source × (machine | hardware class) × engine and major version × every parameter value × metric
 * unit × sweep point. Runs at rows=50,000 and rows=700,000 are two groups, each saying its
 * parameter values; two scenario versions are never pooled; measured and published runs neither
 * (`source=all` shows them side by side). Minor versions are listed per group. Each pair is
 * compared in the metric's direction as the scenario declares it (`better`), or the query's.
 */
import {
  type Bounds,
  type ComparisonGroupRecord,
  type ComparisonQuery,
  type ComparisonResultRecord,
  type FindingRecord,
  type NoiseCounts,
  type NoisyPolicy,
  type Sample,
  type ScenarioDocument,
  Engine,
  majorOfParts,
  StorageKind,
} from '@tunelab/contracts';
import { EQUIVALENCE_MARGIN, summarize } from '@tunelab/stats';
import { comparePair, type CompareOptions } from './compare.ts';
import { metricDirection, quantityOf } from './direction.ts';
import { engineDefault, storedWarningText } from './settings.ts';
import { leftOutOfGroup, leftOutReasonOf, splitLeftOut } from './left-out.ts';

const GIB = 1024 ** 3;

/** One sample with its run, scenario version and hardware profile (results-db's rows; the runner's run). */
export type SampleRow = {
  variant: string;
  point_param: string | null;
  point_value: number | null;
  repetition: number;
  /** The sample's place in its block (the repetition); null or absent for runs from before blocks. */
  position?: number | null;
  value: number;
  unit: string;
  run_id: string;
  scenario_key: string;
  version_hash: string;
  comparisons: unknown;
  fingerprint: string;
  hardware_class: string;
  cpu_model: string;
  storage_kind: string;
  physical_cores: number;
  memory_bytes: number;
  source: string;
  received_at: Date;
  engine: string;
  db_version: string;
  major: number;
  minor: number;
  /** The run's parameter values, its warnings and its server's recorded settings. */
  params: Record<string, unknown>;
  run_warnings: string[];
  settings: Record<string, string>;
  /** Whether the run was flagged noisy (contracts' judgeNoise); null or absent when it recorded no noise. */
  noisy?: boolean | null;
  /** The runner (token) that sent the run; null for imported articles, absent in rows kept before runners were read. */
  runner?: string | null;
  /** The release the run asked for (`--server 17.4`, options.serverRelease); null or absent when it asked for none. */
  server_release?: string | null;
};

/** A row's fields that come from its run and machine, not from the sample. */
export type RunRowFields = Omit<
  SampleRow,
  'variant' | 'point_param' | 'point_value' | 'repetition' | 'position' | 'value' | 'unit'
>;

/** A run's samples of one metric as the rows results-db loads for them: the sample's fields, then the run's. */
export function sampleRows(samples: readonly Sample[], metric: string, run: RunRowFields): SampleRow[] {
  return samples
    .filter((s) => s.metric === metric)
    .map((s) => ({
      variant: s.variant,
      point_param: s.point?.param ?? null,
      point_value: s.point?.value ?? null,
      repetition: s.repetition,
      position: s.position ?? null,
      value: s.value,
      unit: s.unit,
      ...run,
    }));
}

/** What a comparison is grouped and compared by (GET /v1/comparisons' query, the pair optional, the metric resolved). */
export type Filters = Omit<ComparisonQuery, 'baseline' | 'candidate' | 'metric'> & {
  metric: string;
  baseline?: string | undefined;
  candidate?: string | undefined;
};

/** The scenario documents directions and relevant settings are read from, by scenario key. */
export type ScenarioDocs = ReadonlyMap<string, ScenarioDocument>;

/** The text of a placeholder CPU model published.ts gives an article that did not describe its machine. */
const UNDESCRIBED = 'hardware not described';
const MAX_RUN_WARNINGS = 50;

const MAX_RUN_LINKS = 100;

/** A sample as block pairing reads it: its value, its run and block (repetition), its place in the block. */
export type BlockSample = { value: number; runId: string; repetition: number; position: number | null };

/**
 * The two variants' samples measured in one block (the same run and repetition), paired in the
 * candidate's order; null unless every sample of both has a place in its block (runs measured in blocks).
 */
export function pairBlocks(
  xs: readonly BlockSample[],
  ys: readonly BlockSample[],
): { runId: string; baseline: number; candidate: number }[] | null {
  if (!xs.every((x) => x.position !== null) || !ys.every((y) => y.position !== null)) return null;
  const inBlock = new Map(xs.map((x) => [`${x.runId}\u0000${x.repetition}`, x.value]));
  return ys.flatMap((y) => {
    const x = inBlock.get(`${y.runId}\u0000${y.repetition}`);
    return x === undefined ? [] : [{ runId: y.runId, baseline: x, candidate: y.value }];
  });
}

type Acc = {
  first: SampleRow;
  /** The group's key without its sweep point: the groups of one family of tests (multiplicity). */
  family: string;
  settings: Map<string, Set<string>>;
  /** Each run's warnings, in the run's order. */
  warnings: Map<string, string[]>;
  byVariant: Map<string, BlockSample[]>;
  runs: Map<string, Date>;
  databases: Map<string, { engine: string; version: string; major: number; minor: number; runs: Set<string> }>;
  profiles: Set<string>;
  /** The runners that sent the group's runs. */
  runners: Set<string>;
  /** Runs flagged noisy (and of those, the ones measured in paired blocks), and runs without noise figures. */
  noisy: Set<string>;
  pairedNoisy: Set<string>;
  unmeasured: Set<string>;
};

const finite = (x: number) => (Number.isFinite(x) ? x : null);
const bounds = (i: { low: number; high: number }): Bounds => ({ low: finite(i.low), high: finite(i.high) });

function declaredPairs(raw: unknown): { baseline: string; candidate: string }[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((p) =>
    p &&
    typeof p === 'object' &&
    typeof (p as { baseline?: unknown }).baseline === 'string' &&
    typeof (p as { candidate?: unknown }).candidate === 'string'
      ? [{ baseline: (p as { baseline: string }).baseline, candidate: (p as { candidate: string }).candidate }]
      : [],
  );
}

/** The parameters that define a group: every value except the swept one (its point is in the key). */
function groupParams(r: SampleRow): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const k of Object.keys(r.params).sort()) {
    const v = r.params[k];
    if (k === r.point_param) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

/**
 * A pair's values block by block — the same run and repetition (a block at one sweep point) — when
 * every sample of both variants in the group has a position (their runs measured in blocks) and
 * every value is positive; null otherwise (runs from before blocks: Welch decides).
 */
function blocksOf(
  acc: Acc,
  baseline: string,
  candidate: string,
): { baseline: number[]; candidate: number[]; runs: number } | null {
  const xs = acc.byVariant.get(baseline);
  const ys = acc.byVariant.get(candidate);
  const pairs = xs && ys ? pairBlocks(xs, ys) : null;
  if (!pairs || pairs.length < 2 || pairs.some((p) => !(p.baseline > 0 && p.candidate > 0))) return null;
  return {
    baseline: pairs.map((p) => p.baseline),
    candidate: pairs.map((p) => p.candidate),
    runs: new Set(pairs.map((p) => p.runId)).size,
  };
}

/** Per variant n, mean, median, spread, CI and outliers; the variants whose spread overflowed or whose CI is cut at 0. */
function variantSummaries(acc: Acc, variants: readonly string[]) {
  const overflowing: string[] = [];
  const cutAtZero: string[] = [];
  const summaries = variants.map((variant) => {
    const xs = acc.byVariant.get(variant) ?? [];
    const s = summarize(xs.map((x) => x.value));
    if (s.overflow) overflowing.push(variant);
    if (s.ci95TruncatedAtZero) cutAtZero.push(variant);
    return {
      variant,
      n: s.n,
      mean: s.mean,
      median: s.median,
      sd: s.sd,
      se: s.se,
      cv: s.cv,
      ci95: s.ci95 ? bounds(s.ci95) : null,
      min: s.min,
      max: s.max,
      outliers: s.outliers.flatMap((i) => {
        const x = xs[i];
        return x ? [{ value: x.value, runId: x.runId, repetition: x.repetition }] : [];
      }),
    };
  });
  return { summaries, overflowing, cutAtZero };
}

/** The pairs a group answers: the query's, else the scenario's declared ones it has, else every pair of its variants. */
function pairsOf(
  acc: Acc,
  q: Filters,
  variants: readonly string[],
): { pairs: { baseline: string; candidate: string }[]; pairsFrom: ComparisonGroupRecord['pairsFrom'] } {
  if (q.baseline !== undefined && q.candidate !== undefined)
    return { pairsFrom: 'query', pairs: [{ baseline: q.baseline, candidate: q.candidate }] };
  const pairs = declaredPairs(acc.first.comparisons).filter(
    (p) => acc.byVariant.has(p.baseline) && acc.byVariant.has(p.candidate),
  );
  if (pairs.length > 0) return { pairsFrom: 'declared', pairs };
  // Alphabetical order decides which is the baseline when nothing is declared.
  return {
    pairsFrom: 'all-pairs',
    pairs: variants.flatMap((b, i) => variants.slice(i + 1).map((c) => ({ baseline: b, candidate: c }))),
  };
}

/** A group's warnings: spread that overflowed, CIs cut at 0, published figures, then its runs' own (at most MAX_RUN_WARNINGS). */
function groupWarnings(acc: Acc, overflowing: readonly string[], cutAtZero: readonly string[]): string[] {
  const f = acc.first;
  const warnings: string[] = [];
  if (overflowing.length > 0) {
    warnings.push(
      `the values of ${overflowing.join(', ')} are too large for their spread to be represented (beyond ±1.8e308): sd and CI are left out`,
    );
  }
  if (cutAtZero.length > 0) {
    warnings.push(
      `the 95% CI of the mean of ${cutAtZero.join(', ')} is cut at 0: the runs are too few or too spread out to bound the mean from below`,
    );
  }
  if (f.source === 'published')
    warnings.push('published figures, as the article reported them; not measured by TuneLab');
  // Run by run in id order, each run's in its own order: the same list whatever order the rows came in.
  const runWarnings = new Set(
    [...acc.warnings.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).flatMap(([, list]) => list),
  );
  warnings.push(...[...runWarnings].slice(0, MAX_RUN_WARNINGS));
  if (runWarnings.size > MAX_RUN_WARNINGS)
    warnings.push(`and ${runWarnings.size - MAX_RUN_WARNINGS} more warnings of its runs (see the runs)`);
  return warnings;
}

function buildGroup(
  key: string,
  acc: Acc,
  q: Filters,
  doc: ScenarioDocument | undefined,
  excluded: number,
  points: number,
): ComparisonGroupRecord {
  const f = acc.first;
  const variants = [...acc.byVariant.keys()].sort();
  const { summaries, overflowing, cutAtZero } = variantSummaries(acc, variants);
  const { pairs, pairsFrom } = pairsOf(acc, q, variants);
  const values = (v: string) => acc.byVariant.get(v)?.map((x) => x.value);
  const { direction } = metricDirection(doc, q.metric, q.direction);
  const def = doc?.metrics.find((m) => m.key === q.metric);
  const wording: CompareOptions = { quantity: quantityOf(f.unit), label: def?.label ?? q.metric, unit: f.unit };
  // The decisions that share alpha (Bonferroni), with blocks or without: the scenario version's
  // declared pairs (else every pair of the group) at every sweep point of the family — never fewer
  // because a query asked for one.
  const declared = declaredPairs(f.comparisons).length;
  const family = Math.max(1, (declared > 0 ? declared : pairs.length) * points);
  const margin = doc?.decision?.margin ?? EQUIVALENCE_MARGIN;
  const published = f.source === 'published';
  const comparisons = pairs.map((p) => {
    const blocks = published ? null : blocksOf(acc, p.baseline, p.candidate);
    return comparePair(p.baseline, p.candidate, values(p.baseline), values(p.candidate), direction, {
      ...wording,
      // An article's figures are its own claims, each read as the article read it: a family of one.
      ...(published ? {} : { decision: { family, margin } }),
      ...(blocks ? { paired: { ...blocks, family, margin } } : {}),
    });
  });

  const databases = [...acc.databases.values()]
    .map((d) => ({
      engine: Engine.parse(d.engine),
      version: d.version,
      major: d.major,
      minor: d.minor,
      runs: d.runs.size,
    }))
    .sort((x, y) => y.runs - x.runs || x.version.localeCompare(y.version));
  const warnings = groupWarnings(acc, overflowing, cutAtZero);
  const runs = [...acc.runs.entries()].sort((x, y) => y[1].getTime() - x[1].getTime() || (x[0] < y[0] ? -1 : 1));
  const byHardware = q.groupBy === 'hardware';
  return {
    key,
    scenario: { key: f.scenario_key, version: f.version_hash },
    source: f.source === 'published' ? 'published' : 'measured',
    hardware: {
      class: f.hardware_class,
      fingerprint: byHardware ? f.fingerprint : null,
      cpuModel: byHardware ? f.cpu_model : null,
      storageKind: StorageKind.parse(f.storage_kind),
      physicalCores: f.physical_cores,
      memoryGb: Math.round(f.memory_bytes / GIB),
      profiles: acc.profiles.size,
      stated: !(f.source === 'published' && f.cpu_model.includes(UNDESCRIBED)),
    },
    metric: q.metric,
    unit: f.unit,
    ...(f.point_param !== null && f.point_value !== null
      ? { point: { param: f.point_param, value: f.point_value } }
      : {}),
    params: groupParams(f),
    engine: { engine: Engine.parse(f.engine), major: f.major },
    settings: Object.fromEntries([...acc.settings.entries()].map(([k, v]) => [k, [...v].sort()])),
    databaseVersions: databases,
    runCount: runs.length,
    runners: acc.runners.size,
    newestRunAt: (runs[0]?.[1] ?? new Date(0)).toISOString(),
    runs: runs.slice(0, MAX_RUN_LINKS).map(([id, at]) => ({ id, receivedAt: at.toISOString() })),
    variants: summaries,
    pairsFrom,
    comparisons,
    warnings,
    noise: {
      policy: q.noisy ?? 'include',
      runs: runs.length,
      noisy: acc.noisy.size,
      unmeasured: acc.unmeasured.size,
      excluded,
      paired: acc.pairedNoisy.size,
    },
  };
}

/**
 * The rows each group of `groupSamples(rows, q)` is made of, by the group's key (its `key`): the
 * rows the left-out policy keeps. The key is made once per run, unit and point, as groupSamples does.
 */
export function rowsByGroup(rows: readonly SampleRow[], q: Filters): Map<string, SampleRow[]> {
  const out = new Map<string, SampleRow[]>();
  const keyOf = new Map<string, SampleRow[]>();
  for (const r of rows) {
    if (leftOutReasonOf(r, q.noisy) !== null) continue;
    const place = `${r.run_id}\u0000${r.unit}\u0000${r.point_param ?? '\u0001'}\u0000${r.point_value ?? '\u0001'}`;
    let list = keyOf.get(place);
    if (!list) {
      const key = groupKeyOf(r, q);
      list = out.get(key);
      if (!list) out.set(key, (list = []));
      keyOf.set(place, list);
    }
    list.push(r);
  }
  return out;
}

/** The group key of a sample row: scenario version × source × machine or class × engine major × parameters × metric unit × point. */
function groupKeyOf(r: SampleRow, q: Filters): string {
  const who = q.groupBy === 'hardware' ? r.fingerprint : r.hardware_class;
  const at = r.point_param !== null && r.point_value !== null ? `@${r.point_param}=${r.point_value}` : '';
  const params = Object.entries(groupParams(r))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
  return `${r.scenario_key}@${r.version_hash.slice(0, 12)}/${r.source}/${who}/${r.engine}-${majorOfParts(Engine.parse(r.engine), r)}/{${params}}/${q.metric}[${r.unit}]${at}`;
}

/** An empty group whose first row is `r`; `family` is its key without the sweep point. */
function newAcc(r: SampleRow, family: string): Acc {
  return {
    first: r,
    family,
    byVariant: new Map(),
    runs: new Map(),
    databases: new Map(),
    profiles: new Set(),
    runners: new Set(),
    settings: new Map(),
    warnings: new Map(),
    noisy: new Set(),
    pairedNoisy: new Set(),
    unmeasured: new Set(),
  };
}

/** A run's own facts, once per group it joins: warnings, relevant settings, noise flag, profile, server. */
function addRun(acc: Acc, r: SampleRow, docs: ScenarioDocs): void {
  if (r.run_warnings.length > 0)
    acc.warnings.set(
      r.run_id,
      r.run_warnings.map((w) => storedWarningText(r.engine, w)),
    );
  for (const name of docs.get(r.scenario_key)?.report.relevant_settings ?? []) {
    const fallback = engineDefault(r.engine, name);
    const value = r.settings[name] ?? (fallback ? `${fallback} (default)` : 'server default');
    let set = acc.settings.get(name);
    if (!set) acc.settings.set(name, (set = new Set()));
    set.add(value);
  }
  acc.runs.set(r.run_id, r.received_at);
  if (r.noisy === true) {
    acc.noisy.add(r.run_id);
    if (r.position !== null && r.position !== undefined) acc.pairedNoisy.add(r.run_id);
  } else if (r.noisy === null || r.noisy === undefined) acc.unmeasured.add(r.run_id);
  acc.profiles.add(r.fingerprint);
  if (r.runner) acc.runners.add(r.runner);
  const dbKey = `${r.engine}\u0000${r.db_version}`;
  let db = acc.databases.get(dbKey);
  if (!db)
    acc.databases.set(
      dbKey,
      (db = { engine: r.engine, version: r.db_version, major: r.major, minor: r.minor, runs: new Set() }),
    );
  db.runs.add(r.run_id);
}

/** Groups by scenario, source, newest first (published ones in the article's machine order), point, key. */
const groupOrder = (x: ComparisonGroupRecord, y: ComparisonGroupRecord): number =>
  x.scenario.key.localeCompare(y.scenario.key) ||
  x.source.localeCompare(y.source) ||
  // Published figures have no meaningful age: they keep the article's machine order.
  (x.source === 'published'
    ? (x.hardware.cpuModel ?? x.hardware.class).localeCompare(y.hardware.cpuModel ?? y.hardware.class)
    : 0) ||
  y.newestRunAt.localeCompare(x.newestRunAt) ||
  (x.point?.value ?? 0) - (y.point?.value ?? 0) ||
  x.key.localeCompare(y.key);

/** Groups loaded samples; per group per-variant summaries and, per comparison pair, difference, CI, p-values, verdict. Pure. */
export function groupSamples(
  rows: readonly SampleRow[],
  q: Filters,
  docs: ScenarioDocs = new Map(),
  /** Sweep points the blocks' family counts at least (a run in progress: the points it plans). */
  plannedPoints = 1,
): ComparisonResultRecord {
  const groups = new Map<string, Acc>();
  // Rows the left-out policy leaves out (noisy=exclude: a flagged run's) are counted per group they would have joined.
  const excludedOf = new Map<string, Set<string>>();
  const kept: SampleRow[] = [];
  for (const r of rows) {
    if (leftOutReasonOf(r, q.noisy) !== null) {
      const key = groupKeyOf(r, q);
      let set = excludedOf.get(key);
      if (!set) excludedOf.set(key, (set = new Set()));
      set.add(r.run_id);
    } else kept.push(r);
  }
  // A run's rows share all of a group's key but the unit and the sweep point: per run, the group of
  // each (unit, point) it has rows for, so the key is made and the run's own facts (warnings,
  // settings, hardware, server) are added once per run and group, not once per sample.
  const groupOfRun = new Map<string, Map<string, Acc>>();
  for (const r of kept) {
    let mine = groupOfRun.get(r.run_id);
    if (!mine) groupOfRun.set(r.run_id, (mine = new Map<string, Acc>()));
    const rest = `${r.unit}\u0000${r.point_param ?? '\u0001'}\u0000${r.point_value ?? '\u0001'}`;
    let acc = mine.get(rest);
    if (!acc) {
      const at = r.point_param !== null && r.point_value !== null ? `@${r.point_param}=${r.point_value}` : '';
      const key = groupKeyOf(r, q);
      acc = groups.get(key);
      if (!acc) groups.set(key, (acc = newAcc(r, key.slice(0, key.length - at.length))));
      mine.set(rest, acc);
      // The run's first row in this group.
      if (!acc.runs.has(r.run_id)) addRun(acc, r, docs);
    }
    let list = acc.byVariant.get(r.variant);
    if (!list) acc.byVariant.set(r.variant, (list = []));
    list.push({ value: r.value, runId: r.run_id, repetition: r.repetition, position: r.position ?? null });
  }
  for (const acc of groups.values()) {
    // Stable input order (by run, then repetition) so outlier indices and tests are deterministic.
    for (const list of acc.byVariant.values())
      list.sort((x, y) => (x.runId < y.runId ? -1 : x.runId > y.runId ? 1 : x.repetition - y.repetition));
  }
  // Sweep points per family (the groups that differ only in their point): the blocks' family size.
  const pointsOf = new Map<string, number>();
  for (const acc of groups.values()) pointsOf.set(acc.family, (pointsOf.get(acc.family) ?? 0) + 1);
  const out = [...groups.entries()]
    .map(([key, acc]) => {
      const excluded = excludedOf.get(key)?.size ?? 0;
      const points = Math.max(plannedPoints, pointsOf.get(acc.family) ?? 1);
      return buildGroup(key, acc, q, docs.get(acc.first.scenario_key), excluded, points);
    })
    .sort(groupOrder);
  const used = metricDirection(q.scenario !== undefined ? docs.get(q.scenario) : undefined, q.metric, q.direction);
  return {
    metric: q.metric,
    source: q.source,
    groupBy: q.groupBy,
    direction: used.direction,
    directionFrom: used.from,
    groups: out,
    noise: countNoise(q.noisy ?? 'include', kept, [...excludedOf.values()]),
  };
}

/** Distinct runs over every group: drawn on, flagged noisy, without noise figures, and left out as noisy. */
function countNoise(policy: NoisyPolicy, kept: readonly SampleRow[], excluded: readonly Set<string>[]): NoiseCounts {
  const runs = new Map<string, boolean | null>();
  const paired = new Set<string>();
  for (const r of kept) {
    runs.set(r.run_id, r.noisy ?? null);
    if (r.noisy === true && r.position !== null && r.position !== undefined) paired.add(r.run_id);
  }
  const flags = [...runs.values()];
  return {
    policy,
    runs: runs.size,
    noisy: flags.filter((x) => x === true).length,
    unmeasured: flags.filter((x) => x === null).length,
    excluded: new Set(excluded.flatMap((set) => [...set])).size,
    paired: paired.size,
  };
}

/**
 * One finding per comparison pair of each group, newest data first: the verdict sentence with
 * the ids of the runs behind it and `comparisonOf(group)` (what its link is made from). Shared by
 * the API (findings) and the site (home page, feed).
 */
export function findingsOf<C>(
  groups: readonly ComparisonGroupRecord[],
  comparisonOf: (g: ComparisonGroupRecord) => C,
  /** The reader's policy for noisy runs: under `exclude` a group of only noisy runs is labelled left out. */
  policy?: NoisyPolicy,
): FindingRecord<C>[] {
  const items = groups.flatMap((g) => {
    const leftOut = leftOutOfGroup(g, policy);
    return g.comparisons.map((c) => ({
      scenario: g.scenario,
      group: g.key,
      source: g.source,
      hardwareClass: g.hardware.class,
      fingerprint: g.hardware.fingerprint,
      metric: g.metric,
      ...(g.point ? { point: g.point } : {}),
      baseline: c.baseline,
      candidate: c.candidate,
      kind: c.verdict.kind,
      sentence: c.verdict.sentence,
      newestRunAt: g.newestRunAt,
      runIds: g.runs.map((r) => r.id),
      comparison: comparisonOf(g),
      ...(leftOut ? { leftOut } : {}),
    }));
  });
  return items.sort(
    (x, y) =>
      y.newestRunAt.localeCompare(x.newestRunAt) ||
      x.group.localeCompare(y.group) ||
      x.candidate.localeCompare(y.candidate),
  );
}

/**
 * Rows grouped under the policy: the groups that count (`groupSamples` leaves the left-out rows
 * out and counts them in `noise`) and the groups of the rows left out, grouped the same way, for
 * `answerScenario`'s `leftOutGroups`.
 */
export function groupByPolicy(rows: readonly SampleRow[], q: Filters, docs: ScenarioDocs = new Map()) {
  const { groups, noise } = groupSamples(rows, q, docs);
  const { leftOut } = splitLeftOut(rows, q.noisy);
  const leftOutGroups = leftOut.length > 0 ? groupSamples(leftOut, { ...q, noisy: 'include' }, docs).groups : [];
  return { groups, noise, leftOutGroups };
}
