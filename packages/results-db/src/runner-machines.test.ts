/**
 * A machine is its runner's: another runner that reports the same spec (copied from a public
 * hardware page) is another machine, so its probe figures move only its own profile and class,
 * never the honest runner's. Runs without a runner (imported articles) keep the plain fingerprint.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { AnswersQuery, RunSubmission, type MeasuredHardware } from '@tunelab/contracts';
import { hardwareFingerprint, type ResultsDb } from './index.ts';
import { BACKENDS, useResultsDb } from './test-backends.ts';
import { ingestDocument, probeFigures } from './testing.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

const figures = probeFigures;
const HDD = figures({ fsyncP50Us: 9100, fsyncP99Us: 48000, readIopsQd1: 150, readIopsQd16: 410, seqWriteMBps: 90 });

/** The fixture on a virtual disk the probe classes, at `day` (the 20th, 21st, …). */
function onDisk(measured: MeasuredHardware, day: number, cpuModel = 'Shared Spec CPU') {
  const doc = structuredClone(fixture);
  doc.hardware.cpuModel = cpuModel;
  doc.hardware.storage = { kind: 'unknown', model: 'QEMU HARDDISK' };
  doc.hardware.measured = measured;
  doc.startedAt = `2026-11-${day}T04:00:00.000Z`;
  doc.finishedAt = `2026-11-${day}T05:00:00.000Z`;
  return doc;
}

for (const backend of BACKENDS) {
  describe(`a machine is its runner's, on ${backend}`, () => {
    const getDb = useResultsDb(backend);
    let db: ResultsDb;
    beforeAll(() => {
      db = getDb();
    });

    it("a second runner copying the spec gets its own profile; its slow figures leave the honest machine's class and page as they were", async () => {
      const honest = await db.createRunner(`honest-${backend}`);
      const hostile = await db.createRunner(`copycat-${backend}`);
      const mine = await ingestDocument(db, onDisk(figures({}), 20), 'honest-1', honest.id);
      expect(mine.run.hardware.class).toBe('2 cores / 24 GB / SSD-like');
      const before = await db.getHardware(mine.run.hardware.fingerprint);

      // Five HDD-like probes of the same spec would be the median of six and move a shared profile.
      const theirs = [];
      for (const day of [21, 22, 23, 24, 25])
        theirs.push(await ingestDocument(db, onDisk(HDD, day), `copycat-${day}`, hostile.id));
      expect(new Set(theirs.map((r) => r.run.hardware.fingerprint)).size).toBe(1);
      expect(theirs[0]!.run.hardware.fingerprint).not.toBe(mine.run.hardware.fingerprint);
      expect(theirs[0]!.run.hardware.class).toBe('2 cores / 24 GB / HDD-like');

      const after = await db.getHardware(mine.run.hardware.fingerprint);
      expect(after).toEqual(before);
      expect(after?.class).toBe('2 cores / 24 GB / SSD-like');
      expect(after?.runs).toBe(1);
      // The honest runner's next run is still the same machine.
      const again = await ingestDocument(db, onDisk(figures({ readIopsQd1: 15_000 }), 26), 'honest-2', honest.id);
      expect(again.run.hardware.fingerprint).toBe(mine.run.hardware.fingerprint);
    });

    it('the classes view says which class one runner stands behind', async () => {
      // Two owners' machines of one class (SSD-like, with the first test's honest runner: three),
      // and one runner's machine alone in its class (16 GB, HDD-like).
      const [a, b, c] = await Promise.all(
        ['owner-a', 'owner-b', 'lone'].map((n) => db.createRunner(`${n}-${backend}`)),
      );
      await ingestDocument(db, onDisk(figures({}), 20, 'Owner A CPU'), 'views-a', a!.id);
      await ingestDocument(db, onDisk(figures({}), 21, 'Owner B CPU'), 'views-b', b!.id);
      const lone = onDisk(HDD, 22, 'Lone CPU');
      lone.hardware.memoryBytes = 16 * 1024 ** 3;
      await ingestDocument(db, lone, 'views-c', c!.id);
      const answers = await db.answers(AnswersQuery.parse({ scenario: 'vacuum-index-cleanup' }));
      const comparisons = answers!.classes.comparisons.filter((cmp) =>
        cmp.rows.some((r) => r.hardwareClass === '2 cores / 16 GB / HDD-like'),
      );
      expect(comparisons.length).toBeGreaterThan(0);
      for (const cmp of comparisons) {
        const runners = Object.fromEntries(cmp.rows.map((r) => [r.hardwareClass, r.runners]));
        expect(runners['2 cores / 24 GB / SSD-like']).toBeGreaterThanOrEqual(2);
        expect(runners['2 cores / 16 GB / HDD-like']).toBe(1);
        expect(cmp.summary).toMatch(
          /One runner stands behind [^:]*2 cores \/ 16 GB \/ HDD-like[^:]*: (its|their) runs are one machine owner's/,
        );
        expect(cmp.summary).not.toMatch(/One runner stands behind [^.]*SSD-like/);
      }
    });

    it('an agent takes a job for its machine’s kept class, though the spec it announces has no disk figures or a busy moment’s', async () => {
      const runner = await db.createRunner(`agent-${backend}`);
      const stored = await ingestDocument(db, onDisk(figures({}), 20, 'Agent CPU'), 'agent-1', runner.id);
      expect(stored.run.hardware.class).toBe('2 cores / 24 GB / SSD-like');
      const fleet = db.openFleet({ leaseSeconds: 10, pollMs: 100 });
      await fleet.start();
      try {
        const job = await fleet.requestJob(
          { scenario: 'vacuum-index-cleanup', params: {}, for: { class: '2 cores / 24 GB / SSD-like' }, priority: 0 },
          null,
        );
        // What `tunelab agent` announces: its spec without figures (a managed server's agent does
        // not measure the disk at start), or with a busy moment's that read HDD-like.
        const { measured: _figures, ...bare } = onDisk(figures({}), 21, 'Agent CPU').hardware;
        const agent = { runnerName: runner.name, hardware: bare, labels: [], engine: 'postgresql', server: 15 };
        // Without the runner, the spec alone names another class ("unknown" storage): not this job.
        expect(await fleet.claim(agent, 0)).toBeNull();
        const busy = onDisk(HDD, 21, 'Agent CPU').hardware;
        expect(await fleet.claim({ ...agent, hardware: busy }, 0)).toBeNull();
        // The runner's machine is known: its kept class is matched.
        const claimed = await fleet.claim({ ...agent, hardware: busy, runnerId: runner.id }, 0);
        expect(claimed?.id).toBe(job.id);
        await fleet.cancelJob(job.id);
      } finally {
        await fleet.stop();
      }
    });

    it('a run without a runner (an imported article) keeps the plain fingerprint of its spec', async () => {
      const doc = onDisk(figures({}), 27);
      const res = await ingestDocument(db, doc, 'no-runner', null);
      expect(res.run.hardware.fingerprint).toBe(hardwareFingerprint(RunSubmission.parse(doc).hardware));
    });
  });
}
