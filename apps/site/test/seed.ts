/**
 * Test and bench data: runs shaped like tests/fixtures/sample-submission.json, ingested through
 * results-db's own ingestRun, plus the articles' published figures through importPublished.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { RunSubmission, type RunSubmissionInput } from '@tunelab/contracts';
import type { ResultsDb } from '@tunelab/results-db';
import { findRepoRoot } from '../src/lib/env.ts';

export const REPO_ROOT = findRepoRoot();
export const SCENARIOS_DIR = join(REPO_ROOT, 'scenarios');
export const SAMPLE: RunSubmissionInput = JSON.parse(readFileSync(join(REPO_ROOT, 'tests/fixtures/sample-submission.json'), 'utf8'));

/** Deterministic pseudo-random numbers, so builds of the same data are identical. */
function rng(seed: string) {
  let h = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    h = (h + 0x6d2b79f5) >>> 0;
    let t = h;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type MachineSpec = { cores: number; memoryGb: number; disk: 'ssd' | 'hdd' | 'nvme'; cpuModel?: string; id?: string };

/** A submission like the sample, on `machine`, with durations scaled and jittered per run. */
export function sampleRun(machine: MachineSpec, run: number, startedAt = new Date(Date.UTC(2026, 10, 20, 3, 0, 0) + run * 60_000)): RunSubmission {
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
    samples: SAMPLE.samples.map((s) => ({ ...s, value: s.metric === 'duration' ? Number((s.value * scale * (0.95 + 0.1 * r())).toFixed(3)) : s.value })),
  };
  return RunSubmission.parse(submission);
}

/** Migrates, imports the published articles and ingests measured runs on two hardware classes. */
export async function seedDemo(db: ResultsDb): Promise<{ runIds: string[] }> {
  await db.migrate();
  await db.importPublished(SCENARIOS_DIR);
  const runIds: string[] = [];
  const machines: MachineSpec[] = [
    { cores: 2, memoryGb: 24, disk: 'ssd', cpuModel: 'AMD EPYC 7B13' },
    { cores: 8, memoryGb: 32, disk: 'nvme', cpuModel: 'Intel Xeon Gold 6338' },
  ];
  for (const [i, m] of machines.entries()) {
    for (let run = 0; run < 2; run++) {
      const submission = i === 0 && run === 0 ? RunSubmission.parse(SAMPLE) : sampleRun(m, run);
      const res = await db.ingestRun({ submission, document: submission, idempotencyKey: `site-seed-${i}-${run}`, runnerId: null });
      runIds.push(res.run.id);
    }
  }
  return { runIds };
}
