/**
 * Prototype for packages/results-db/src/ingest.ts, measured by `npm run bench:ingest -- --ingest unnest`.
 * A copy of the shipped ingestRun (same transaction, same idempotency handling, same bookkeeping as
 * openResultsDb().ingestRun) with one change: samples and time-series points are written with one
 * `INSERT … SELECT FROM unnest(<one array per column>)` each instead of Prisma `createMany`, so each
 * table costs one statement with a fixed number of parameters (5–6 arrays) however many rows there
 * are, instead of a VALUES list of rows × columns parameters that Prisma builds, binds and sends.
 */
import { hardwareClassOf, type RunAccepted } from '@tunelab/contracts';
import {
  hardwareFingerprint,
  IdempotencyConflictError,
  requestHash,
  settingsHash,
  type IngestInput,
  type IngestResult,
  type ResultsDb,
} from '@tunelab/results-db';

type PrismaClient = ResultsDb['prisma'];
type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

const runLink = (id: string) => `/v1/runs/${id}`;

function isUniqueViolation(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 6) return false;
  const e = err as { code?: unknown; kind?: unknown; cause?: unknown; originalCode?: unknown };
  if (e.code === 'P2002' || e.code === '23505' || e.originalCode === '23505' || e.kind === 'UniqueConstraintViolation') return true;
  return isUniqueViolation(e.cause, depth + 1);
}

/** Same contract as ResultsDb.ingestRun (including lastSeenAt / runner bookkeeping). */
export async function ingestRunUnnest(db: ResultsDb, input: IngestInput): Promise<IngestResult> {
  const prisma = db.prisma;
  const result = await ingestRun(prisma, input);
  if (result.outcome === 'created') {
    await prisma.hardwareProfile
      .update({ where: { fingerprint: result.run.hardware.fingerprint }, data: { lastSeenAt: new Date() } })
      .catch(() => {});
  }
  if (input.runnerId) await prisma.runner.update({ where: { id: input.runnerId }, data: { lastSeenAt: new Date() } }).catch(() => {});
  return result;
}

async function ingestRun(prisma: PrismaClient, input: IngestInput): Promise<IngestResult> {
  const hash = requestHash(input.document);
  const existing = await findByKey(prisma, input.idempotencyKey);
  if (existing) return replay(existing, hash, input.idempotencyKey);
  try {
    const run = await prisma.$transaction(async (tx) => storeRun(tx, input, hash), { timeout: 60_000, maxWait: 30_000 });
    return { outcome: 'created', run };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const winner = await findByKey(prisma, input.idempotencyKey);
    if (!winner) throw err;
    return replay(winner, hash, input.idempotencyKey);
  }
}

type StoredRun = Awaited<ReturnType<typeof findByKey>> & {};

async function findByKey(prisma: PrismaClient, idempotencyKey: string) {
  return prisma.run.findUnique({
    where: { idempotencyKey },
    select: {
      id: true,
      requestHash: true,
      receivedAt: true,
      sampleCount: true,
      timeSeriesCount: true,
      scenarioVersion: { select: { versionHash: true, scenario: { select: { key: true } } } },
      hardwareProfile: { select: { fingerprint: true, hardwareClass: true } },
    },
  });
}

function replay(run: StoredRun, hash: string, idempotencyKey: string): IngestResult {
  if (run.requestHash !== hash) throw new IdempotencyConflictError(idempotencyKey, run.id);
  return {
    outcome: 'replayed',
    run: {
      id: run.id,
      status: 'stored',
      idempotencyKey,
      scenario: { key: run.scenarioVersion.scenario.key, version: run.scenarioVersion.versionHash },
      hardware: { fingerprint: run.hardwareProfile.fingerprint, class: run.hardwareProfile.hardwareClass },
      samples: run.sampleCount,
      timeSeriesPoints: run.timeSeriesCount,
      receivedAt: run.receivedAt.toISOString(),
      links: { self: runLink(run.id) },
    },
  };
}

async function insertOrGet(insert: Promise<{ id: string }[]>, select: () => Promise<{ id: string }[]>): Promise<string> {
  const inserted = await insert;
  const id = inserted[0]?.id ?? (await select())[0]?.id;
  if (!id) throw new Error('row vanished between insert and select');
  return id;
}

async function storeRun(tx: Tx, input: IngestInput, hash: string): Promise<RunAccepted> {
  const s = input.submission;
  const source = input.source ?? 'measured';

  const scenarioId = await insertOrGet(
    tx.$queryRaw`INSERT INTO scenarios (id, key, title) VALUES (gen_random_uuid(), ${s.scenario.key}, ${s.scenario.title ?? null})
                 ON CONFLICT (key) DO NOTHING RETURNING id::text`,
    () => tx.$queryRaw`SELECT id::text FROM scenarios WHERE key = ${s.scenario.key}`,
  );
  const versionId = await insertOrGet(
    tx.$queryRaw`INSERT INTO scenario_versions (id, scenario_id, version_hash) VALUES (gen_random_uuid(), ${scenarioId}::uuid, ${s.scenario.version})
                 ON CONFLICT (scenario_id, version_hash) DO NOTHING RETURNING id::text`,
    () => tx.$queryRaw`SELECT id::text FROM scenario_versions WHERE scenario_id = ${scenarioId}::uuid AND version_hash = ${s.scenario.version}`,
  );

  const h = s.hardware;
  const fingerprint = hardwareFingerprint(h);
  const hardwareClass = hardwareClassOf(h);
  const hardwareId = await insertOrGet(
    tx.$queryRaw`INSERT INTO hardware_profiles (id, fingerprint, hardware_class, cpu_model, physical_cores, logical_cpus, memory_bytes,
                   storage_kind, storage_model, filesystem, os, kernel, virtualization, spec, source)
                 VALUES (gen_random_uuid(), ${fingerprint}, ${hardwareClass}, ${h.cpuModel}, ${h.physicalCores}::int, ${h.logicalCpus}::int,
                   ${String(h.memoryBytes)}::bigint, ${h.storage.kind}, ${h.storage.model}, ${h.filesystem}, ${h.os}, ${h.kernel},
                   ${h.virtualization}, ${JSON.stringify(h)}::jsonb, ${source})
                 ON CONFLICT (fingerprint) DO NOTHING RETURNING id::text`,
    () => tx.$queryRaw`SELECT id::text FROM hardware_profiles WHERE fingerprint = ${fingerprint}`,
  );

  const d = s.database;
  const envHash = settingsHash(d.settings);
  const environmentId = await insertOrGet(
    tx.$queryRaw`INSERT INTO database_environments (id, engine, version, major, minor, settings_hash, settings)
                 VALUES (gen_random_uuid(), ${d.engine}, ${d.version}, ${d.major}::int, ${d.minor}::int, ${envHash}, ${JSON.stringify(d.settings)}::jsonb)
                 ON CONFLICT (engine, version, settings_hash) DO NOTHING RETURNING id::text`,
    () => tx.$queryRaw`SELECT id::text FROM database_environments WHERE engine = ${d.engine} AND version = ${d.version} AND settings_hash = ${envHash}`,
  );

  const run = await tx.run.create({
    data: {
      idempotencyKey: input.idempotencyKey,
      requestHash: hash,
      source,
      runnerId: input.runnerId,
      scenarioVersionId: versionId,
      hardwareProfileId: hardwareId,
      databaseEnvironmentId: environmentId,
      params: s.params,
      runnerVersion: s.runnerVersion,
      startedAt: new Date(s.startedAt),
      finishedAt: new Date(s.finishedAt),
      sampleCount: s.samples.length,
      timeSeriesCount: s.timeSeries.length,
      document: input.document as object,
    },
    select: { id: true, receivedAt: true },
  });

  // --- the change: one statement per table, one array parameter per column ---------------------
  const smp = s.samples;
  await tx.$executeRaw`
    INSERT INTO samples (run_id, scenario_version_id, hardware_profile_id, variant, repetition, metric, unit, value)
    SELECT ${run.id}::uuid, ${versionId}::uuid, ${hardwareId}::uuid, t.variant, t.repetition, t.metric, t.unit, t.value
    FROM unnest(${smp.map((x) => x.variant)}::text[], ${smp.map((x) => x.repetition)}::int[], ${smp.map((x) => x.metric)}::text[],
                ${smp.map((x) => x.unit)}::text[], ${smp.map((x) => x.value)}::float8[])
         AS t(variant, repetition, metric, unit, value)`;
  const ts = s.timeSeries;
  if (ts.length > 0) {
    await tx.$executeRaw`
      INSERT INTO time_series_points (run_id, variant, repetition, metric, x, value)
      SELECT ${run.id}::uuid, t.variant, t.repetition, t.metric, t.x, t.value
      FROM unnest(${ts.map((p) => p.variant)}::text[], ${ts.map((p) => p.repetition)}::int[], ${ts.map((p) => p.metric)}::text[],
                  ${ts.map((p) => p.x)}::float8[], ${ts.map((p) => p.value)}::float8[])
           AS t(variant, repetition, metric, x, value)`;
  }

  return {
    id: run.id,
    status: 'stored',
    idempotencyKey: input.idempotencyKey,
    scenario: { key: s.scenario.key, version: s.scenario.version },
    hardware: { fingerprint, class: hardwareClass },
    samples: s.samples.length,
    timeSeriesPoints: s.timeSeries.length,
    receivedAt: run.receivedAt.toISOString(),
    links: { self: runLink(run.id) },
  };
}
