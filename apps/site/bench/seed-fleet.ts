/**
 * The fleet-scale data of `bench:site`: `runs` measured runs of the sample scenario on `machines`
 * machines in an embedded (PGlite) results database, plus the published articles. One run per
 * machine goes through `ingestRun`; the others are copies of those made in SQL with their own
 * ids, keys and dates (ingesting 10,000 runs one by one into the embedded database takes longer
 * than the builds measured). The copies were received before their originals, as a fleet's earlier
 * runs were: a run received later than the benchmark's new ones would be one that arrived late.
 */
import { openResultsDb } from '@tunelab/results-db';
import { ingestDocument, prismaOf } from '@tunelab/results-db/testing';
import { sampleRun, SCENARIOS_DIR, type MachineSpec } from '../test/seed.ts';

export const CORES = [2, 4, 8, 16, 32];
export const MEMORY = [8, 16, 32, 64, 128];
export const DISKS = ['ssd', 'nvme', 'hdd'] as const;

export function fleetMachine(i: number, machines: number): MachineSpec {
  const m = i % machines;
  return {
    id: `fleet-${m}`,
    cores: CORES[m % CORES.length]!,
    memoryGb: MEMORY[Math.floor(m / CORES.length) % MEMORY.length]!,
    disk: DISKS[Math.floor(m / (CORES.length * MEMORY.length)) % DISKS.length]!,
  };
}

/** Runs `from` … `to - 1` through ingestRun (one per machine in turn). */
export async function ingestFleet(dataDir: string, from: number, to: number, machines: number) {
  const db = await openResultsDb(undefined, { dataDir });
  try {
    await db.migrate();
    if (from === 0) await db.importPublished(SCENARIOS_DIR);
    for (let i = from; i < to; i++) {
      const submission = sampleRun(fleetMachine(i, machines), i, new Date(Date.UTC(2026, 0, 1) + i * 60_000));
      await ingestDocument(db, submission, `fleet-${i}`);
    }
  } finally {
    await db.close();
  }
}

/** Seeds `runs` measured runs (rounded up to whole copies of one run per machine); returns how many. */
export async function seedFleet(dataDir: string, runs: number, machines: number): Promise<number> {
  const seeded = Math.min(runs, machines);
  await ingestFleet(dataDir, 0, seeded, machines);
  const copies = Math.ceil(runs / seeded) - 1;
  if (copies === 0) return seeded;
  const db = await openResultsDb(undefined, { dataDir });
  try {
    const p = prismaOf(db);
    // A version-4-shaped id derived from the original's and the copy number.
    const copy = (col: string) =>
      `overlay(overlay(md5(${col}::text || ':' || g) placing '4' from 13) placing '8' from 17)::uuid`;
    const originals = `SELECT * FROM runs WHERE source = 'measured'`;
    await p.$executeRawUnsafe(`
      INSERT INTO runs (id, idempotency_key, request_hash, source, status, runner_id, scenario_version_id, hardware_profile_id,
        database_environment_id, params, runner_version, started_at, finished_at, received_at, sample_count, time_series_count, document)
      SELECT ${copy('r.id')}, r.idempotency_key || ':copy-' || g, r.request_hash, r.source, r.status, r.runner_id,
        r.scenario_version_id, r.hardware_profile_id, r.database_environment_id, r.params, r.runner_version,
        r.started_at + g * interval '1 day', r.finished_at + g * interval '1 day', r.received_at - g * interval '1 second',
        r.sample_count, r.time_series_count, r.document
      FROM (${originals}) r, generate_series(1, ${copies}) g`);
    await p.$executeRawUnsafe(`
      INSERT INTO samples (run_id, scenario_version_id, hardware_profile_id, variant, repetition, metric, unit, value, point_param, point_value)
      SELECT ${copy('s.run_id')}, s.scenario_version_id, s.hardware_profile_id, s.variant, s.repetition, s.metric, s.unit, s.value, s.point_param, s.point_value
      FROM samples s JOIN (${originals}) r ON r.id = s.run_id, generate_series(1, ${copies}) g`);
    await p.$executeRawUnsafe(`
      INSERT INTO time_series_points (run_id, variant, repetition, metric, x, value, point_param, point_value)
      SELECT ${copy('t.run_id')}, t.variant, t.repetition, t.metric, t.x, t.value, t.point_param, t.point_value
      FROM time_series_points t JOIN (${originals}) r ON r.id = t.run_id, generate_series(1, ${copies}) g`);
  } finally {
    await db.close();
  }
  return seeded * (copies + 1);
}
