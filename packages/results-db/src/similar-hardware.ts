/** "Hardware like mine": the hardware classes closest to a machine, by storage, cores and memory. */
import {
  type ComparisonParams,
  type SimilarBySpecQuery,
  type SimilarBySpecRecord,
  type SimilarHardwareRecord,
  type SimilarHardwareQuery,
  StorageKind,
} from '@tunelab/contracts';
import { isLike, rankSimilar as rankClasses } from '@tunelab/answers/similar';
import { Prisma, type PrismaClient } from './generated/prisma/client.ts';
import { GIB } from './comparison-samples.ts';
import type { DbContext, Queries } from './context.ts';

/** The placeholder CPU model published.ts gives an article's machine the article never described. */
const UNDESCRIBED = '%hardware not described%';

/**
 * The hardware classes closest to a machine, ranked by `rankSimilar` of `@tunelab/answers` (the
 * site's picker ranks with it too): same storage kind first, then by |log2(cores ratio)| +
 * |log2(memory ratio)|, then the most runs; unknown storage last. Null when the fingerprint is unknown.
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
  if (fingerprints.length === 0) return out;
  const machines = await prisma.hardwareProfile.findMany({
    where: { fingerprint: { in: [...fingerprints] } },
    select: { fingerprint: true, hardwareClass: true, storageKind: true, physicalCores: true, memoryBytes: true },
  });
  if (machines.length === 0) return out;
  const rows = await similarRows(prisma, q);
  for (const machine of machines) {
    const memoryGb = Math.round(Number(machine.memoryBytes) / GIB);
    out.set(machine.fingerprint, {
      machine: {
        fingerprint: machine.fingerprint,
        class: machine.hardwareClass,
        storageKind: StorageKind.parse(machine.storageKind),
        physicalCores: machine.physicalCores,
        memoryGb,
      },
      items: rankRows(rows, { cores: machine.physicalCores, memoryGb, storage: machine.storageKind }, q),
    });
  }
  return out;
}

/**
 * The classes closest to a machine described by its spec (a new user's machine, never stored).
 * `like` is false when no class has the same storage kind within two doublings: the nearest one
 * is then listed, but it is not hardware like this.
 */
export async function findSimilarBySpec(prisma: PrismaClient, q: SimilarBySpecQuery): Promise<SimilarBySpecRecord> {
  const { cores, memoryGb, storage, ...rest } = q;
  const items = await rankSimilar(prisma, { cores, memoryGb, storage }, rest);
  return {
    spec: { cores, memoryGb, storage },
    like: items.some(isLike),
    items,
  };
}

async function rankSimilar(
  prisma: PrismaClient,
  spec: { cores: number; memoryGb: number; storage: string },
  q: Omit<SimilarHardwareQuery, never>,
): Promise<SimilarHardwareRecord['items']> {
  return rankRows(await similarRows(prisma, q), spec, q);
}

type ClassRow = {
  hardware_class: string;
  source: string;
  storage_kind: string;
  physical_cores: number;
  memory_gb: number;
  profiles: bigint;
  runs: bigint;
  scenarios: string[];
  newest: Date;
};

/** Runs per hardware class and source (what every machine's ranking is made from). */
async function similarRows(prisma: PrismaClient, q: Omit<SimilarHardwareQuery, never>): Promise<ClassRow[]> {
  // An article's machine it never described has placeholder cores and memory: never ranked as hardware.
  const conditions: Prisma.Sql[] = [Prisma.sql`NOT (r.source = 'published' AND h.cpu_model LIKE ${UNDESCRIBED})`];
  if (q.scenario !== undefined) conditions.push(Prisma.sql`sc.key = ${q.scenario}`);
  if (q.source !== 'all') conditions.push(Prisma.sql`r.source = ${q.source}`);
  return prisma.$queryRaw<ClassRow[]>`
    SELECT h.hardware_class, r.source, h.storage_kind, h.physical_cores, round(h.memory_bytes / ${GIB}::float8)::int AS memory_gb,
           count(DISTINCT h.id) AS profiles, count(*) AS runs, array_agg(DISTINCT sc.key) AS scenarios, max(r.received_at) AS newest
    FROM runs r
    JOIN hardware_profiles h ON h.id = r.hardware_profile_id
    JOIN scenario_versions v ON v.id = r.scenario_version_id
    JOIN scenarios sc ON sc.id = v.scenario_id
    ${conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty}
    GROUP BY 1, 2, 3, 4, 5`;
}

function rankRows(
  rows: readonly ClassRow[],
  spec: { cores: number; memoryGb: number; storage: string },
  q: Omit<SimilarHardwareQuery, never>,
): SimilarHardwareRecord['items'] {
  const candidates = rows.map((r) => ({
    class: r.hardware_class,
    source: r.source === 'published' ? ('published' as const) : ('measured' as const),
    storageKind: StorageKind.parse(r.storage_kind),
    physicalCores: r.physical_cores,
    memoryGb: r.memory_gb,
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
      physicalCores: c.physicalCores,
      memoryGb: c.memoryGb,
      sameStorage: c.sameStorage,
      distance: c.distance,
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
  /** "Hardware like mine" for a machine given by its spec (cores, memory, storage kind). */
  findSimilarBySpec: (db: DbContext, q: SimilarBySpecQuery) => findSimilarBySpec(db.prisma, q),
} satisfies Queries;
