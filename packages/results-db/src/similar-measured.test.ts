/**
 * "Hardware like mine" by measured distance over a real results database, on
 * PostgreSQL and PGlite: classes with and without probes, a machine's own figures as the median of
 * its probes, the storage of a virtual disk from its measured tier, and what `basis` says.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RunSubmission,
  SimilarBySpecQuery,
  SimilarHardwareQuery,
  type MeasuredHardware,
  type StorageKind,
} from '@tunelab/contracts';
import { classFigures } from '@tunelab/answers/similar';
import { openResultsDb, type ResultsDb } from './index.ts';
import { createTestDatabase } from './test-database.ts';
import { ingestDocument } from './testing.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);
const GIB = 1024 ** 3;
const NODE20 = 'tunelab-cpu-1/node-20';

const probe = (
  fsyncP50Us: number,
  readIopsQd1: number,
  seqWriteMBps: number,
  cpuScore: number,
  cpuWorkload = NODE20,
): MeasuredHardware => ({
  measuredAt: '2026-11-26T05:00:00.000Z',
  durationMs: 4200,
  diskTool: 'fio-3.33',
  fsyncP50Us,
  fsyncP99Us: fsyncP50Us * 4,
  fsyncSamples: 400,
  readIopsQd1,
  readIopsQd16: readIopsQd1 * 3,
  seqWriteMBps,
  cpuScore,
  cpuWorkload,
  notes: [],
});

/** The fixture's run on a machine of its own (cpuModel), with a probe or none. */
function run(cpuModel: string, cores: number, memoryGb: number, kind: StorageKind, measured: MeasuredHardware | null) {
  const doc = structuredClone(fixture);
  doc.hardware = {
    ...doc.hardware,
    cpuModel,
    physicalCores: cores,
    logicalCpus: cores,
    memoryBytes: memoryGb * GIB,
    storage: { kind, model: null },
  };
  if (measured) doc.hardware.measured = measured;
  return RunSubmission.parse(doc);
}

for (const backend of ['postgresql', 'pglite'] as const) {
  describe(`hardware like mine by measured distance, on ${backend}`, () => {
    let db: ResultsDb;
    let pgdb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    const fingerprints: Record<string, string> = {};
    beforeAll(async () => {
      if (backend === 'postgresql') pgdb = await createTestDatabase('h_sim_t');
      db = await openResultsDb(pgdb?.url, { dataDir: 'memory://' });
      await db.migrate();
      const runs: [string, RunSubmission][] = [
        // A virtual disk measured SSD-like, probed twice (the class's figures are the medians).
        ['vm-ssd', run('VM SSD', 2, 24, 'unknown', probe(2000, 4000, 100, 10_000))],
        ['vm-ssd', run('VM SSD', 2, 24, 'unknown', probe(3000, 5000, 140, 12_000))],
        // The same size on a virtual disk measured HDD-like.
        ['vm-hdd', run('VM HDD', 2, 24, 'unknown', probe(9000, 150, 60, 9000))],
        // The same size, the kernel says SSD, never probed.
        ['bare-ssd', run('Bare SSD', 2, 24, 'ssd', null)],
        // Four times the cores, measured NVMe-like.
        ['big-nvme', run('Big NVMe', 8, 24, 'unknown', probe(100, 20_000, 900, 20_000))],
      ];
      for (const [i, [name, submission]] of runs.entries()) {
        const r = await ingestDocument(db, submission, `h-sim-${backend}-${i}`);
        fingerprints[name] = r.run.hardware.fingerprint;
      }
    });
    afterAll(async () => {
      await db?.close();
      await pgdb?.drop();
    });

    const bySpec = (q: Record<string, string | number>) => db.findSimilarBySpec(SimilarBySpecQuery.parse(q));

    it('ranks by the figures both sides have, and says which in basis', async () => {
      // The VM's own median figures: fsync 2500 µs, 4500 reads/s, 120 MB/s, CPU 11,000.
      const res = await bySpec({
        cores: 2,
        memoryGb: 24,
        storage: 'unknown',
        fsyncP50Us: 2500,
        readIopsQd1: 4500,
        seqWriteMBps: 120,
        cpuScore: 11_000,
        cpuWorkload: NODE20,
      });
      expect(res.spec).toMatchObject({ storage: 'ssd', storageTier: 'ssd-like' });
      expect(res.like).toBe(true);
      expect(res.items.map((i) => [i.class, i.storage, i.sameStorage, i.distance, i.basis.join(',')])).toEqual([
        ['2 cores / 24 GB / SSD-like', 'ssd', true, 0, 'cores,memory,fsync,iops,mbps,cpu'],
        // Never probed: ranked by cores, memory and the kernel's kind, and it says so.
        ['2 cores / 24 GB / SSD', 'ssd', true, 0, 'cores,memory'],
        // Other storage, nearest first: HDD-like (1.34: its reads are 30× fewer) before NVMe-like (2.09).
        ['2 cores / 24 GB / HDD-like', 'hdd', false, expect.any(Number), 'cores,memory,fsync,iops,mbps,cpu'],
        ['8 cores / 24 GB / NVMe-like', 'nvme', false, expect.any(Number), 'cores,memory,fsync,iops,mbps,cpu'],
      ]);
      const vm = res.items[0]!;
      expect(vm).toMatchObject({
        storageKind: 'unknown',
        storageTier: 'ssd-like',
        probes: 2,
        runs: 2,
        figures: { fsyncP50Us: 2500, readIopsQd1: 4500, seqWriteMBps: 120, cpu: [{ workload: NODE20, score: 11_000 }] },
      });
      expect(res.items[1]).toMatchObject({ figures: null, probes: 0, storageTier: null });
      // NVMe: cores ×4 (2), fsync ÷25, reads ×4.4, writes ×7.5, CPU ×1.8 — the mean of six |log2|.
      const nvme = res.items[3]!;
      const want =
        (2 + Math.log2(2500 / 100) + Math.log2(20_000 / 4500) + Math.log2(900 / 120) + Math.log2(20_000 / 11_000)) / 6;
      expect(nvme.distance).toBeCloseTo(want, 4);
    });

    it('without figures ranks as before (cores, memory, storage); a measured tier stands for an unknown kind', async () => {
      const res = await bySpec({ cores: 2, memoryGb: 24, storage: 'hdd' });
      expect(res.spec).toMatchObject({ storage: 'hdd', storageTier: null, figures: null });
      expect(res.items[0]).toMatchObject({ class: '2 cores / 24 GB / HDD-like', sameStorage: true, distance: 0 });
      expect(res.items.every((i) => i.basis.join() === 'cores,memory')).toBe(true);
      expect(res.like).toBe(true);
      // No storage given: the tier of the reads (150/s: HDD-like) stands for it.
      const slow = await bySpec({ cores: 2, memoryGb: 24, readIopsQd1: 160 });
      expect(slow.spec).toMatchObject({ storage: 'hdd', storageTier: 'hdd-like' });
      expect(slow.items[0]).toMatchObject({ class: '2 cores / 24 GB / HDD-like', basis: ['cores', 'memory', 'iops'] });
    });

    it('compares a CPU score only with scores of the same workload', async () => {
      const res = await bySpec({
        cores: 2,
        memoryGb: 24,
        storage: 'ssd',
        cpuScore: 11_000,
        cpuWorkload: 'tunelab-cpu-1/node-22',
      });
      expect(res.items[0]).toMatchObject({ class: '2 cores / 24 GB / SSD-like', basis: ['cores', 'memory'] });
    });

    it('a stored machine: its figures are the median of its probes, its own class nearest', async () => {
      const res = (await db.findSimilarHardware(fingerprints['vm-ssd']!, SimilarHardwareQuery.parse({})))!;
      expect(res.machine).toMatchObject({
        storageKind: 'unknown',
        storageTier: 'ssd-like',
        storage: 'ssd',
        probes: 2,
        figures: classFigures([
          { fsyncP50Us: 2000, readIopsQd1: 4000, seqWriteMBps: 100, cpuScore: 10_000, cpuWorkload: NODE20 },
          { fsyncP50Us: 3000, readIopsQd1: 5000, seqWriteMBps: 140, cpuScore: 12_000, cpuWorkload: NODE20 },
        ]),
      });
      expect(res.items[0]).toMatchObject({
        class: '2 cores / 24 GB / SSD-like',
        distance: 0,
        basis: expect.arrayContaining(['fsync', 'cpu']),
      });
      const bare = (await db.findSimilarHardware(fingerprints['bare-ssd']!, SimilarHardwareQuery.parse({})))!;
      expect(bare.machine).toMatchObject({ storage: 'ssd', figures: null, probes: 0 });
      expect(bare.items.every((i) => i.basis.join() === 'cores,memory')).toBe(true);
    });
  });
}
