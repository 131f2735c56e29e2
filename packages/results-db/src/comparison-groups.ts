/**
 * Grouping (pure): a group is scenario version × source × (machine | hardware class) × metric
 * unit × sweep point. Two scenario versions are never pooled: each is its own group, and the group
 * says which version it is. Measured and published runs are never pooled either (source is in the
 * key); `source=all` shows them side by side. Database versions are not split but listed per
 * group, with a warning when a group mixes major versions.
 */
import {
  type Bounds,
  type ComparisonGroupRecord,
  type ComparisonResultRecord,
  type FindingRecord,
  type MetricDirection,
  type PairComparison,
  Engine,
  StorageKind,
} from '@tunelab/contracts';
import { mannWhitneyU, mean, summarize, verdict, welchTTest } from '@tunelab/stats';
import { GIB, type Filters, type SampleRow } from './comparison-samples.ts';

const MAX_RUN_LINKS = 100;

type Acc = {
  first: SampleRow;
  byVariant: Map<string, { value: number; runId: string; repetition: number }[]>;
  runs: Map<string, Date>;
  databases: Map<string, { engine: string; version: string; major: number; minor: number; runs: Set<string> }>;
  profiles: Set<string>;
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

function comparePair(
  baseline: string,
  candidate: string,
  a: number[] | undefined,
  b: number[] | undefined,
  direction: MetricDirection,
): PairComparison {
  const missing = [a ? null : baseline, b ? null : candidate].filter((x): x is string => x !== null);
  if (!a || !b) {
    return {
      baseline,
      candidate,
      direction,
      difference: null,
      improvement: null,
      ci95: null,
      welch: null,
      mannWhitney: null,
      verdict: {
        kind: 'insufficient-data',
        sentence: `No runs of ${missing.join(' and ')} in this group, so ${candidate} cannot be compared with ${baseline}`,
        significant: false,
      },
    };
  }
  const v = verdict({
    baseline: { label: baseline, values: a },
    candidate: { label: candidate, values: b },
    direction,
  });
  const enough = a.length >= 2 && b.length >= 2;
  const welch = enough ? welchTTest(b, a) : null;
  const mw = mannWhitneyU(b, a, { method: 'auto' });
  return {
    baseline,
    candidate,
    direction,
    // Null when the difference of two means near ±1.8e308 exceeds the double range.
    difference: finite(mean(b) - mean(a)),
    improvement: v.relative,
    ci95: v.ci ? bounds(v.ci) : null,
    welch: welch ? { t: finite(welch.t), df: welch.df, p: welch.p } : null,
    mannWhitney: { u: mw.u, p: mw.p, method: mw.method },
    verdict: { kind: v.kind, sentence: v.sentence, significant: v.kind === 'faster' || v.kind === 'slower' },
  };
}

function buildGroup(key: string, acc: Acc, q: Filters): ComparisonGroupRecord {
  const f = acc.first;
  const variants = [...acc.byVariant.keys()].sort();
  const overflowing: string[] = [];
  const summaries = variants.map((variant) => {
    const xs = acc.byVariant.get(variant) ?? [];
    const s = summarize(xs.map((x) => x.value));
    if (s.overflow) overflowing.push(variant);
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

  let pairsFrom: ComparisonGroupRecord['pairsFrom'];
  let pairs: { baseline: string; candidate: string }[];
  if (q.baseline !== undefined && q.candidate !== undefined) {
    pairsFrom = 'query';
    pairs = [{ baseline: q.baseline, candidate: q.candidate }];
  } else {
    pairs = declaredPairs(f.comparisons).filter((p) => acc.byVariant.has(p.baseline) && acc.byVariant.has(p.candidate));
    pairsFrom = 'declared';
    if (pairs.length === 0) {
      pairsFrom = 'all-pairs';
      // Alphabetical order decides which is the baseline when nothing is declared.
      pairs = variants.flatMap((b, i) => variants.slice(i + 1).map((c) => ({ baseline: b, candidate: c })));
    }
  }
  const values = (v: string) => acc.byVariant.get(v)?.map((x) => x.value);
  const comparisons = pairs.map((p) =>
    comparePair(p.baseline, p.candidate, values(p.baseline), values(p.candidate), q.direction),
  );

  const databases = [...acc.databases.values()]
    .map((d) => ({
      engine: Engine.parse(d.engine),
      version: d.version,
      major: d.major,
      minor: d.minor,
      runs: d.runs.size,
    }))
    .sort((x, y) => y.runs - x.runs || x.version.localeCompare(y.version));
  const warnings: string[] = [];
  const majors = new Set(databases.map((d) => `${d.engine} ${d.major}`));
  if (majors.size > 1)
    warnings.push(
      `runs on ${[...majors].join(', ')} are pooled in this group; filter with engine/engineMajor to separate them`,
    );
  if (overflowing.length > 0) {
    warnings.push(
      `the values of ${overflowing.join(', ')} are too large for their spread to be represented (beyond ±1.8e308): sd and CI are left out`,
    );
  }
  if (f.source === 'published')
    warnings.push('published figures, as the article reported them; not measured by TuneLab');
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
    },
    metric: q.metric,
    unit: f.unit,
    ...(f.point_param !== null && f.point_value !== null
      ? { point: { param: f.point_param, value: f.point_value } }
      : {}),
    databaseVersions: databases,
    runCount: runs.length,
    newestRunAt: (runs[0]?.[1] ?? new Date(0)).toISOString(),
    runs: runs.slice(0, MAX_RUN_LINKS).map(([id, at]) => ({ id, receivedAt: at.toISOString() })),
    variants: summaries,
    pairsFrom,
    comparisons,
    warnings,
  };
}

/** Groups loaded samples; per group per-variant summaries and, per comparison pair, difference, CI, p-values, verdict. Pure. */
export function groupSamples(rows: readonly SampleRow[], q: Filters): ComparisonResultRecord {
  const groups = new Map<string, Acc>();
  for (const r of rows) {
    const who = q.groupBy === 'hardware' ? r.fingerprint : r.hardware_class;
    const at = r.point_param !== null && r.point_value !== null ? `@${r.point_param}=${r.point_value}` : '';
    const key = `${r.scenario_key}@${r.version_hash.slice(0, 12)}/${r.source}/${who}/${q.metric}[${r.unit}]${at}`;
    let acc = groups.get(key);
    if (!acc) {
      acc = { first: r, byVariant: new Map(), runs: new Map(), databases: new Map(), profiles: new Set() };
      groups.set(key, acc);
    }
    let list = acc.byVariant.get(r.variant);
    if (!list) acc.byVariant.set(r.variant, (list = []));
    list.push({ value: r.value, runId: r.run_id, repetition: r.repetition });
    acc.runs.set(r.run_id, r.received_at);
    acc.profiles.add(r.fingerprint);
    const dbKey = `${r.engine}\u0000${r.db_version}`;
    let db = acc.databases.get(dbKey);
    if (!db)
      acc.databases.set(
        dbKey,
        (db = { engine: r.engine, version: r.db_version, major: r.major, minor: r.minor, runs: new Set() }),
      );
    db.runs.add(r.run_id);
  }
  for (const acc of groups.values()) {
    // Stable input order (by run, then repetition) so outlier indices and tests are deterministic.
    for (const list of acc.byVariant.values())
      list.sort((x, y) => (x.runId < y.runId ? -1 : x.runId > y.runId ? 1 : x.repetition - y.repetition));
  }
  const out = [...groups.entries()].map(([key, acc]) => buildGroup(key, acc, q));
  out.sort(
    (x, y) =>
      x.scenario.key.localeCompare(y.scenario.key) ||
      x.source.localeCompare(y.source) ||
      // Published figures have no meaningful age: they keep the article's machine order.
      (x.source === 'published'
        ? (x.hardware.cpuModel ?? x.hardware.class).localeCompare(y.hardware.cpuModel ?? y.hardware.class)
        : 0) ||
      y.newestRunAt.localeCompare(x.newestRunAt) ||
      (x.point?.value ?? 0) - (y.point?.value ?? 0) ||
      x.key.localeCompare(y.key),
  );
  return { metric: q.metric, source: q.source, groupBy: q.groupBy, direction: q.direction, groups: out };
}

/**
 * One finding per comparison pair of each group, newest data first: the verdict sentence with
 * the ids of the runs behind it and `comparisonOf(group)` (what its link is made from). Shared by
 * the API (findings) and the site (home page, feed).
 */
export function findingsOf<C>(
  groups: readonly ComparisonGroupRecord[],
  comparisonOf: (g: ComparisonGroupRecord) => C,
): FindingRecord<C>[] {
  const items = groups.flatMap((g) =>
    g.comparisons.map((c) => ({
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
    })),
  );
  return items.sort(
    (x, y) =>
      y.newestRunAt.localeCompare(x.newestRunAt) ||
      x.group.localeCompare(y.group) ||
      x.candidate.localeCompare(y.candidate),
  );
}
