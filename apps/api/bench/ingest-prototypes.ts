/**
 * Prototypes for packages/results-db/src/ingest.ts, measured by `npm run bench:ingest -- --ingest unnest|lean`.
 * Both keep the contract of openResultsDb().ingestRun (idempotency, replay answer, 409 on a
 * different body, lastSeenAt bookkeeping).
 *
 * unnest: a copy of the shipped ingestRun with one change: samples and time-series points are
 *   written with one `INSERT … SELECT FROM unnest(<one array per column>)` each instead of Prisma
 *   `createMany`, so each table costs one statement with 5–6 array parameters however many rows
 *   there are, instead of a VALUES list of rows × columns parameters built by Prisma.
 *
 * lean: unnest, plus fewer round trips and commits in the common case:
 *   1. one SELECT resolves scenario version, hardware profile and environment ids (they exist for
 *      every run but a machine's or scenario version's first); only when one is missing does it
 *      fall back to the shipped insert-or-get sequence, in a transaction with the run;
 *   2. the run, its samples and its points are ONE statement (INSERT … ON CONFLICT
 *      (idempotency_key) DO NOTHING RETURNING, with the two unnest inserts as data-modifying CTEs),
 *      atomic on its own in autocommit: no BEGIN/COMMIT round trips, no findByKey beforehand (an
 *      empty RETURNING means the key exists: read it and replay or 409, as before);
 *   3. lastSeenAt bookkeeping rides along in those two statements (runner: in the lookup;
 *      hardware: in the run statement, only when the run was stored) and writes only when the stored
 *      value is more than a minute old, so a busy runner or machine costs neither an extra round trip
 *      nor an extra committed (fsync'd) transaction per run.
 *   Common case: 2 statements and 1 commit per run (after the auth lookup), instead of 13–16
 *   statements and 3 commits.
 */
import { randomUUID } from 'node:crypto';
import { hardwareClassOf, type RunAccepted, type RunSubmission } from '@tunelab/contracts';
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

// ---------------------------------------------------------------------------------------------
// lean

type Db = PrismaClient | Tx;
type Parents = { versionId: string; hardwareId: string; environmentId: string };

export async function ingestRunLean(db: ResultsDb, input: IngestInput): Promise<IngestResult> {
  const prisma = db.prisma;
  const s = input.submission;
  const hash = requestHash(input.document);
  const source = input.source ?? 'measured';
  const fingerprint = hardwareFingerprint(s.hardware);
  const hardwareClass = hardwareClassOf(s.hardware);
  const envHash = settingsHash(s.database.settings);

  let stored: { id: string; received_at: Date } | undefined;
  try {
    const found = await findParents(prisma, s, fingerprint, envHash, input.runnerId);
    stored = found
      ? await insertRun(prisma, input, hash, source, found)
      : await prisma.$transaction(
          async (tx) => insertRun(tx, input, hash, source, await createParents(tx, s, fingerprint, hardwareClass, envHash, source)),
          { timeout: 60_000, maxWait: 30_000 },
        );
  } catch (err) {
    // Two first submissions of the same key racing through the slow path: the loser's
    // transaction fails on the unique index; read the winner as before.
    if (!isUniqueViolation(err)) throw err;
  }
  if (!stored) {
    const winner = await findByKey(prisma, input.idempotencyKey);
    if (!winner) throw new Error(`run with Idempotency-Key ${input.idempotencyKey} neither stored nor found`);
    return replay(winner, hash, input.idempotencyKey);
  }
  return {
    outcome: 'created',
    run: {
      id: stored.id,
      status: 'stored',
      idempotencyKey: input.idempotencyKey,
      scenario: { key: s.scenario.key, version: s.scenario.version },
      hardware: { fingerprint, class: hardwareClass },
      samples: s.samples.length,
      timeSeriesPoints: s.timeSeries.length,
      receivedAt: stored.received_at.toISOString(),
      links: { self: runLink(stored.id) },
    },
  };
}

/** Parent ids in one round trip; also marks the runner seen (at most once a minute). */
async function findParents(db: Db, s: RunSubmission, fingerprint: string, envHash: string, runnerId: string | null): Promise<Parents | null> {
  const [row] = await db.$queryRaw<{ version_id: string | null; hardware_id: string | null; environment_id: string | null }[]>`
    WITH touch AS (
      UPDATE runners SET last_seen_at = now()
      WHERE id = ${runnerId}::uuid AND (last_seen_at IS NULL OR last_seen_at < now() - interval '1 minute')
    )
    SELECT (SELECT v.id::text FROM scenario_versions v JOIN scenarios sc ON sc.id = v.scenario_id
             WHERE sc.key = ${s.scenario.key} AND v.version_hash = ${s.scenario.version}) AS version_id,
           (SELECT id::text FROM hardware_profiles WHERE fingerprint = ${fingerprint}) AS hardware_id,
           (SELECT id::text FROM database_environments
             WHERE engine = ${s.database.engine} AND version = ${s.database.version} AND settings_hash = ${envHash}) AS environment_id`;
  if (!row?.version_id || !row.hardware_id || !row.environment_id) return null;
  return { versionId: row.version_id, hardwareId: row.hardware_id, environmentId: row.environment_id };
}

/** The shipped insert-or-get sequence, for a submission that brings a new parent row. */
async function createParents(tx: Tx, s: RunSubmission, fingerprint: string, hardwareClass: string, envHash: string, source: string): Promise<Parents> {
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
  const environmentId = await insertOrGet(
    tx.$queryRaw`INSERT INTO database_environments (id, engine, version, major, minor, settings_hash, settings)
                 VALUES (gen_random_uuid(), ${d.engine}, ${d.version}, ${d.major}::int, ${d.minor}::int, ${envHash}, ${JSON.stringify(d.settings)}::jsonb)
                 ON CONFLICT (engine, version, settings_hash) DO NOTHING RETURNING id::text`,
    () => tx.$queryRaw`SELECT id::text FROM database_environments WHERE engine = ${d.engine} AND version = ${d.version} AND settings_hash = ${envHash}`,
  );
  return { versionId, hardwareId, environmentId };
}

/** Run + samples + points in one statement; undefined when the idempotency key is already taken. */
async function insertRun(db: Db, input: IngestInput, hash: string, source: string, p: Parents) {
  const s = input.submission;
  const smp = s.samples;
  const ts = s.timeSeries;
  const [row] = await db.$queryRaw<{ id: string; received_at: Date }[]>`
    WITH run AS (
      INSERT INTO runs (id, idempotency_key, request_hash, source, runner_id, scenario_version_id, hardware_profile_id,
                        database_environment_id, params, runner_version, started_at, finished_at, sample_count, time_series_count, document)
      VALUES (${randomUUID()}::uuid, ${input.idempotencyKey}, ${hash}, ${source}, ${input.runnerId}::uuid, ${p.versionId}::uuid,
              ${p.hardwareId}::uuid, ${p.environmentId}::uuid, ${JSON.stringify(s.params)}::jsonb, ${s.runnerVersion},
              ${new Date(s.startedAt)}, ${new Date(s.finishedAt)}, ${smp.length}::int, ${ts.length}::int, ${JSON.stringify(input.document)}::json)
      ON CONFLICT (idempotency_key) DO NOTHING
      RETURNING id, received_at
    ), s AS (
      INSERT INTO samples (run_id, scenario_version_id, hardware_profile_id, variant, repetition, metric, unit, value)
      SELECT run.id, ${p.versionId}::uuid, ${p.hardwareId}::uuid, t.variant, t.repetition, t.metric, t.unit, t.value
      FROM run, unnest(${smp.map((x) => x.variant)}::text[], ${smp.map((x) => x.repetition)}::int[], ${smp.map((x) => x.metric)}::text[],
                       ${smp.map((x) => x.unit)}::text[], ${smp.map((x) => x.value)}::float8[])
                AS t(variant, repetition, metric, unit, value)
    ), p AS (
      INSERT INTO time_series_points (run_id, variant, repetition, metric, x, value)
      SELECT run.id, t.variant, t.repetition, t.metric, t.x, t.value
      FROM run, unnest(${ts.map((x) => x.variant)}::text[], ${ts.map((x) => x.repetition)}::int[], ${ts.map((x) => x.metric)}::text[],
                       ${ts.map((x) => x.x)}::float8[], ${ts.map((x) => x.value)}::float8[])
                AS t(variant, repetition, metric, x, value)
    ), seen AS (
      UPDATE hardware_profiles SET last_seen_at = now()
      WHERE id = ${p.hardwareId}::uuid AND last_seen_at < now() - interval '1 minute' AND EXISTS (SELECT 1 FROM run)
    )
    SELECT id::text, received_at FROM run`;
  return row;
}
