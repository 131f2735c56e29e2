/**
 * "Hardware like mine": the hardware classes closest to a machine, by storage, cores, memory and
 * the figures its probe measured (`@tunelab/answers/similar` ranks; this reads the classes, their
 * runs and the probes of those runs).
 */
import {
  type ComparisonParams,
  type SimilarBySpecQuery,
  type SimilarBySpecRecord,
  type SimilarHardwareRecord,
  type SimilarHardwareQuery,
  similarSpecOf,
  SimilarStorage,
  StorageKind,
  StorageTier,
} from '@tunelab/contracts';
import {
  classFigures,
  isLike,
  rankSimilar as rankClasses,
  similarStorageOf,
  type ProbeFigures,
  type SimilarCandidate,
  type SimilarSpec,
} from '@tunelab/answers/similar';
import { Prisma, type PrismaClient } from './generated/prisma/client.ts';
import { GIB } from './comparison-samples.ts';
import type { DbContext, Queries } from './context.ts';

/** The placeholder CPU model published.ts gives an article's machine the article never described. */
const UNDESCRIBED = '%hardware not described%';

/**
 * The hardware classes closest to a machine, ranked by `rankSimilar` of `@tunelab/answers` (the
 * site's picker ranks with it too): same storage first, then the mean |log2 ratio| over the
 * figures both have (cores, memory, and the probe's where both were probed), then the most runs;
 * unknown storage last. The machine's figures are the median of all its probes. Null when the
 * fingerprint is unknown.
 */
export async function findSimilarHardware(
  prisma: PrismaClient,
  fingerprint: string,
  q: SimilarHardwareQuery,
): Promise<SimilarHardwareRecord | null> {
  return (await findSimilarHardwareMany(prisma, [fingerprint], q)).get(fingerprint) ?? null;
}

/** findSimilarHardware for several machines, the classes aggregated once (the site build asks per class). */
export async function findSimilarHardwareMany(
  prisma: PrismaClient,
  fingerprints: readonly string[],
  q: SimilarHardwareQuery,
): Promise<Map<string, SimilarHardwareRecord>> {
  const out = new Map<string, SimilarHardwareRecord>();
  const machines = await similarMachines(prisma, fingerprints);
  if (machines.size === 0) return out;
  const rows = await similarRows(prisma, q);
  for (const machine of machines.values()) {
    const { physicalCores: cores, memoryGb, storageKind: storage, storageTier, figures } = machine;
    out.set(machine.fingerprint, {
      machine,
      items: rankRows(rows, { cores, memoryGb, storage, storageTier, figures }, q),
    });
  }
  return out;
}

/**
 * Stored machines as "hardware like mine" ranks them, by fingerprint (unknown ones left out):
 * cores, memory in GB, storage kind and tier, and the median of all their probes.
 */
export async function similarMachines(
  prisma: PrismaClient,
  fingerprints: readonly string[],
): Promise<Map<string, SimilarHardwareRecord['machine']>> {
  const out = new Map<string, SimilarHardwareRecord['machine']>();
  if (fingerprints.length === 0) return out;
  const machines = await prisma.hardwareProfile.findMany({
    where: { fingerprint: { in: [...fingerprints] } },
    select: {
      fingerprint: true,
      hardwareClass: true,
      storageKind: true,
      storageTier: true,
      physicalCores: true,
      memoryBytes: true,
      measurements: {
        select: { fsyncP50Us: true, readIopsQd1: true, seqWriteMBps: true, cpuScore: true, cpuWorkload: true },
      },
    },
  });
  for (const machine of machines) {
    const storageKind = StorageKind.parse(machine.storageKind);
    const storageTier = machine.storageTier === null ? null : StorageTier.parse(machine.storageTier);
    out.set(machine.fingerprint, {
      fingerprint: machine.fingerprint,
      class: machine.hardwareClass,
      storageKind,
      storageTier,
      storage: SimilarStorage.parse(similarStorageOf(storageKind, storageTier)),
      physicalCores: machine.physicalCores,
      memoryGb: Math.round(Number(machine.memoryBytes) / GIB),
      figures: classFigures(machine.measurements),
      probes: machine.measurements.length,
    });
  }
  return out;
}

/**
 * The classes closest to a machine described by its spec and figures (a new user's machine, never
 * stored). `like` is false when no class has the same known storage within a mean of one doubling
 * per figure: the nearest one is then listed, but it is not hardware like this.
 */
export async function findSimilarBySpec(prisma: PrismaClient, q: SimilarBySpecQuery): Promise<SimilarBySpecRecord> {
  const spec = similarSpecOf(q);
  const items = rankRows(await similarRows(prisma, q), spec, q);
  return {
    spec: { ...spec, storage: SimilarStorage.parse(similarStorageOf(spec.storage, spec.storageTier)) },
    like: items.some(isLike),
    items,
  };
}

type ClassRow = {
  hardware_class: string;
  source: string;
  storage_kind: string;
  storage_tier: string | null;
  physical_cores: number;
  memory_gb: number;
  profiles: bigint;
  runs: bigint;
  scenarios: string[];
  newest: Date;
  /** The probes of the class's runs (json_agg: numbers as PostgreSQL prints float8, which round-trip exactly). */
  probes: ProbeFigures[] | null;
};

/** Runs per hardware class and source, with their runs' probes (what every machine's ranking is made from). */
async function similarRows(
  prisma: PrismaClient,
  q: Pick<SimilarHardwareQuery, 'scenario' | 'source'>,
): Promise<ClassRow[]> {
  // An article's machine it never described has placeholder cores and memory: never ranked as hardware.
  const conditions: Prisma.Sql[] = [Prisma.sql`NOT (r.source = 'published' AND h.cpu_model LIKE ${UNDESCRIBED})`];
  if (q.scenario !== undefined) conditions.push(Prisma.sql`sc.key = ${q.scenario}`);
  if (q.source !== 'all') conditions.push(Prisma.sql`r.source = ${q.source}`);
  return prisma.$queryRaw<ClassRow[]>`
    SELECT h.hardware_class, r.source, h.storage_kind, h.storage_tier, h.physical_cores,
           round(h.memory_bytes / ${GIB}::float8)::int AS memory_gb,
           count(DISTINCT h.id) AS profiles, count(*) AS runs, array_agg(DISTINCT sc.key) AS scenarios, max(r.received_at) AS newest,
           json_agg(json_build_object('fsyncP50Us', m.fsync_p50_us, 'readIopsQd1', m.read_iops_qd1,
                                      'seqWriteMBps', m.seq_write_mbps, 'cpuScore', m.cpu_score, 'cpuWorkload', m.cpu_workload))
             FILTER (WHERE m.run_id IS NOT NULL) AS probes
    FROM runs r
    JOIN hardware_profiles h ON h.id = r.hardware_profile_id
    JOIN scenario_versions v ON v.id = r.scenario_version_id
    JOIN scenarios sc ON sc.id = v.scenario_id
    LEFT JOIN hardware_measurements m ON m.run_id = r.id
    ${conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty}
    GROUP BY 1, 2, 3, 4, 5, 6`;
}

/**
 * The hardware classes of a scenario's runs of one source as `rankSimilar` takes them, one per
 * class (rows of one class name on several storage kinds or tiers pooled: their probes together,
 * the kind and tier of the one with the most runs). GET /v1/answers ranks its groups' classes with these.
 */
export async function similarClasses(
  prisma: PrismaClient,
  q: { scenario: string; source: 'measured' | 'published' },
): Promise<SimilarCandidate[]> {
  const byClass = new Map<string, ClassRow[]>();
  for (const r of await similarRows(prisma, q)) {
    const list = byClass.get(r.hardware_class);
    if (list) list.push(r);
    else byClass.set(r.hardware_class, [r]);
  }
  return [...byClass.values()].map((rows) => {
    const main = rows.reduce((a, b) => (Number(b.runs) > Number(a.runs) ? b : a));
    return {
      class: main.hardware_class,
      source: main.source,
      storageKind: main.storage_kind,
      storageTier: main.storage_tier,
      physicalCores: main.physical_cores,
      memoryGb: main.memory_gb,
      runs: rows.reduce((n, r) => n + Number(r.runs), 0),
      figures: classFigures(rows.flatMap((r) => r.probes ?? [])),
    };
  });
}

function rankRows(
  rows: readonly ClassRow[],
  spec: SimilarSpec,
  q: Pick<SimilarHardwareQuery, 'scenario' | 'limit'>,
): SimilarHardwareRecord['items'] {
  const candidates = rows.map((r) => ({
    class: r.hardware_class,
    source: r.source === 'published' ? ('published' as const) : ('measured' as const),
    storageKind: StorageKind.parse(r.storage_kind),
    storageTier: r.storage_tier === null ? null : StorageTier.parse(r.storage_tier),
    physicalCores: r.physical_cores,
    memoryGb: r.memory_gb,
    figures: classFigures(r.probes ?? []),
    probes: r.probes?.length ?? 0,
    runs: Number(r.runs),
    profiles: Number(r.profiles),
    scenarios: [...r.scenarios].sort(),
    newestRunAt: r.newest.toISOString(),
  }));
  return rankClasses(candidates, spec, q.limit).map((c) => {
    const comparison: ComparisonParams = {
      storage: c.storageKind,
      minCores: String(c.physicalCores),
      maxCores: String(c.physicalCores),
      minMemoryGb: String(c.memoryGb),
      maxMemoryGb: String(c.memoryGb),
      source: c.source,
      groupBy: 'class',
      ...(q.scenario !== undefined ? { scenario: q.scenario } : {}),
    };
    return {
      class: c.class,
      source: c.source,
      storageKind: c.storageKind,
      storageTier: c.storageTier,
      storage: SimilarStorage.parse(c.storage),
      physicalCores: c.physicalCores,
      memoryGb: c.memoryGb,
      figures: c.figures,
      probes: c.probes,
      sameStorage: c.sameStorage,
      distance: c.distance,
      basis: c.basis,
      profiles: c.profiles,
      runs: c.runs,
      scenarios: c.scenarios,
      newestRunAt: c.newestRunAt,
      comparison,
    };
  });
}

/** "Hardware like mine" as `ResultsDb` methods (see context.ts). */
export const similarHardwareQueries = {
  findSimilarHardware: (db: DbContext, fingerprint: string, q: SimilarHardwareQuery) =>
    findSimilarHardware(db.prisma, fingerprint, q),
  /** findSimilarHardware for several machines at once (one aggregate), by fingerprint; unknown ones left out. */
  findSimilarHardwareMany: (db: DbContext, fingerprints: readonly string[], q: SimilarHardwareQuery) =>
    findSimilarHardwareMany(db.prisma, fingerprints, q),
  /** "Hardware like mine" for a machine given by its spec (cores, memory, storage) and its probe's figures. */
  findSimilarBySpec: (db: DbContext, q: SimilarBySpecQuery) => findSimilarBySpec(db.prisma, q),
} satisfies Queries;
