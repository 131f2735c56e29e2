import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Workload } from './workload.ts';

/**
 * The baseline: the same sample and time-series rows written with one plain multi-row INSERT per
 * table, one transaction per submission (the API also commits once per run), into tables shaped
 * like `samples` and `time_series_points` in prisma/migrations/*_init/migration.sql: same columns,
 * same primary keys, unique and secondary indexes. No foreign keys and no parent rows: this is
 * what the rows cost on their own.
 */
export const PLAIN_SCHEMA = `
CREATE TABLE plain_samples (
    id BIGSERIAL NOT NULL,
    run_id UUID NOT NULL,
    scenario_version_id UUID NOT NULL,
    hardware_profile_id UUID NOT NULL,
    variant TEXT NOT NULL,
    repetition INTEGER NOT NULL,
    metric TEXT NOT NULL,
    unit TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    CONSTRAINT plain_samples_pkey PRIMARY KEY (id)
);
CREATE TABLE plain_time_series_points (
    id BIGSERIAL NOT NULL,
    run_id UUID NOT NULL,
    variant TEXT NOT NULL,
    repetition INTEGER NOT NULL,
    metric TEXT NOT NULL,
    x DOUBLE PRECISION NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    CONSTRAINT plain_time_series_points_pkey PRIMARY KEY (id)
);
CREATE UNIQUE INDEX plain_samples_run_id_variant_repetition_metric_key ON plain_samples (run_id, variant, repetition, metric);
CREATE INDEX plain_samples_scenario_version_id_metric_hardware_profile_id_idx ON plain_samples (scenario_version_id, metric, hardware_profile_id, variant);
CREATE INDEX plain_time_series_points_run_id_metric_variant_repetition_idx ON plain_time_series_points (run_id, metric, variant, repetition);
`;

function placeholders(rows: number, cols: number): string {
  const out: string[] = [];
  for (let r = 0; r < rows; r++) {
    const row: string[] = [];
    for (let c = 1; c <= cols; c++) row.push(`$${r * cols + c}`);
    out.push(`(${row.join(',')})`);
  }
  return out.join(',');
}

export type PlainStatement = { samplesSql: string; pointsSql: string };

export function plainStatements(samples: number, points: number): PlainStatement {
  return {
    samplesSql: `INSERT INTO plain_samples (run_id, scenario_version_id, hardware_profile_id, variant, repetition, metric, unit, value) VALUES ${placeholders(samples, 8)}`,
    pointsSql: `INSERT INTO plain_time_series_points (run_id, variant, repetition, metric, x, value) VALUES ${placeholders(points, 6)}`,
  };
}

const SCENARIO_VERSION_IDS = Array.from({ length: 8 }, () => randomUUID());
const HARDWARE_IDS = Array.from({ length: 8 }, () => randomUUID());

/** One submission's rows as one transaction of two multi-row INSERTs on one pooled connection. */
export async function plainInsert(pool: pg.Pool, w: Workload, stmt: PlainStatement): Promise<number> {
  const runId = randomUUID();
  const sv = SCENARIO_VERSION_IDS[w.scenario]!;
  const hw = HARDWARE_IDS[w.machine]!;
  const sp: unknown[] = [];
  for (const s of w.submission.samples) sp.push(runId, sv, hw, s.variant, s.repetition, s.metric, s.unit, s.value);
  const pp: unknown[] = [];
  for (const p of w.submission.timeSeries ?? []) pp.push(runId, p.variant, p.repetition, p.metric, p.x, p.value);
  await inTransaction(pool, async (client) => {
    await client.query(stmt.samplesSql, sp);
    if (pp.length > 0) await client.query(stmt.pointsSql, pp);
  });
  return w.submission.samples.length + (w.submission.timeSeries?.length ?? 0);
}

/** Runs `fn` in one transaction on one pooled connection (the baselines' unit of work). */
export async function inTransaction(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await fn(client);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
