import type {
  HardwareDetailRecord,
  HardwareListQuery,
  HardwareSummaryRecord,
  RunDetailRecord,
  RunListQuery,
  RunSummaryRecord,
  ScenarioList,
} from '@tunelab/contracts';
import {
  DatabaseEnvironment as DatabaseEnvironmentSchema,
  HardwareSpec as HardwareSpecSchema,
  noiseDetailOf,
  RunSubmissionOptions,
  RunNote,
  StorageKind,
  StorageTier,
  MeasuredHardware,
  HARDWARE_MEASUREMENTS_SHOWN,
} from '@tunelab/contracts';
import { z } from 'zod';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { Prisma } from './generated/prisma/client.ts';
import type { DbContext, Queries } from './context.ts';

/** Opaque keyset cursor: (receivedAt, id) of the last row of the previous page. */
export class CursorError extends Error {}

function encodeCursor(at: Date, id: string) {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}
function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  // Only what encodeCursor writes: a negative or 5-digit year would reach PostgreSQL as a timestamp it rejects.
  const date = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at ?? '')
    ? new Date(at ?? '')
    : new Date(Number.NaN);
  if (!id || Number.isNaN(date.getTime()) || !/^[0-9a-f-]{36}$/.test(id))
    throw new CursorError('cursor is not one returned by a previous page');
  return { at: date, id };
}

export const runSummarySelect = {
  id: true,
  source: true,
  status: true,
  runnerVersion: true,
  startedAt: true,
  finishedAt: true,
  receivedAt: true,
  sampleCount: true,
  runner: { select: { publicLabel: true } },
  scenarioVersion: { select: { versionHash: true, scenario: { select: { key: true } } } },
  hardwareProfile: { select: { fingerprint: true, hardwareClass: true } },
  databaseEnvironment: { select: { engine: true, version: true, major: true, minor: true, settings: true } },
} satisfies Prisma.RunSelect;

type RunRow = Prisma.RunGetPayload<{ select: typeof runSummarySelect }>;

export function toSummary(r: RunRow): RunSummaryRecord {
  return {
    id: r.id,
    source: r.source === 'published' ? 'published' : 'measured',
    status: 'stored',
    scenario: { key: r.scenarioVersion.scenario.key, version: r.scenarioVersion.versionHash },
    hardware: { fingerprint: r.hardwareProfile.fingerprint, class: r.hardwareProfile.hardwareClass },
    database: {
      engine: DatabaseEnvironmentSchema.shape.engine.parse(r.databaseEnvironment.engine),
      version: r.databaseEnvironment.version,
      major: r.databaseEnvironment.major,
      minor: r.databaseEnvironment.minor,
    },
    // The operator's name for a runner may name an internal host: only a label it chose to publish.
    runner: r.runner?.publicLabel ?? null,
    runnerVersion: r.runnerVersion,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt.toISOString(),
    receivedAt: r.receivedAt.toISOString(),
    samples: r.sampleCount,
  };
}

export async function listRuns(
  prisma: PrismaClient,
  q: RunListQuery,
): Promise<{ items: RunSummaryRecord[]; nextCursor: string | null }> {
  const where: Prisma.RunWhereInput = {};
  if (q.scenario) where.scenarioVersion = { scenario: { key: q.scenario } };
  if (q.hardware || q.class) {
    where.hardwareProfile = {
      ...(q.hardware ? { fingerprint: q.hardware } : {}),
      ...(q.class ? { hardwareClass: q.class } : {}),
    };
  }
  if (q.engine) where.databaseEnvironment = { engine: q.engine };
  if (q.source !== 'all') where.source = q.source;
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    where.OR = [{ receivedAt: { lt: c.at } }, { receivedAt: c.at, id: { lt: c.id } }];
  }
  const rows = await prisma.run.findMany({
    where,
    orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
    take: q.limit + 1,
    select: runSummarySelect,
  });
  return pageOf(rows, q.limit, toSummary, (last) => encodeCursor(last.receivedAt, last.id));
}

/**
 * One page of a list read with one row more than `limit` (`take: limit + 1`): its items, and the
 * cursor after its last row when that extra row says there are more.
 */
function pageOf<T, U>(rows: readonly T[], limit: number, item: (r: T) => U, cursorOf: (last: T) => string) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map((r) => item(r)), nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}

export const storedSubmission = z.object({
  options: RunSubmissionOptions.optional(),
  order: z.array(z.object({ variant: z.string(), repetition: z.number() })).optional(),
  notes: z.array(RunNote).optional(),
  warnings: z.array(z.string()).optional(),
  hardware: z.object({ measured: MeasuredHardware.optional() }).optional(),
});

/**
 * A run's hardware: its machine's spec (as first reported) with this run's own probe figures, or
 * none when this run did not measure (the profile's copy belongs to another run).
 */
export function runHardwareSpec(profileSpec: unknown, doc: z.infer<typeof storedSubmission>) {
  const { measured: _first, ...spec } = HardwareSpecSchema.parse(profileSpec);
  const measured = doc.hardware?.measured;
  return measured ? { ...spec, measured } : spec;
}

export async function getRun(prisma: PrismaClient, id: string): Promise<RunDetailRecord | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  // Samples and points name their run without a Prisma relation (no foreign key, see
  // prisma/migrations/20261123230000_run_children_without_foreign_keys): read beside the run.
  const [r, samples, timeSeries] = await Promise.all([
    prisma.run.findUnique({
      where: { id },
      select: {
        ...runSummarySelect,
        params: true,
        document: true,
        noise: true,
        hardwareProfile: { select: { fingerprint: true, hardwareClass: true, spec: true } },
      },
    }),
    prisma.sample.findMany({
      where: { runId: id },
      orderBy: [{ variant: 'asc' }, { repetition: 'asc' }, { metric: 'asc' }, { pointValue: 'asc' }],
      select: {
        variant: true,
        repetition: true,
        metric: true,
        unit: true,
        value: true,
        pointParam: true,
        pointValue: true,
      },
    }),
    prisma.timeSeriesPoint.findMany({
      where: { runId: id },
      orderBy: { id: 'asc' },
      select: {
        variant: true,
        repetition: true,
        metric: true,
        x: true,
        value: true,
        pointParam: true,
        pointValue: true,
      },
    }),
  ]);
  if (!r) return null;
  const doc = storedSubmission.parse(r.document);
  const env = r.databaseEnvironment;
  return {
    ...toSummary(r),
    samples: samples.map(({ pointParam, pointValue, ...x }) => withPoint(x, pointParam, pointValue)),
    params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).parse(r.params),
    hardwareSpec: runHardwareSpec(r.hardwareProfile.spec, doc),
    databaseEnvironment: DatabaseEnvironmentSchema.parse({
      engine: env.engine,
      version: env.version,
      major: env.major,
      minor: env.minor,
      settings: env.settings,
    }),
    timeSeries: timeSeries.map(({ pointParam, pointValue, ...x }) => withPoint(x, pointParam, pointValue)),
    options: doc.options ?? null,
    notes: doc.notes ?? [],
    warnings: doc.warnings ?? [],
    order: doc.order ?? null,
    noise: noiseDetailOf(r.noise),
  };
}

const hardwareSelect = {
  fingerprint: true,
  hardwareClass: true,
  cpuModel: true,
  physicalCores: true,
  logicalCpus: true,
  memoryBytes: true,
  storageKind: true,
  storageModel: true,
  storageTier: true,
  firstSeenAt: true,
  lastSeenAt: true,
  _count: { select: { runs: true } },
} satisfies Prisma.HardwareProfileSelect;

function toHardwareSummary(
  h: Prisma.HardwareProfileGetPayload<{ select: typeof hardwareSelect }>,
): HardwareSummaryRecord {
  return {
    fingerprint: h.fingerprint,
    class: h.hardwareClass,
    cpuModel: h.cpuModel,
    physicalCores: h.physicalCores,
    logicalCpus: h.logicalCpus,
    memoryBytes: Number(h.memoryBytes),
    storageKind: StorageKind.parse(h.storageKind),
    storageModel: h.storageModel,
    storageTier: h.storageTier === null ? null : StorageTier.parse(h.storageTier),
    runs: h._count.runs,
    firstSeenAt: h.firstSeenAt.toISOString(),
    lastSeenAt: h.lastSeenAt.toISOString(),
  };
}

/** Hardware pages are ordered by fingerprint; the cursor is the last fingerprint. */
export async function listHardware(prisma: PrismaClient, q: HardwareListQuery) {
  if (q.cursor && !/^[0-9a-f]{64}$/.test(Buffer.from(q.cursor, 'base64url').toString('utf8'))) {
    throw new CursorError('cursor is not one returned by a previous page');
  }
  const after = q.cursor ? Buffer.from(q.cursor, 'base64url').toString('utf8') : undefined;
  const rows = await prisma.hardwareProfile.findMany({
    where: {
      ...(q.class ? { hardwareClass: q.class } : {}),
      ...(q.storage ? { storageKind: q.storage } : {}),
      ...(after ? { fingerprint: { gt: after } } : {}),
    },
    orderBy: { fingerprint: 'asc' },
    take: q.limit + 1,
    select: hardwareSelect,
  });
  return pageOf(rows, q.limit, toHardwareSummary, (last) => Buffer.from(last.fingerprint).toString('base64url'));
}

export async function getHardware(prisma: PrismaClient, fingerprint: string): Promise<HardwareDetailRecord | null> {
  const h = await prisma.hardwareProfile.findUnique({
    where: { fingerprint },
    select: { ...hardwareSelect, id: true, spec: true },
  });
  if (!h) return null;
  const perScenario = await prisma.$queryRaw<{ key: string; runs: bigint }[]>`
    SELECT s.key, count(*) AS runs
    FROM runs r JOIN scenario_versions v ON v.id = r.scenario_version_id JOIN scenarios s ON s.id = v.scenario_id
    WHERE r.hardware_profile_id = ${h.id}::uuid GROUP BY s.key ORDER BY s.key`;
  const measurements = await prisma.hardwareMeasurement.findMany({
    where: { hardwareProfileId: h.id },
    orderBy: { measuredAt: 'desc' },
    take: HARDWARE_MEASUREMENTS_SHOWN,
    omit: { hardwareProfileId: true },
  });
  return {
    ...toHardwareSummary(h),
    spec: HardwareSpecSchema.parse(h.spec),
    scenarios: perScenario.map((s) => ({ key: s.key, runs: Number(s.runs) })),
    measurements: measurements.map((m) => ({
      ...m,
      measuredAt: m.measuredAt.toISOString(),
      storageTier: m.storageTier === null ? null : StorageTier.parse(m.storageTier),
    })),
  };
}

export async function listScenarios(prisma: PrismaClient): Promise<ScenarioList> {
  const rows = await prisma.scenario.findMany({
    orderBy: { key: 'asc' },
    select: {
      key: true,
      title: true,
      versions: {
        orderBy: { createdAt: 'asc' },
        select: { versionHash: true, createdAt: true, _count: { select: { runs: true } } },
      },
    },
  });
  return {
    items: rows.map((s) => ({
      key: s.key,
      title: s.title,
      runs: s.versions.reduce((n, v) => n + v._count.runs, 0),
      versions: s.versions.map((v) => ({
        version: v.versionHash,
        firstSeenAt: v.createdAt.toISOString(),
        runs: v._count.runs,
      })),
    })),
  };
}

/** Adds `point` when the row was measured at a sweep point (both columns set). */
export function withPoint<T extends object>(
  row: T,
  param: string | null,
  value: number | null,
): T & { point?: { param: string; value: number } } {
  return param !== null && value !== null ? { ...row, point: { param, value } } : row;
}

/** Runs, hardware and scenarios as `ResultsDb` methods (see context.ts). */
export const runQueries = {
  listRuns: (db: DbContext, q: RunListQuery) => listRuns(db.prisma, q),
  getRun: (db: DbContext, id: string) => getRun(db.prisma, id),
  listHardware: (db: DbContext, q: HardwareListQuery) => listHardware(db.prisma, q),
  getHardware: (db: DbContext, fingerprint: string) => getHardware(db.prisma, fingerprint),
  listScenarios: (db: DbContext) => listScenarios(db.prisma),
} satisfies Queries;
