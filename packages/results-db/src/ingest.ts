import { hardwareClassOf, type RunAccepted, type RunSource, type RunSubmission } from '@tunelab/contracts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { IdempotencyConflictError, isUniqueViolation } from './errors.ts';
import { hardwareFingerprint, requestHash, settingsHash } from './hashing.ts';

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

export type IngestInput = {
  submission: RunSubmission;
  /** The body as received (parsed JSON, before defaults): hashed for idempotency and stored verbatim. */
  document: unknown;
  idempotencyKey: string;
  runnerId: string | null;
  source?: RunSource;
};

export type IngestResult = { outcome: 'created' | 'replayed'; run: RunAccepted };

const runLink = (id: string) => `/v1/runs/${id}`;

/**
 * Stores one whole submission in one transaction: scenario + version, hardware profile (by
 * fingerprint), database environment (by settings hash), run, samples and time series (bulk).
 * A second submission with the same idempotency key returns the first answer when the body is
 * the same, and raises IdempotencyConflictError otherwise; concurrent duplicates store one run
 * (the unique index on idempotency_key decides, the losers read the winner's answer).
 *
 * Shared parent rows are inserted with ON CONFLICT DO NOTHING and then read in a separate
 * statement, so concurrent ingests never hold row locks on them (no DO UPDATE) and the read
 * sees a row another transaction just committed.
 */
export async function ingestRun(prisma: PrismaClient, input: IngestInput): Promise<IngestResult> {
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

async function insertOrGet(tx: Tx, insert: Promise<{ id: string }[]>, select: () => Promise<{ id: string }[]>): Promise<string> {
  const inserted = await insert;
  const id = inserted[0]?.id ?? (await select())[0]?.id;
  if (!id) throw new Error('row vanished between insert and select');
  return id;
}

async function storeRun(tx: Tx, input: IngestInput, hash: string): Promise<RunAccepted> {
  const s = input.submission;
  const source = input.source ?? 'measured';

  const scenarioId = await insertOrGet(
    tx,
    tx.$queryRaw`INSERT INTO scenarios (id, key, title) VALUES (gen_random_uuid(), ${s.scenario.key}, ${s.scenario.title ?? null})
                 ON CONFLICT (key) DO NOTHING RETURNING id::text`,
    () => tx.$queryRaw`SELECT id::text FROM scenarios WHERE key = ${s.scenario.key}`,
  );
  const versionId = await insertOrGet(
    tx,
    // The version hash covers the scenario folder, so its declared pairs are the same for every
    // run of that version: the first writer's copy stands.
    tx.$queryRaw`INSERT INTO scenario_versions (id, scenario_id, version_hash, comparisons)
                 VALUES (gen_random_uuid(), ${scenarioId}::uuid, ${s.scenario.version},
                         ${s.scenario.comparisons?.length ? JSON.stringify(s.scenario.comparisons) : null}::jsonb)
                 ON CONFLICT (scenario_id, version_hash) DO NOTHING RETURNING id::text`,
    () => tx.$queryRaw`SELECT id::text FROM scenario_versions WHERE scenario_id = ${scenarioId}::uuid AND version_hash = ${s.scenario.version}`,
  );

  const h = s.hardware;
  const fingerprint = hardwareFingerprint(h);
  const hardwareClass = hardwareClassOf(h);
  const hardwareId = await insertOrGet(
    tx,
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
    tx,
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

  await tx.sample.createMany({
    data: s.samples.map((x) => ({
      runId: run.id,
      scenarioVersionId: versionId,
      hardwareProfileId: hardwareId,
      variant: x.variant,
      repetition: x.repetition,
      metric: x.metric,
      unit: x.unit,
      value: x.value,
    })),
  });
  if (s.timeSeries.length > 0) {
    await tx.timeSeriesPoint.createMany({
      data: s.timeSeries.map((p) => ({ runId: run.id, variant: p.variant, repetition: p.repetition, metric: p.metric, x: p.x, value: p.value })),
    });
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
