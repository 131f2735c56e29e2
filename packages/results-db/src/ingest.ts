import { randomUUID } from 'node:crypto';
import {
  canonicalJson,
  effectiveMemoryBytes,
  hardwareClassOf,
  storageTierOf,
  type RunAcceptedRecord,
  type RunSource,
  type RunSubmission,
} from '@tunelab/contracts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { SqlRunner } from './open.ts';
import { IdempotencyConflictError, isUniqueViolation, RunnerRevokedError } from './errors.ts';
import { documentTextHash, runnerMachineFingerprint, settingsHash } from './hashing.ts';
import { childColumns } from './child-columns.ts';

export type IngestInput = {
  submission: RunSubmission;
  /** The body as received (parsed JSON, before defaults): compared canonically on a replay. */
  document: unknown;
  /** The body's JSON text exactly as received, stored as the run's document (else `JSON.stringify(document)`). */
  documentText?: string;
  idempotencyKey: string;
  runnerId: string | null;
  source?: RunSource;
};

export type IngestResult = { outcome: 'created' | 'replayed'; run: RunAcceptedRecord };

/**
 * Stores one whole submission atomically: scenario + version, hardware profile (by fingerprint),
 * database environment (by settings hash), run, samples and time series.
 *
 * The common case (a machine, scenario version and server configuration seen before) is one
 * prepared statement and one commit: it finds the three parent ids and inserts the run with
 * `ON CONFLICT (idempotency_key) DO NOTHING` together with all its samples and points (one array
 * per column through `unnest` — Prisma's createMany built 360-row parameter lists at ~45 ms of CPU
 * per submission; see apps/api/bench/README.md). A statement is atomic, so a run is never
 * half-written. A submission that brings a new parent row goes through the
 * insert-or-get sequence inside a transaction with the run. These statements go straight to the
 * driver (`SqlRunner`); the replay lookup uses the Prisma client like every read.
 *
 * The runner must still be active: the first query reads its revocation in the same round trip, so
 * a caller may identify the runner from a cache and still see a revocation at once (a revoked or
 * removed runner raises RunnerRevokedError and nothing is stored).
 *
 * Idempotency: the same key with the same body returns the first answer; with another body it
 * raises IdempotencyConflictError. Concurrent duplicates store one run: the unique index on
 * idempotency_key decides, the losers (no row returned, or a unique violation on the slow path)
 * read the winner's answer.
 */
/**
 * Idempotency keys are scoped per runner: runner B sending runner A's key gets its own run, and
 * no runner can take a key of the published import (`published:…`, stored without a runner).
 * The stored key is `runner:<runner id>:<key>`.
 */
export function storedIdempotencyKey(key: string, runnerId: string | null): string {
  return runnerId ? `runner:${runnerId}:${key}` : key;
}

export async function ingestRun(prisma: PrismaClient, sql: SqlRunner, input: IngestInput): Promise<IngestResult> {
  const s = input.submission;
  const storedKey = storedIdempotencyKey(input.idempotencyKey, input.runnerId);
  const text = input.documentText ?? JSON.stringify(input.document);
  const hash = documentTextHash(text);
  const source = input.source ?? 'measured';
  const fingerprint = runnerMachineFingerprint(s.hardware, input.runnerId);
  const hardwareClass = hardwareClassOf(s.hardware);
  const envHash = settingsHash(s.database.settings);

  // The children's arrays are made once, for the retry after new parent rows too.
  const parentKeys = {
    s,
    fingerprint,
    envHash,
    children: childColumns(s, sql.binaryParameters),
    measurement: measurementColumns(s, hardwareClass),
  };
  let stored: StoredRow | undefined;
  try {
    const first = await storeRun(sql, input, text, storedKey, hash, source, parentKeys);
    stored =
      first === 'new-parents'
        ? await sql.transaction(async (tx) => {
            await createParents(tx, s, fingerprint, hardwareClass, envHash, source);
            const again = await storeRun(tx, input, text, storedKey, hash, source, parentKeys);
            if (again === 'new-parents') throw new Error('parent rows missing right after they were stored');
            return again;
          })
        : first;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  // A reading whose tier differs from the machine's: the tier (and the class it names) follows
  // the median of every probe of the machine, so one loaded probe never fixes a wrong class.
  const m = s.hardware.measured;
  if (stored && m && !s.hardware.storage.declared && storageTierOf(m) !== stored.storage_tier)
    stored.hardware_class = (await retier(sql, fingerprint, s.hardware)) ?? stored.hardware_class;
  if (!stored) {
    const winner = await findByKey(prisma, storedKey);
    if (!winner) throw new Error(`run with Idempotency-Key ${input.idempotencyKey} neither stored nor found`);
    return replay(winner, hash, input.document, input.idempotencyKey);
  }
  return {
    outcome: 'created',
    run: {
      id: stored.id,
      status: 'stored',
      idempotencyKey: input.idempotencyKey,
      scenario: { key: s.scenario.key, version: s.scenario.version },
      hardware: { fingerprint, class: stored.hardware_class },
      samples: s.samples.length,
      timeSeriesPoints: s.timeSeries.length,
      receivedAt: new Date(stored.received_at).toISOString(),
    },
  };
}

/**
 * Sets a machine's storage tier from the median of its probes' figures (random reads at queue
 * depth 1 and 16, sequential writes) and names it in its class; answers the class when it moved.
 */
async function retier(sql: SqlRunner, fingerprint: string, spec: RunSubmission['hardware']): Promise<string | null> {
  const [median] = await sql.query<{ qd1: number | null; qd16: number | null; mbps: number | null }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY m.read_iops_qd1) AS qd1,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY m.read_iops_qd16) AS qd16,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY m.seq_write_mbps) AS mbps
       FROM hardware_measurements m JOIN hardware_profiles h ON h.id = m.hardware_profile_id
      WHERE h.fingerprint = $1`,
    [fingerprint],
  );
  if (!median || median.qd1 === null || !spec.measured) return null;
  const figures = { readIopsQd1: median.qd1, readIopsQd16: median.qd16, seqWriteMBps: median.mbps };
  const tier = storageTierOf(figures);
  const [moved] = await sql.query<{ hardware_class: string }>(
    `UPDATE hardware_profiles SET storage_tier = $2, hardware_class = $3
      WHERE fingerprint = $1 AND storage_tier IS DISTINCT FROM $2 RETURNING hardware_class`,
    [fingerprint, tier, hardwareClassOf({ ...spec, measured: { ...spec.measured, ...figures } })],
  );
  return moved?.hardware_class ?? null;
}

type StoredRun = NonNullable<Awaited<ReturnType<typeof findByKey>>>;

async function findByKey(prisma: PrismaClient, idempotencyKey: string) {
  return prisma.run.findUnique({
    where: { idempotencyKey },
    select: {
      id: true,
      requestHash: true,
      document: true,
      receivedAt: true,
      sampleCount: true,
      timeSeriesCount: true,
      scenarioVersion: { select: { versionHash: true, scenario: { select: { key: true } } } },
      hardwareProfile: { select: { fingerprint: true, hardwareClass: true } },
    },
  });
}

/**
 * The same body is the same text (request_hash is the sha256 of the stored document's text), or
 * failing that the same canonical JSON (keys in another order, other whitespace, and runs stored
 * before request_hash hashed the text, when it was the sha256 of the canonical JSON).
 */
function replay(run: StoredRun, hash: string, document: unknown, idempotencyKey: string): IngestResult {
  if (run.requestHash !== hash && canonicalJson(run.document) !== canonicalJson(document))
    throw new IdempotencyConflictError(idempotencyKey, run.id);
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
    },
  };
}

type Query = Pick<SqlRunner, 'query'>;

async function insertOrGet(
  db: Query,
  insert: string,
  insertParams: unknown[],
  select: string,
  selectParams: unknown[],
): Promise<string> {
  const inserted = await db.query<{ id: string }>(insert, insertParams);
  const id = inserted[0]?.id ?? (await db.query<{ id: string }>(select, selectParams))[0]?.id;
  if (!id) throw new Error('row vanished between insert and select');
  return id;
}

/**
 * Insert-or-get for each parent row (storeRun then finds them by their natural keys). Rows are inserted with ON CONFLICT DO NOTHING and read in a
 * separate statement, so concurrent ingests never hold row locks on shared parents (no DO UPDATE)
 * and the read sees a row another transaction just committed.
 */
async function createParents(
  tx: Query,
  s: RunSubmission,
  fingerprint: string,
  hardwareClass: string,
  envHash: string,
  source: string,
): Promise<void> {
  const scenarioId = await insertOrGet(
    tx,
    `INSERT INTO scenarios (id, key, title) VALUES (gen_random_uuid(), $1, $2) ON CONFLICT (key) DO NOTHING RETURNING id::text`,
    [s.scenario.key, s.scenario.title ?? null],
    `SELECT id::text FROM scenarios WHERE key = $1`,
    [s.scenario.key],
  );
  // The version hash covers the scenario folder, so its declared pairs are the same for every
  // run of that version: the first writer's copy stands.
  await insertOrGet(
    tx,
    `INSERT INTO scenario_versions (id, scenario_id, version_hash, comparisons) VALUES (gen_random_uuid(), $1::uuid, $2, $3::jsonb)
     ON CONFLICT (scenario_id, version_hash) DO NOTHING RETURNING id::text`,
    [scenarioId, s.scenario.version, s.scenario.comparisons?.length ? JSON.stringify(s.scenario.comparisons) : null],
    `SELECT id::text FROM scenario_versions WHERE scenario_id = $1::uuid AND version_hash = $2`,
    [scenarioId, s.scenario.version],
  );
  const h = s.hardware;
  await insertOrGet(
    tx,
    `INSERT INTO hardware_profiles (id, fingerprint, hardware_class, cpu_model, physical_cores, logical_cpus, memory_bytes,
       storage_kind, storage_model, filesystem, os, kernel, virtualization, spec, source, storage_tier)
     VALUES (gen_random_uuid(), $1, $2, $3, $4::int, $5::int, $6::bigint, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15)
     ON CONFLICT (fingerprint) DO NOTHING RETURNING id::text`,
    [
      fingerprint,
      hardwareClass,
      h.cpuModel,
      h.physicalCores,
      h.logicalCpus,
      // An emulated profile (an envelope) is ranked and grouped by the memory its server had.
      String(effectiveMemoryBytes(h)),
      h.storage.kind,
      h.storage.model,
      h.filesystem,
      h.os,
      h.kernel,
      h.virtualization,
      JSON.stringify(h),
      source,
      h.measured ? storageTierOf(h.measured) : null,
    ],
    `SELECT id::text FROM hardware_profiles WHERE fingerprint = $1`,
    [fingerprint],
  );
  const d = s.database;
  await insertOrGet(
    tx,
    `INSERT INTO database_environments (id, engine, version, major, minor, settings_hash, settings)
     VALUES (gen_random_uuid(), $1, $2, $3::int, $4::int, $5, $6::jsonb)
     ON CONFLICT (engine, version, settings_hash) DO NOTHING RETURNING id::text`,
    [d.engine, d.version, d.major, d.minor, envHash, JSON.stringify(d.settings)],
    `SELECT id::text FROM database_environments WHERE engine = $1 AND version = $2 AND settings_hash = $3`,
    [d.engine, d.version, envHash],
  );
}

/** The parent rows' natural keys, and the children's arrays as the driver takes them (child-columns.ts). */
type ParentKeys = {
  s: RunSubmission;
  fingerprint: string;
  envHash: string;
  children: (Buffer | string)[];
  measurement: unknown[];
};

type StoredRow = { id: string; received_at: Date; hardware_class: string; storage_tier: string | null };

/**
 * The probe's figures as the statement's parameters $33…$47 (all null without a probe): the run's
 * row in hardware_measurements, its tier, and the class its profile takes when this is the first
 * run that measured the machine.
 */
function measurementColumns(s: RunSubmission, hardwareClass: string): unknown[] {
  const m = s.hardware.measured;
  if (!m) return Array<null>(15).fill(null);
  return [
    m.measuredAt,
    m.durationMs,
    m.diskTool,
    m.fsyncP50Us,
    m.fsyncP99Us,
    m.fsyncSamples,
    m.readIopsQd1,
    m.readIopsQd16,
    m.seqWriteMBps,
    m.cpuScore,
    m.cpuWorkload,
    storageTierOf(m),
    hardwareClass,
    m.loadAverage1m ?? null,
    m.logicalCpus ?? null,
  ];
}

/**
 * The whole run in one statement: it finds the three parent rows by their natural keys, checks
 * that the runner is active (and marks it seen — at most once a minute, so that a busy runner does
 * not rewrite its row and flush WAL on every submission), and inserts the run with
 * `ON CONFLICT (idempotency_key) DO NOTHING` together with its samples and points, the probe's
 * figures (+ hardware last seen, and its storage tier and class when this run is the first that
 * measured the machine: the tier is set once, so a later reading never moves a machine's class).
 * Answers the stored row; undefined when the key is taken; 'new-parents' when a
 * parent row does not exist yet (nothing was written); raises RunnerRevokedError for a revoked
 * or removed runner.
 *
 * Samples and points travel as one array per column (child-columns.ts: binary through pg) and are
 * expanded with `unnest`: PostgreSQL reads a flat array far cheaper than it reads records out of
 * the 36 kB JSON document (which it re-parsed once per `->`), see apps/api/bench/README.md. The statement is prepared once per
 * connection (`INGEST_STATEMENT`): parsing and planning this statement cost as much as the
 * foreign-key checks that migration 20261123230000 removed. The children's run integrity is
 * checked by that migration's statement-level triggers, which see the run row this statement
 * inserts.
 */
const INGEST_STATEMENT = 'tunelab_ingest_run_v4';
const INGEST_SQL = `WITH parent AS (
       SELECT (SELECT v.id FROM scenario_versions v JOIN scenarios sc ON sc.id = v.scenario_id
                WHERE sc.key = $13 AND v.version_hash = $14) AS version_id,
              (SELECT id FROM hardware_profiles WHERE fingerprint = $15) AS hardware_id,
              (SELECT id FROM database_environments
                WHERE engine = $16 AND version = $17 AND settings_hash = $18) AS environment_id,
              ($6::uuid IS NULL OR EXISTS (SELECT 1 FROM runners WHERE id = $6::uuid AND revoked_at IS NULL)) AS runner_active
     ), touch AS (
       UPDATE runners SET last_seen_at = now()
       WHERE id = $6::uuid AND revoked_at IS NULL AND (last_seen_at IS NULL OR last_seen_at < now() - interval '1 minute')
     ), run AS (
       INSERT INTO runs (id, idempotency_key, request_hash, source, runner_id, scenario_version_id, hardware_profile_id,
                         database_environment_id, params, runner_version, started_at, finished_at, sample_count, time_series_count, document, noise)
       SELECT $2::uuid, $3, $4, $5, $6::uuid, parent.version_id, parent.hardware_id, parent.environment_id,
              $7::jsonb, $8, $9::timestamptz, $10::timestamptz, $11::int, $12::int, $1::json, $48::jsonb
       FROM parent
       WHERE parent.runner_active AND parent.version_id IS NOT NULL AND parent.hardware_id IS NOT NULL
         AND parent.environment_id IS NOT NULL
       ON CONFLICT (idempotency_key) DO NOTHING
       RETURNING id, received_at, scenario_version_id, hardware_profile_id
     ), s AS (
       INSERT INTO samples (run_id, scenario_version_id, hardware_profile_id, variant, repetition, metric, unit, value, point_param, point_value, position)
       SELECT run.id, run.scenario_version_id, run.hardware_profile_id, t.variant, t.repetition, t.metric, t.unit, t.value, t.point_param, t.point_value, t.position
       FROM run, unnest($19::text[], $20::int[], $21::text[], $22::text[], $23::float8[], $24::text[], $25::float8[], $49::int[])
                   AS t(variant, repetition, metric, unit, value, point_param, point_value, position)
     ), p AS (
       INSERT INTO time_series_points (run_id, variant, repetition, metric, x, value, point_param, point_value)
       SELECT run.id, t.variant, t.repetition, t.metric, t.x, t.value, t.point_param, t.point_value
       FROM run, unnest($26::text[], $27::int[], $28::text[], $29::float8[], $30::float8[], $31::text[], $32::float8[])
                   AS t(variant, repetition, metric, x, value, point_param, point_value)
     ), m AS (
       INSERT INTO hardware_measurements (run_id, hardware_profile_id, measured_at, duration_ms, disk_tool, fsync_p50_us,
                                          fsync_p99_us, fsync_samples, read_iops_qd1, read_iops_qd16, seq_write_mbps,
                                          cpu_score, cpu_workload, storage_tier, load_average_1m, logical_cpus)
       SELECT run.id, run.hardware_profile_id, $33::timestamptz, $34::float8, $35, $36::float8, $37::float8, $38::int,
              $39::float8, $40::float8, $41::float8, $42::float8, $43, $44, $46::float8, $47::int
       FROM run WHERE $35::text IS NOT NULL
     ), seen AS (
       UPDATE hardware_profiles
       SET last_seen_at = now(),
           storage_tier = COALESCE(storage_tier, $44::text),
           hardware_class = CASE WHEN storage_tier IS NULL AND $44::text IS NOT NULL THEN $45 ELSE hardware_class END
       WHERE id = (SELECT hardware_profile_id FROM run)
         AND (last_seen_at < now() - interval '1 minute' OR (storage_tier IS NULL AND $44::text IS NOT NULL))
       RETURNING hardware_class, storage_tier
     )
     SELECT run.id::text AS id, run.received_at,
            COALESCE((SELECT hardware_class FROM seen),
                     (SELECT hardware_class FROM hardware_profiles WHERE fingerprint = $15)) AS hardware_class,
            COALESCE((SELECT storage_tier FROM seen),
                     (SELECT storage_tier FROM hardware_profiles WHERE fingerprint = $15)) AS storage_tier,
            (parent.version_id IS NOT NULL AND parent.hardware_id IS NOT NULL AND parent.environment_id IS NOT NULL) AS parents_found,
            parent.runner_active
     FROM parent LEFT JOIN run ON true`;

async function storeRun(
  db: Query,
  input: IngestInput,
  text: string,
  storedKey: string,
  hash: string,
  source: string,
  k: ParentKeys,
): Promise<StoredRow | undefined | 'new-parents'> {
  const s = input.submission;
  const [row] = await db.query<{
    id: string | null;
    received_at: Date | null;
    hardware_class: string | null;
    storage_tier: string | null;
    parents_found: boolean;
    runner_active: boolean;
  }>(
    INGEST_SQL,
    [
      text,
      randomUUID(),
      storedKey,
      hash,
      source,
      input.runnerId,
      JSON.stringify(s.params),
      s.runnerVersion,
      s.startedAt,
      s.finishedAt,
      s.samples.length,
      s.timeSeries.length,
      s.scenario.key,
      s.scenario.version,
      k.fingerprint,
      s.database.engine,
      s.database.version,
      k.envHash,
      ...k.children.slice(0, 14),
      ...k.measurement,
      s.noise ? JSON.stringify(s.noise) : null,
      k.children[14],
    ],
    INGEST_STATEMENT,
  );
  if (!row) throw new Error('the run statement answered no row');
  if (!row.runner_active) throw new RunnerRevokedError(input.runnerId ?? '');
  if (!row.parents_found) return 'new-parents';
  return row.id && row.received_at && row.hardware_class
    ? { id: row.id, received_at: row.received_at, hardware_class: row.hardware_class, storage_tier: row.storage_tier }
    : undefined;
}
