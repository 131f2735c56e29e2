import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunSubmission, type MeasuredHardware } from '@tunelab/contracts';
import { hardwareFingerprint, type ResultsDb } from './index.ts';
import { BACKENDS, useResultsDb } from './test-backends.ts';
import { ingestDocument, prismaOf, probeFigures } from './testing.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

const figures = probeFigures;

/** The fixture on a virtual disk the kernel's flags cannot class, with the given figures (or none). */
function onMachine(cpuModel: string, measured: MeasuredHardware | null, startedAt: string) {
  const doc = structuredClone(fixture);
  doc.hardware.cpuModel = cpuModel;
  doc.hardware.storage = { kind: 'unknown', model: 'QEMU HARDDISK' };
  if (measured) doc.hardware.measured = measured;
  doc.startedAt = startedAt;
  doc.finishedAt = startedAt.replace('T04', 'T05');
  return doc;
}

for (const backend of BACKENDS) {
  describe(`hardware measurements on ${backend}`, () => {
    const getDb = useResultsDb(backend);
    let db: ResultsDb;
    beforeAll(() => {
      db = getDb();
    });

    it('stores each run’s figures; figures that change never split the machine, and one slower reading does not move its class', async () => {
      const cpu = 'Probe CPU A';
      const first = await ingestDocument(db, onMachine(cpu, figures({}), '2026-11-26T04:00:00.000Z'), 'm-1');
      expect(first.run.hardware.class).toBe('2 cores / 24 GB / SSD-like');
      // Loaded the next day: every figure differs, the tier too (HDD-like by its reads).
      const slow = figures({ fsyncP50Us: 9100, fsyncP99Us: 48000, readIopsQd1: 150, readIopsQd16: 410, cpuScore: 700 });
      const second = await ingestDocument(db, onMachine(cpu, slow, '2026-11-27T04:00:00.000Z'), 'm-2');
      expect(second.run.hardware.fingerprint).toBe(first.run.hardware.fingerprint);
      expect(second.run.hardware.class).toBe('2 cores / 24 GB / SSD-like');
      const prisma = prismaOf(db);
      const profile = await prisma.hardwareProfile.findUniqueOrThrow({
        where: { fingerprint: first.run.hardware.fingerprint },
        select: { id: true, storageTier: true, hardwareClass: true, _count: { select: { runs: true } } },
      });
      expect(profile).toMatchObject({ storageTier: 'ssd-like', hardwareClass: '2 cores / 24 GB / SSD-like' });
      expect(profile._count.runs).toBe(2);
      const rows = await prisma.hardwareMeasurement.findMany({
        where: { hardwareProfileId: profile.id },
        orderBy: { measuredAt: 'asc' },
      });
      expect(
        rows.map((r) => [
          r.runId,
          r.storageTier,
          r.readIopsQd1,
          r.fsyncP50Us,
          r.diskTool,
          r.loadAverage1m,
          r.logicalCpus,
        ]),
      ).toEqual(
        expect.arrayContaining([
          [first.run.id, 'ssd-like', 15_951, 155.5, 'fio-3.33', 1.68, 2],
          [second.run.id, 'hdd-like', 150, 9100, 'fio-3.33', 1.68, 2],
        ]),
      );
      expect(rows).toHaveLength(2);
    });

    it('the tier follows the median of the machine’s probes: one loaded first probe does not fix a wrong class', async () => {
      const cpu = 'Probe CPU M';
      // The first probe ran on a saturated machine: its reads waited for a CPU (network-SSD figures).
      const loaded = figures({ readIopsQd1: 1_500, readIopsQd16: 9_000, loadAverage1m: 15 });
      const a = await ingestDocument(db, onMachine(cpu, loaded, '2026-11-26T04:00:00.000Z'), 'med-1');
      expect(a.run.hardware.class).toBe('2 cores / 24 GB / network SSD');
      const quiet = figures({});
      const b = await ingestDocument(db, onMachine(cpu, quiet, '2026-11-26T04:10:00.000Z'), 'med-2');
      // Median of two (1,500 and 15,951 reads/s): 8,726 — local flash.
      expect(b.run.hardware.class).toBe('2 cores / 24 GB / SSD-like');
      const c = await ingestDocument(db, onMachine(cpu, loaded, '2026-11-26T04:20:00.000Z'), 'med-3');
      // Two loaded readings of three: the median is a loaded one again, and the class says so.
      expect(c.run.hardware.class).toBe('2 cores / 24 GB / network SSD');
      const d = await ingestDocument(db, onMachine(cpu, quiet, '2026-11-26T04:30:00.000Z'), 'med-4');
      const e = await ingestDocument(db, onMachine(cpu, quiet, '2026-11-26T04:40:00.000Z'), 'med-5');
      expect([d, e].map((x) => x.run.hardware.class)).toEqual([
        '2 cores / 24 GB / SSD-like',
        '2 cores / 24 GB / SSD-like',
      ]);
      // One machine throughout, and every run of it is in the class it has now.
      expect(new Set([a, b, c, d, e].map((x) => x.run.hardware.fingerprint)).size).toBe(1);
      const listed = await db.listHardware({ class: '2 cores / 24 GB / SSD-like', limit: 500 });
      expect(listed.items.some((h) => h.fingerprint === a.run.hardware.fingerprint)).toBe(true);
      // A kind the user declared (--storage) is never moved by figures.
      const declared = onMachine('Probe CPU M2', loaded, '2026-11-26T05:00:00.000Z');
      declared.hardware.storage = { kind: 'hdd', model: 'QEMU HARDDISK', declared: true };
      const f = await ingestDocument(db, declared, 'med-6');
      const g = await ingestDocument(db, { ...declared, hardware: { ...declared.hardware, measured: quiet } }, 'med-7');
      expect([f, g].map((x) => x.run.hardware.class)).toEqual(['2 cores / 24 GB / HDD', '2 cores / 24 GB / HDD']);
    });

    it('a machine first stored without a probe takes the tier of its first measured run: "unknown disk" goes', async () => {
      const cpu = 'Probe CPU B';
      const bare = await ingestDocument(db, onMachine(cpu, null, '2026-11-26T04:00:00.000Z'), 'b-1');
      expect(bare.run.hardware.class).toBe('2 cores / 24 GB / unknown disk');
      expect(await prismaOf(db).hardwareMeasurement.count({ where: { runId: bare.run.id } })).toBe(0);
      const fast = figures({ readIopsQd1: 12_000, readIopsQd16: 300_000, seqWriteMBps: 2_000 });
      const measured = await ingestDocument(db, onMachine(cpu, fast, '2026-11-26T04:30:00.000Z'), 'b-2');
      expect(measured.run.hardware).toEqual({
        fingerprint: bare.run.hardware.fingerprint,
        class: '2 cores / 24 GB / NVMe-like',
      });
      const profile = await prismaOf(db).hardwareProfile.findUniqueOrThrow({
        where: { fingerprint: bare.run.hardware.fingerprint },
      });
      expect(profile.hardwareClass).toBe('2 cores / 24 GB / NVMe-like');
      expect(profile.storageTier).toBe('nvme-like');
      expect(hardwareFingerprint(RunSubmission.parse(onMachine(cpu, fast, '2026-11-26T04:30:00.000Z')).hardware)).toBe(
        profile.fingerprint,
      );
    });

    it("a run shows its own figures; the hardware record lists every run's, newest first, and its tier", async () => {
      const cpu = 'Probe CPU D';
      const a = await ingestDocument(
        db,
        onMachine(cpu, figures({ cpuScore: 1000 }), '2026-11-26T04:00:00.000Z'),
        'd-1',
      );
      const b = await ingestDocument(
        db,
        onMachine(cpu, figures({ cpuScore: 2000, measuredAt: '2026-11-27T05:00:00.000Z' }), '2026-11-27T04:00:00.000Z'),
        'd-2',
      );
      const bare = await ingestDocument(db, onMachine(cpu, null, '2026-11-28T04:00:00.000Z'), 'd-3');
      expect((await db.getRun(b.run.id))!.hardwareSpec.measured?.cpuScore).toBe(2000);
      expect((await db.getRun(bare.run.id))!.hardwareSpec.measured).toBeUndefined();
      const [ra, rb, rbare] = await db.getRuns([a.run.id, b.run.id, bare.run.id]);
      expect([ra!.hardwareSpec.measured?.cpuScore, rb!.hardwareSpec.measured?.cpuScore]).toEqual([1000, 2000]);
      expect(rbare!.hardwareSpec.measured).toBeUndefined();
      const hw = await db.getHardware(a.run.hardware.fingerprint);
      expect(hw!.storageTier).toBe('ssd-like');
      expect(hw!.measurements.map((m) => [m.runId, m.cpuScore, m.storageTier])).toEqual([
        [b.run.id, 2000, 'ssd-like'],
        [a.run.id, 1000, 'ssd-like'],
      ]);
      const listed = await db.listHardware({ class: '2 cores / 24 GB / SSD-like', limit: 500 });
      expect(listed.items.find((h) => h.fingerprint === a.run.hardware.fingerprint)?.storageTier).toBe('ssd-like');
    });

    it('a replay stores no second measurement', async () => {
      const doc = onMachine('Probe CPU C', figures({}), '2026-11-26T04:00:00.000Z');
      const a = await ingestDocument(db, doc, 'c-1');
      const b = await ingestDocument(db, doc, 'c-1');
      expect(b.outcome).toBe('replayed');
      expect(b.run.hardware.class).toBe(a.run.hardware.class);
      expect(await prismaOf(db).hardwareMeasurement.count({ where: { runId: a.run.id } })).toBe(1);
    });
  });
}
