/**
 * Test and bench data: runs shaped like tests/fixtures/sample-submission.json, ingested through
 * results-db's own ingestRun (ingestDocument: as a submission would be), plus the articles' published figures through importPublished.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunSubmission, type RunSubmissionInput } from '@tunelab/contracts';
import { sha256Hex } from '@tunelab/scenarios';
import { seededRandom } from '@tunelab/stats';
import type { ResultsDb } from '@tunelab/results-db';
import { ingestDocument } from '@tunelab/results-db/testing';
import { findRepoRoot } from '../src/lib/env.ts';

export const REPO_ROOT = findRepoRoot();
export const SCENARIOS_DIR = join(REPO_ROOT, 'scenarios');
export const SAMPLE: RunSubmissionInput = JSON.parse(
  readFileSync(join(REPO_ROOT, 'tests/fixtures/sample-submission.json'), 'utf8'),
);

/** Deterministic pseudo-random numbers, so builds of the same data are identical. */
const rng = (seed: string) => seededRandom(Buffer.from(sha256Hex(seed), 'hex').readUInt32LE(0));

export type MachineSpec = {
  cores: number;
  memoryGb: number;
  disk: 'ssd' | 'hdd' | 'nvme' | 'unknown';
  cpuModel?: string;
  id?: string;
};

/** How a run differs from the sample: its parameters and settings, or two variants' values swapped. */
export type RunTweaks = { params?: Record<string, number>; settings?: Record<string, string>; swap?: [string, string] };

/** A submission like the sample, on `machine`, with durations scaled and jittered per run. */
export function sampleRun(
  machine: MachineSpec,
  run: number,
  startedAt = new Date(Date.UTC(2026, 10, 20, 3, 0, 0) + run * 60_000),
  tweaks: RunTweaks = {},
): RunSubmission {
  const r = rng(`${machine.id ?? ''}/${machine.cores}/${machine.memoryGb}/${machine.disk}/${run}`);
  const diskFactor = machine.disk === 'hdd' ? 3 : machine.disk === 'nvme' ? 0.7 : 1;
  const scale = diskFactor * (4 / Math.max(1, Math.min(machine.cores, 16))) ** 0.3;
  const submission = {
    ...SAMPLE,
    hardware: {
      ...SAMPLE.hardware,
      cpuModel: machine.cpuModel ?? `Synthetic CPU ${machine.cores}C${machine.id ? ` #${machine.id}` : ''}`,
      physicalCores: machine.cores,
      logicalCpus: machine.cores,
      memoryBytes: machine.memoryGb * 1024 ** 3,
      storage: { kind: machine.disk, model: SAMPLE.hardware.storage.model ?? null },
    },
    startedAt: startedAt.toISOString(),
    finishedAt: new Date(startedAt.getTime() + 65_000).toISOString(),
    samples: SAMPLE.samples.map((s) => ({
      ...s,
      value: s.metric === 'duration' ? Number((s.value * scale * (0.95 + 0.1 * r())).toFixed(3)) : s.value,
    })),
    params: { ...SAMPLE.params, ...tweaks.params },
    database: { ...SAMPLE.database, settings: { ...SAMPLE.database.settings, ...tweaks.settings } },
  };
  const swap = tweaks.swap;
  if (swap) {
    const flip = (v: string) => (v === swap[0] ? swap[1] : v === swap[1] ? swap[0] : v);
    submission.samples = submission.samples.map((s) => ({ ...s, variant: flip(s.variant) }));
  }
  return RunSubmission.parse(submission);
}

/**
 * A run of a swept scenario (recovery-init-sync: sync time per table count, fsync vs syncfs) and
 * one of a time-series scenario (innodb-compression-insert: rows/s against rows inserted, where
 * the compressed line crosses the plain one): what the generic sweep and series charts read.
 */
export function sweepAndSeriesRuns(machine: MachineSpec): RunSubmission[] {
  const r = rng(`sweep/${machine.cores}/${machine.memoryGb}`);
  const hardware = { ...sampleRun(machine, 0).hardware };
  const base = {
    params: {},
    hardware,
    runnerVersion: SAMPLE.runnerVersion,
    startedAt: '2026-11-21T03:00:00.000Z',
    finishedAt: '2026-11-21T03:30:00.000Z',
  };
  const sweep = RunSubmission.parse({
    ...base,
    scenario: {
      key: 'recovery-init-sync',
      version: 'b'.repeat(64),
      comparisons: [{ baseline: 'fsync', candidate: 'syncfs' }],
    },
    database: { ...SAMPLE.database, settings: {} },
    samples: [3000, 10000, 30000].flatMap((tables) =>
      (['fsync', 'syncfs'] as const).flatMap((variant) =>
        [1, 2, 3].flatMap((repetition) => [
          {
            variant,
            repetition,
            metric: 'sync_duration',
            unit: 'ms',
            value: Math.round(tables * (variant === 'fsync' ? 0.17 : 0.012) * (0.95 + 0.1 * r()) + 5),
            point: { param: 'tables', value: tables },
          },
          // What report.fits pairs the sync time with: one file per empty table plus the catalog's.
          {
            variant,
            repetition,
            metric: 'datadir_files',
            unit: 'files',
            value: tables + 1000,
            point: { param: 'tables', value: tables },
          },
        ]),
      ),
    ),
  });
  const series = RunSubmission.parse({
    ...base,
    scenario: {
      key: 'innodb-compression-insert',
      version: 'c'.repeat(64),
      comparisons: [{ baseline: 'uncompressed', candidate: 'compressed-kbs4' }],
    },
    database: { engine: 'mariadb', version: '10.11.11-MariaDB', major: 10, minor: 11, settings: {} },
    samples: (['uncompressed', 'compressed-kbs4'] as const).flatMap((variant) =>
      [1, 2].map((repetition) => ({
        variant,
        repetition,
        metric: 'rows_per_s',
        unit: 'rows/s',
        value: variant === 'uncompressed' ? 52_000 + 1000 * r() : 31_000 + 1000 * r(),
      })),
    ),
    // Plain inserts fast until the buffer pool fills, then fall below the steady compressed rate.
    timeSeries: (['uncompressed', 'compressed-kbs4'] as const).flatMap((variant) =>
      [1, 2].flatMap((repetition) =>
        Array.from({ length: 10 }, (_, i) => ({
          variant,
          repetition,
          metric: 'rows_per_s',
          x: (i + 1) * 100_000,
          value: Math.round((variant === 'uncompressed' ? (i < 5 ? 60_000 : 18_000) : 30_000) * (0.97 + 0.06 * r())),
        })),
      ),
    ),
  });
  // fillfactor-hot-updates: the data size after the rewrite per fillfactor (what report.ratios
  // divides by ff100; measured here 118.5 / 142.5 / 182.6 / 266.4 MB) and NOPM per virtual users.
  const sizes = { ff100: 118.5, ff80: 142.5, ff60: 182.6, ff40: 266.4 } as const;
  const ratios = RunSubmission.parse({
    ...base,
    scenario: {
      key: 'fillfactor-hot-updates',
      version: 'd'.repeat(64),
      comparisons: (['ff80', 'ff60', 'ff40'] as const).map((candidate) => ({ baseline: 'ff100', candidate })),
    },
    // The article's scale and window, so the declared conditions (a 60 min window) hold.
    params: { warehouses: 500, mix: 'hammerdb', ramp_up: 120, duration: 18_000 },
    database: { ...SAMPLE.database, settings: {} },
    samples: [1, 2, 4].flatMap((vus) =>
      Object.entries(sizes).flatMap(([variant, mb]) => {
        const point = { param: 'vus', value: vus };
        return [
          {
            variant,
            repetition: 1,
            point,
            metric: 'database_size_before',
            unit: 'MB',
            value: Math.round(mb * (0.998 + 0.004 * r()) * 10) / 10,
          },
          {
            variant,
            repetition: 1,
            point,
            metric: 'nopm',
            unit: 'NOPM',
            value: Math.round(2000 * vus * (0.9 + 0.2 * r())),
          },
        ];
      }),
    ),
  });
  return [sweep, series, ratios];
}

/** Migrates, imports the published articles and ingests measured runs on two hardware classes. */
export async function seedDemo(db: ResultsDb): Promise<{ runIds: string[] }> {
  await db.migrate();
  await db.importPublished(SCENARIOS_DIR);
  const runIds: string[] = [];
  const machines: MachineSpec[] = [
    // The sample's own machine (its first run is the sample itself).
    { cores: 2, memoryGb: 24, disk: 'ssd', cpuModel: SAMPLE.hardware.cpuModel },
    { cores: 8, memoryGb: 32, disk: 'nvme', cpuModel: 'Intel Xeon Gold 6338' },
  ];
  for (const [i, m] of machines.entries()) {
    for (let run = 0; run < 2; run++) {
      const submission = i === 0 && run === 0 ? RunSubmission.parse(SAMPLE) : sampleRun(m, run);
      const res = await ingestDocument(db, submission, `site-seed-${i}-${run}`);
      runIds.push(res.run.id);
    }
  }
  // Two classes at the article's scale and settings: one that agrees with it, one whose
  // 1-1 and 1-2 are swapped (the answer block must say "contradicts" there).
  const articleScale: RunTweaks = {
    params: { rows: 29_999_999 },
    settings: {
      maintenance_work_mem: '1638MB',
      max_parallel_maintenance_workers: '4',
      shared_buffers: '8GB',
      max_wal_size: '8GB',
      synchronous_commit: 'off',
      wal_compression: 'off',
      autovacuum: 'off',
    },
  };
  const atScale: [MachineSpec, RunTweaks][] = [
    [{ cores: 8, memoryGb: 32, disk: 'ssd', cpuModel: 'Intel Xeon E5-2680 v4' }, articleScale],
    [
      { cores: 4, memoryGb: 16, disk: 'ssd', cpuModel: 'AMD Ryzen 5 3600' },
      { ...articleScale, swap: ['1-1', '1-2'] },
    ],
  ];
  for (const [i, submission] of sweepAndSeriesRuns({
    cores: 2,
    memoryGb: 24,
    disk: 'ssd',
    cpuModel: 'AMD EPYC 7B13',
  }).entries()) {
    const res = await ingestDocument(db, submission, `site-seed-sweep-${i}`);
    runIds.push(res.run.id);
  }
  for (const [i, [m, tweaks]] of atScale.entries()) {
    for (let run = 0; run < 2; run++) {
      const submission = sampleRun(m, run, undefined, tweaks);
      const res = await ingestDocument(db, submission, `site-seed-scale-${i}-${run}`);
      runIds.push(res.run.id);
    }
  }
  return { runIds };
}
