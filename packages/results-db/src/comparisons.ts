/**
 * Comparisons, findings and "hardware like mine", answered from the samples index
 * (scenario_version_id, metric, hardware_profile_id, variant).
 *
 * The matching scenario versions and hardware profiles are resolved first (small tables), then
 * the samples are read with `= ANY(...)` on the leading index columns, so the cost follows the
 * number of matching samples, not the size of the table (see apps/api/bench/compare.ts).
 *
 * Grouping: a group is scenario version × source × (machine | hardware class) × metric unit.
 * Two scenario versions are never pooled: each is its own group, and the group says which
 * version it is. Measured and published runs are never pooled either (source is in the key);
 * `source=all` shows them side by side. Database versions are not split but listed per group,
 * with a warning when a group mixes major versions.
 */
import {
  type Bounds,
  type ComparisonGroup,
  type ComparisonQuery,
  type ComparisonResult,
  type Finding,
  type FindingsQuery,
  type MetricDirection,
  type PairComparison,
  type SimilarHardware,
  type SimilarHardwareQuery,
  Engine,
  StorageKind,
} from '@tunelab/contracts';
import { mannWhitneyU, summarize, verdict, welchTTest } from '@tunelab/stats';
import { Prisma, type PrismaClient } from './generated/prisma/client.ts';

const GIB = 1024 ** 3;
const MAX_RUN_LINKS = 100;

type SampleRow = {
  variant: string;
  repetition: number;
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
};

type Filters = Omit<ComparisonQuery, 'baseline' | 'candidate'> & { baseline?: string | undefined; candidate?: string | undefined };

const hasHardwareFilter = (q: Filters) =>
  q.storage !== undefined || q.minCores !== undefined || q.maxCores !== undefined || q.minMemoryGb !== undefined || q.maxMemoryGb !== undefined || q.hardware !== undefined;

type VersionRow = { id: string; scenario_key: string; version_hash: string; comparisons: unknown };
type ProfileRow = { id: string; fingerprint: string; hardware_class: string; cpu_model: string; storage_kind: string; physical_cores: number; memory_bytes: number };
type RunRow = { id: string; source: string; received_at: Date; engine: string; db_version: string; major: number; minor: number };

const PROFILE_COLUMNS = Prisma.sql`id::text, fingerprint, hardware_class, cpu_model, storage_kind, physical_cores, memory_bytes::float8 AS memory_bytes`;

/**
 * Reads the samples behind a comparison in single-table statements, each an index lookup:
 * versions and profiles first (small tables), then samples by the comparison index, then the
 * runs those samples belong to by primary key. Separate statements keep the planner from
 * trading the primary-key lookups for a hash join over every run when its row estimate is high.
 */
async function loadSamples(prisma: PrismaClient, q: Filters): Promise<SampleRow[]> {
  const versions = await prisma.$queryRaw<VersionRow[]>`
    SELECT v.id::text, s.key AS scenario_key, v.version_hash, v.comparisons
    FROM scenario_versions v JOIN scenarios s ON s.id = v.scenario_id
    ${q.scenario !== undefined ? Prisma.sql`WHERE s.key = ${q.scenario}` : Prisma.empty}`;
  if (versions.length === 0) return [];

  let profiles: ProfileRow[] | null = null;
  if (hasHardwareFilter(q)) {
    const hw: Prisma.Sql[] = [];
    if (q.hardware !== undefined) hw.push(Prisma.sql`fingerprint = ${q.hardware}`);
    if (q.storage !== undefined) hw.push(Prisma.sql`storage_kind = ${q.storage}`);
    if (q.minCores !== undefined) hw.push(Prisma.sql`physical_cores >= ${q.minCores}::int`);
    if (q.maxCores !== undefined) hw.push(Prisma.sql`physical_cores <= ${q.maxCores}::int`);
    // Memory is compared in whole GiB, rounded as in the hardware class.
    if (q.minMemoryGb !== undefined) hw.push(Prisma.sql`memory_bytes >= ${String(Math.round((q.minMemoryGb - 0.5) * GIB))}::bigint`);
    if (q.maxMemoryGb !== undefined) hw.push(Prisma.sql`memory_bytes < ${String(Math.round((q.maxMemoryGb + 0.5) * GIB))}::bigint`);
    profiles = await prisma.$queryRaw<ProfileRow[]>`SELECT ${PROFILE_COLUMNS} FROM hardware_profiles WHERE ${Prisma.join(hw, ' AND ')}`;
    if (profiles.length === 0) return [];
  }

  const where: Prisma.Sql[] = [Prisma.sql`scenario_version_id = ANY(${versions.map((v) => v.id)}::uuid[])`, Prisma.sql`metric = ${q.metric}`];
  if (profiles) where.push(Prisma.sql`hardware_profile_id = ANY(${profiles.map((p) => p.id)}::uuid[])`);
  if (q.baseline !== undefined && q.candidate !== undefined) where.push(Prisma.sql`variant IN (${q.baseline}, ${q.candidate})`);
  const samples = await prisma.$queryRaw<{ variant: string; repetition: number; value: number; unit: string; run_id: string; scenario_version_id: string; hardware_profile_id: string }[]>`
    SELECT variant, repetition, value, unit, run_id::text, scenario_version_id::text, hardware_profile_id::text
    FROM samples WHERE ${Prisma.join(where, ' AND ')}`;
  if (samples.length === 0) return [];

  const runWhere: Prisma.Sql[] = [Prisma.sql`r.id = ANY(${[...new Set(samples.map((x) => x.run_id))]}::uuid[])`];
  if (q.source !== 'all') runWhere.push(Prisma.sql`r.source = ${q.source}`);
  if (q.engine !== undefined) runWhere.push(Prisma.sql`de.engine = ${q.engine}`);
  if (q.engineMajor !== undefined) runWhere.push(Prisma.sql`de.major = ${q.engineMajor}::int`);
  const runs = await prisma.$queryRaw<RunRow[]>`
    SELECT r.id::text, r.source, r.received_at, de.engine, de.version AS db_version, de.major, de.minor
    FROM runs r JOIN database_environments de ON de.id = r.database_environment_id
    WHERE ${Prisma.join(runWhere, ' AND ')}`;
  if (runs.length === 0) return [];

  if (!profiles) {
    const ids = [...new Set(samples.map((x) => x.hardware_profile_id))];
    profiles = await prisma.$queryRaw<ProfileRow[]>`SELECT ${PROFILE_COLUMNS} FROM hardware_profiles WHERE id = ANY(${ids}::uuid[])`;
  }
  const versionById = new Map(versions.map((v) => [v.id, v]));
  const profileById = new Map(profiles.map((p) => [p.id, p]));
  const runById = new Map(runs.map((r) => [r.id, r]));
  return samples.flatMap((x) => {
    const v = versionById.get(x.scenario_version_id);
    const h = profileById.get(x.hardware_profile_id);
    const r = runById.get(x.run_id);
    if (!v || !h || !r) return [];
    return [{
      variant: x.variant,
      repetition: x.repetition,
      value: x.value,
      unit: x.unit,
      run_id: x.run_id,
      scenario_key: v.scenario_key,
      version_hash: v.version_hash,
      comparisons: v.comparisons,
      fingerprint: h.fingerprint,
      hardware_class: h.hardware_class,
      cpu_model: h.cpu_model,
      storage_kind: h.storage_kind,
      physical_cores: h.physical_cores,
      memory_bytes: h.memory_bytes,
      source: r.source,
      received_at: r.received_at,
      engine: r.engine,
      db_version: r.db_version,
      major: r.major,
      minor: r.minor,
    }];
  });
}

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
    p && typeof p === 'object' && typeof (p as { baseline?: unknown }).baseline === 'string' && typeof (p as { candidate?: unknown }).candidate === 'string'
      ? [{ baseline: (p as { baseline: string }).baseline, candidate: (p as { candidate: string }).candidate }]
      : [],
  );
}

function comparePair(baseline: string, candidate: string, a: number[] | undefined, b: number[] | undefined, direction: MetricDirection): PairComparison {
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
      verdict: { kind: 'insufficient-data', sentence: `No runs of ${missing.join(' and ')} in this group, so ${candidate} cannot be compared with ${baseline}`, significant: false },
    };
  }
  const v = verdict({ baseline: { label: baseline, values: a }, candidate: { label: candidate, values: b }, direction });
  const enough = a.length >= 2 && b.length >= 2;
  const welch = enough ? welchTTest(b, a) : null;
  const mw = mannWhitneyU(b, a, { method: 'auto' });
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return {
    baseline,
    candidate,
    direction,
    difference: mean(b) - mean(a),
    improvement: v.relative,
    ci95: v.ci ? bounds(v.ci) : null,
    welch: welch ? { t: finite(welch.t), df: welch.df, p: welch.p } : null,
    mannWhitney: { u: mw.u, p: mw.p, method: mw.method },
    verdict: { kind: v.kind, sentence: v.sentence, significant: v.kind === 'faster' || v.kind === 'slower' },
  };
}

function buildGroup(key: string, acc: Acc, q: Filters): ComparisonGroup {
  const f = acc.first;
  const variants = [...acc.byVariant.keys()].sort();
  const summaries = variants.map((variant) => {
    const xs = acc.byVariant.get(variant) ?? [];
    const s = summarize(xs.map((x) => x.value));
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

  let pairsFrom: ComparisonGroup['pairsFrom'];
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
  const comparisons = pairs.map((p) => comparePair(p.baseline, p.candidate, values(p.baseline), values(p.candidate), q.direction));

  const databases = [...acc.databases.values()]
    .map((d) => ({ engine: Engine.parse(d.engine), version: d.version, major: d.major, minor: d.minor, runs: d.runs.size }))
    .sort((x, y) => y.runs - x.runs || x.version.localeCompare(y.version));
  const warnings: string[] = [];
  const majors = new Set(databases.map((d) => `${d.engine} ${d.major}`));
  if (majors.size > 1) warnings.push(`runs on ${[...majors].join(', ')} are pooled in this group; filter with engine/engineMajor to separate them`);
  if (f.source === 'published') warnings.push('published figures, as the article reported them; not measured by TuneLab');
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
    databaseVersions: databases,
    runCount: runs.length,
    newestRunAt: (runs[0]?.[1] ?? new Date(0)).toISOString(),
    runs: runs.slice(0, MAX_RUN_LINKS).map(([id, at]) => ({ id, receivedAt: at.toISOString(), link: `/v1/runs/${id}` })),
    variants: summaries,
    pairsFrom,
    comparisons,
    warnings,
  };
}

/** Per group: per-variant summaries and, per comparison pair, difference, CI, p-values, verdict. */
export async function compareVariants(prisma: PrismaClient, q: Filters): Promise<ComparisonResult> {
  const rows = await loadSamples(prisma, q);
  const groups = new Map<string, Acc>();
  for (const r of rows) {
    const who = q.groupBy === 'hardware' ? r.fingerprint : r.hardware_class;
    const key = `${r.scenario_key}@${r.version_hash.slice(0, 12)}/${r.source}/${who}/${q.metric}[${r.unit}]`;
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
    if (!db) acc.databases.set(dbKey, (db = { engine: r.engine, version: r.db_version, major: r.major, minor: r.minor, runs: new Set() }));
    db.runs.add(r.run_id);
  }
  for (const acc of groups.values()) {
    // Stable input order (by run, then repetition) so outlier indices and tests are deterministic.
    for (const list of acc.byVariant.values()) list.sort((x, y) => (x.runId < y.runId ? -1 : x.runId > y.runId ? 1 : x.repetition - y.repetition));
  }
  const out = [...groups.entries()].map(([key, acc]) => buildGroup(key, acc, q));
  out.sort(
    (x, y) =>
      x.scenario.key.localeCompare(y.scenario.key) ||
      x.source.localeCompare(y.source) ||
      // Published figures have no meaningful age: they keep the article's machine order.
      (x.source === 'published' ? (x.hardware.cpuModel ?? x.hardware.class).localeCompare(y.hardware.cpuModel ?? y.hardware.class) : 0) ||
      y.newestRunAt.localeCompare(x.newestRunAt) ||
      x.key.localeCompare(y.key),
  );
  return { metric: q.metric, source: q.source, groupBy: q.groupBy, direction: q.direction, groups: out };
}

function comparisonLink(g: ComparisonGroup, q: FindingsQuery): string {
  const p = new URLSearchParams({ scenario: g.scenario.key, metric: g.metric, source: g.source, groupBy: q.groupBy, direction: q.direction });
  if (g.hardware.fingerprint) p.set('hardware', g.hardware.fingerprint);
  else {
    p.set('storage', g.hardware.storageKind);
    p.set('minCores', String(g.hardware.physicalCores));
    p.set('maxCores', String(g.hardware.physicalCores));
    p.set('minMemoryGb', String(g.hardware.memoryGb));
    p.set('maxMemoryGb', String(g.hardware.memoryGb));
  }
  return `/v1/comparisons?${p.toString()}`;
}

/**
 * One finding per comparison pair of each group, newest data first: the verdict sentence with
 * the runs behind it. Shared by the API (`/v1/findings`) and the site (home page, feed).
 */
export function findingsOf(groups: ComparisonGroup[], linkOf: (g: ComparisonGroup) => string): Finding[] {
  const items = groups.flatMap((g) =>
    g.comparisons.map((c) => ({
      scenario: g.scenario,
      group: g.key,
      source: g.source,
      hardwareClass: g.hardware.class,
      fingerprint: g.hardware.fingerprint,
      metric: g.metric,
      baseline: c.baseline,
      candidate: c.candidate,
      kind: c.verdict.kind,
      sentence: c.verdict.sentence,
      newestRunAt: g.newestRunAt,
      runs: g.runs.map((r) => r.link),
      links: { comparison: linkOf(g) },
    })),
  );
  return items.sort((x, y) => y.newestRunAt.localeCompare(x.newestRunAt) || x.group.localeCompare(y.group) || x.candidate.localeCompare(y.candidate));
}

/** Verdict sentences per scenario × group × pair, newest data first, with the runs behind each. */
export async function listFindings(prisma: PrismaClient, q: FindingsQuery): Promise<{ items: Finding[] }> {
  const { limit, ...filters } = q;
  const result = await compareVariants(prisma, filters);
  return { items: findingsOf(result.groups, (g) => comparisonLink(g, q)).slice(0, limit) };
}

/**
 * The hardware classes closest to a machine: same storage kind first, then by
 * |log2(cores ratio)| + |log2(memory ratio)| (doubling the cores counts as much as doubling the
 * memory), then the most runs. Unknown storage sorts last. Null when the fingerprint is unknown.
 */
export async function findSimilarHardware(prisma: PrismaClient, fingerprint: string, q: SimilarHardwareQuery): Promise<SimilarHardware | null> {
  const machine = await prisma.hardwareProfile.findUnique({
    where: { fingerprint },
    select: { fingerprint: true, hardwareClass: true, storageKind: true, physicalCores: true, memoryBytes: true },
  });
  if (!machine) return null;
  const conditions: Prisma.Sql[] = [];
  if (q.scenario !== undefined) conditions.push(Prisma.sql`sc.key = ${q.scenario}`);
  if (q.source !== 'all') conditions.push(Prisma.sql`r.source = ${q.source}`);
  const rows = await prisma.$queryRaw<
    { hardware_class: string; source: string; storage_kind: string; physical_cores: number; memory_gb: number; profiles: bigint; runs: bigint; scenarios: string[]; newest: Date }[]
  >`
    SELECT h.hardware_class, r.source, h.storage_kind, h.physical_cores, round(h.memory_bytes / ${GIB}::float8)::int AS memory_gb,
           count(DISTINCT h.id) AS profiles, count(*) AS runs, array_agg(DISTINCT sc.key) AS scenarios, max(r.received_at) AS newest
    FROM runs r
    JOIN hardware_profiles h ON h.id = r.hardware_profile_id
    JOIN scenario_versions v ON v.id = r.scenario_version_id
    JOIN scenarios sc ON sc.id = v.scenario_id
    ${conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty}
    GROUP BY 1, 2, 3, 4, 5`;
  const cores = machine.physicalCores;
  const memGb = Math.max(1, Math.round(Number(machine.memoryBytes) / GIB));
  const items = rows
    .map((r) => {
      const sameStorage = r.storage_kind === machine.storageKind;
      const distance = Math.abs(Math.log2(r.physical_cores / cores)) + Math.abs(Math.log2(Math.max(1, r.memory_gb) / memGb));
      const p = new URLSearchParams({
        storage: r.storage_kind,
        minCores: String(r.physical_cores),
        maxCores: String(r.physical_cores),
        minMemoryGb: String(r.memory_gb),
        maxMemoryGb: String(r.memory_gb),
        source: r.source,
        groupBy: 'class',
      });
      if (q.scenario !== undefined) p.set('scenario', q.scenario);
      return {
        class: r.hardware_class,
        source: r.source === 'published' ? ('published' as const) : ('measured' as const),
        storageKind: StorageKind.parse(r.storage_kind),
        physicalCores: r.physical_cores,
        memoryGb: r.memory_gb,
        sameStorage,
        distance: Number(distance.toFixed(4)),
        profiles: Number(r.profiles),
        runs: Number(r.runs),
        scenarios: [...r.scenarios].sort(),
        newestRunAt: r.newest.toISOString(),
        links: { comparisons: `/v1/comparisons?${p.toString()}` },
      };
    })
    .sort(
      (x, y) =>
        Number(y.sameStorage) - Number(x.sameStorage) ||
        Number(x.storageKind === 'unknown') - Number(y.storageKind === 'unknown') ||
        x.distance - y.distance ||
        y.runs - x.runs ||
        x.class.localeCompare(y.class) ||
        x.source.localeCompare(y.source),
    )
    .slice(0, q.limit);
  return {
    machine: {
      fingerprint: machine.fingerprint,
      class: machine.hardwareClass,
      storageKind: StorageKind.parse(machine.storageKind),
      physicalCores: machine.physicalCores,
      memoryGb: Math.round(Number(machine.memoryBytes) / GIB),
    },
    items,
  };
}
