import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { hardwareFingerprint, IdempotencyConflictError, requestHash, type ResultsDb } from './index.ts';
import { BACKENDS, useResultsDb } from './test-backends.ts';
import { prismaOf, ingestDocument } from './testing.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

function variantOf(doc: typeof fixture, patch: (d: typeof fixture) => void) {
  const copy = structuredClone(doc);
  patch(copy);
  return copy;
}

for (const backend of BACKENDS) {
  describe(`ingestRun on ${backend}`, () => {
    const getDb = useResultsDb(backend);
    let db: ResultsDb;
    beforeAll(() => {
      db = getDb();
    });

    it('stores a whole submission and reads back the same samples, series and notes', async () => {
      const runner = await db.createRunner('rt');
      const res = await ingestDocument(db, fixture, 'rt-1', runner.id);
      expect(res.outcome).toBe('created');
      const run = await db.getRun(res.run.id);
      expect(run).not.toBeNull();
      const sortKey = (s: { variant: string; repetition: number; metric: string }) =>
        `${s.variant}|${s.repetition}|${s.metric}`;
      expect([...run!.samples].sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual(
        [...fixture.samples].sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
      );
      expect(run!.timeSeries).toEqual(fixture.timeSeries);
      expect(run!.notes).toEqual(fixture.notes);
      expect(run!.order).toEqual(fixture.order);
      expect(run!.params).toEqual(fixture.params);
      expect(run!.databaseEnvironment.settings).toEqual(fixture.database.settings);
      expect(run!.runner).toBeNull(); // its name is not public: no public label was given
      const stored = await prismaOf(db).run.findUniqueOrThrow({
        where: { id: res.run.id },
        select: { document: true },
      });
      expect(stored.document).toEqual(fixture);
    });

    it('stores the sweep point of samples and time-series points; the same unit at two points is two samples', async () => {
      type S = { variant: string; repetition: number; metric: string; unit: string; value: number };
      const swept = variantOf(fixture, (d) => {
        const base = (d.samples as S[]).filter((x) => x.repetition === 1);
        d.samples = [4, 8].flatMap((vus, i) =>
          base.map((x) => ({ ...x, value: x.value + i, point: { param: 'vus', value: vus } })),
        );
        d.timeSeries = [
          {
            variant: base[0]!.variant,
            repetition: 1,
            metric: 'tps',
            x: 1,
            value: 10,
            point: { param: 'vus', value: 8 },
          },
        ];
      });
      const res = await ingestDocument(db, swept, 'sweep-1');
      const run = await db.getRun(res.run.id);
      expect(run!.samples).toHaveLength(swept.samples.length);
      const key = (x: S & { point?: { value: number } }) => `${x.variant}|${x.metric}|${x.point?.value}`;
      expect(run!.samples.map(key).sort()).toEqual(
        (swept.samples as (S & { point: { value: number } })[]).map(key).sort(),
      );
      expect(run!.samples.every((x) => x.point?.param === 'vus')).toBe(true);
      expect(run!.timeSeries).toEqual(swept.timeSeries);
      const withoutPoint = await db.getRun((await ingestDocument(db, fixture, 'sweep-none')).run.id);
      expect(withoutPoint!.samples.some((x) => 'point' in x)).toBe(false);
    });

    it('reuses the hardware profile for a second run from the same machine, even when the clock speed differs', async () => {
      const second = variantOf(fixture, (d) => {
        d.hardware.cpuSpeedGhz = 3.1;
        d.startedAt = '2026-11-22T04:00:00.000Z';
        d.finishedAt = '2026-11-22T04:01:00.000Z';
      });
      const a = await ingestDocument(db, second, 'reuse-2');
      expect(a.run.hardware.fingerprint).toBe(hardwareFingerprint(RunSubmission.parse(fixture).hardware));
      expect(await prismaOf(db).hardwareProfile.count({ where: { fingerprint: a.run.hardware.fingerprint } })).toBe(1);
      const other = variantOf(fixture, (d) => {
        d.hardware.storage = { kind: 'hdd', model: 'WDC WD40EFRX' };
      });
      const b = await ingestDocument(db, other, 'reuse-3');
      expect(b.run.hardware.fingerprint).not.toBe(a.run.hardware.fingerprint);
      expect(b.run.hardware.class).toBe('2 cores / 24 GB / HDD');
      const envs = await prismaOf(db).databaseEnvironment.count();
      expect(envs).toBe(1);
    });

    it('replays the same key and body, refuses the same key with another body, and stores nothing new', async () => {
      await ingestDocument(db, fixture, 'replay-1');
      const before = await prismaOf(db).sample.count();
      const replay = await ingestDocument(db, fixture, 'replay-1');
      expect(replay.outcome).toBe('replayed');
      const changed = variantOf(fixture, (d) => {
        d.samples[0].value = 99;
      });
      await expect(ingestDocument(db, changed, 'replay-1')).rejects.toBeInstanceOf(IdempotencyConflictError);
      expect(await prismaOf(db).sample.count()).toBe(before);
    });

    it('stores every double exactly as JavaScript parsed it (samples travel as float8 arrays)', async () => {
      const values = [0.1, 1 / 3, 1e-300, 5e-324, 9007199254740991, 1.7976931348623157e308, -2.5e-8, 123456.789];
      const doc = variantOf(fixture, (d) => {
        d.startedAt = '2026-11-22T04:30:00.000Z';
        d.finishedAt = '2026-11-22T04:31:00.000Z';
        d.samples = values.map((value, i) => ({ variant: 'v', repetition: i + 1, metric: 'm', unit: 'x', value }));
        d.timeSeries = values.map((value, i) => ({ variant: 'v', repetition: 1, metric: 'm', x: i / 7, value }));
      });
      // 1.8e308 is beyond what the contract now accepts for a sample; ingestRun trusts its caller,
      // and rows stored before that check must still round-trip exactly.
      const inRange = variantOf(doc, (d) => {
        d.samples = d.samples.map((x: { value: number }) => ({ ...x, value: 1 }));
        d.timeSeries = d.timeSeries.map((x: { value: number }) => ({ ...x, value: 1 }));
      });
      const submission = { ...RunSubmission.parse(inRange), samples: doc.samples, timeSeries: doc.timeSeries };
      const res = await db.ingestRun({ submission, document: doc, idempotencyKey: 'doubles', runnerId: null });
      const run = await db.getRun(res.run.id);
      expect(run!.samples.map((x) => x.value)).toEqual(values);
      expect(run!.timeSeries.map((p) => [p.x, p.value])).toEqual(values.map((v, i) => [i / 7, v]));
    });

    it('stores the body text as received as the document when given', async () => {
      const doc = variantOf(fixture, (d) => {
        d.scenario.key = 'raw-text';
      });
      const text = `  ${JSON.stringify(doc, null, 1)}\n`;
      const res = await db.ingestRun({
        submission: RunSubmission.parse(doc),
        document: doc,
        documentText: text,
        idempotencyKey: 'raw-text-1',
        runnerId: null,
      });
      const [row] = await prismaOf(db).$queryRaw<{ text: string }[]>`
        SELECT document::text AS text FROM runs WHERE id = ${res.run.id}::uuid`;
      expect(row?.text).toBe(text);
    });

    it('refuses samples and points of a run that does not exist, and deletes them with their run', async () => {
      // No foreign keys on the children: statement-level triggers keep the integrity.
      const prisma = prismaOf(db);
      const ghost = '00000000-0000-4000-8000-000000000001';
      const doc = variantOf(fixture, (d) => {
        d.scenario.key = 'orphans';
      });
      const res = await ingestDocument(db, doc, 'orphans-1');
      const run = await prisma.run.findUniqueOrThrow({ where: { id: res.run.id } });
      const sample = {
        scenarioVersionId: run.scenarioVersionId,
        hardwareProfileId: run.hardwareProfileId,
        variant: 'v',
        repetition: 1,
        metric: 'm',
        unit: 's',
        value: 1,
      };
      // SQLSTATE 23503, which Prisma reports as a foreign key violation.
      const refused = /does not exist|Foreign key constraint/;
      await expect(prisma.sample.create({ data: { ...sample, runId: ghost } })).rejects.toThrow(refused);
      await expect(
        prisma.$executeRaw`INSERT INTO time_series_points (run_id, variant, repetition, metric, x, value)
          VALUES (${run.id}::uuid, 'v', 1, 'm', 0, 1), (${ghost}::uuid, 'v', 1, 'm', 0, 1)`,
      ).rejects.toThrow(refused);
      await prisma.$executeRaw`INSERT INTO time_series_points (run_id, variant, repetition, metric, x, value)
        VALUES (${run.id}::uuid, 'v', 1, 'm', 0, 1)`;
      await expect(
        prisma.timeSeriesPoint.updateMany({ where: { runId: run.id }, data: { runId: ghost } }),
      ).rejects.toThrow(refused);
      await expect(prisma.run.update({ where: { id: run.id }, data: { id: ghost } })).rejects.toThrow(
        /cannot change|Foreign key constraint/,
      );
      expect(await prisma.sample.count({ where: { runId: ghost } })).toBe(0);
      expect(await prisma.timeSeriesPoint.count({ where: { runId: ghost } })).toBe(0);

      // A child of an existing run is accepted, and deleting the run deletes all of its children.
      await prisma.sample.create({ data: { ...sample, runId: run.id, metric: 'extra' } });
      expect(await prisma.sample.count({ where: { runId: run.id } })).toBe(fixture.samples.length + 1);
      expect(await prisma.timeSeriesPoint.count({ where: { runId: run.id } })).toBe(fixture.timeSeries.length + 1);
      await prisma.run.delete({ where: { id: run.id } });
      expect(await prisma.sample.count({ where: { runId: run.id } })).toBe(0);
      expect(await prisma.timeSeriesPoint.count({ where: { runId: run.id } })).toBe(0);
      const [orphans] = await prisma.$queryRaw<{ n: bigint }[]>`
        SELECT (SELECT count(*) FROM samples s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = s.run_id))
             + (SELECT count(*) FROM time_series_points p WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = p.run_id)) AS n`;
      expect(Number(orphans?.n)).toBe(0);
    });

    it('replays a body sent as other text (key order, whitespace) and runs hashed the old, canonical way', async () => {
      const doc = variantOf(fixture, (d) => {
        d.scenario.key = 'replay-text';
      });
      const input = {
        submission: RunSubmission.parse(doc),
        document: doc,
        idempotencyKey: 'replay-text-1',
        runnerId: null,
      };
      const first = await db.ingestRun({ ...input, documentText: JSON.stringify(doc) });
      const reordered = Object.fromEntries(Object.entries(doc).reverse());
      const again = await db.ingestRun({
        ...input,
        document: reordered,
        documentText: JSON.stringify(reordered, null, 2),
      });
      expect(again.outcome).toBe('replayed');
      expect(again.run.id).toBe(first.run.id);
      // Runs stored before request_hash hashed the text hold the hash of the canonical JSON.
      await prismaOf(db).run.update({ where: { id: first.run.id }, data: { requestHash: requestHash(doc) } });
      expect((await db.ingestRun(input)).outcome).toBe('replayed');
      const changed = variantOf(doc, (d) => {
        d.samples[0].value += 1;
      });
      await expect(
        db.ingestRun({ ...input, submission: RunSubmission.parse(changed), document: changed }),
      ).rejects.toBeInstanceOf(IdempotencyConflictError);
    });

    it('stores text that array literals must quote: NULL, quotes, backslashes, braces, commas', async () => {
      const units = ['a"b', 'c\\d', '{e,f}', 'NULL', ' g ', 'ü µs'];
      const doc = variantOf(fixture, (d) => {
        d.scenario.key = 'quoting';
        d.samples = units.map((unit, i) => ({ variant: 'NULL', repetition: 1, metric: `m${i}`, unit, value: i }));
        d.timeSeries = [
          { variant: 'NULL', repetition: 2, metric: 'null', x: 0, value: 1, point: { param: 'NULL', value: 3 } },
        ];
      });
      const res = await ingestDocument(db, doc, 'quoting-1');
      const run = await db.getRun(res.run.id);
      expect(run!.samples.map((x) => [x.variant, x.metric, x.unit])).toEqual(
        units.map((unit, i) => ['NULL', `m${i}`, unit]),
      );
      expect(run!.timeSeries).toEqual(doc.timeSeries);
    });

    it('keeps the comparison pairs a scenario version declares', async () => {
      const declared = variantOf(fixture, (d) => {
        d.scenario.version = 'b'.repeat(64);
        d.scenario.comparisons = [
          { baseline: '1-1', candidate: '1-2' },
          { baseline: '2-1', candidate: '2-2' },
        ];
      });
      await ingestDocument(db, declared, 'declared-1');
      const v = await prismaOf(db).scenarioVersion.findFirstOrThrow({ where: { versionHash: 'b'.repeat(64) } });
      expect(v.comparisons).toEqual(declared.scenario.comparisons);
      const cmp = await db.compare({
        scenario: 'vacuum-index-cleanup',
        metric: 'duration',
        source: 'measured',
        groupBy: 'hardware',
        direction: 'lower-is-better',
      });
      const group = cmp.groups.find((g) => g.scenario.version === 'b'.repeat(64));
      expect(group?.pairsFrom).toBe('declared');
      expect(group?.comparisons.map((c) => `${c.baseline}>${c.candidate}`)).toEqual(['1-1>1-2', '2-1>2-2']);
    });

    it('pages through runs with a cursor, newest first, without repeats', async () => {
      // Runs of a scenario of its own, so the test does not depend on what other tests stored.
      const ids: string[] = [];
      for (const hour of ['01', '02', '03', '04', '05']) {
        const doc = variantOf(fixture, (d) => {
          d.scenario.key = 'paging';
          d.startedAt = `2026-11-23T${hour}:00:00.000Z`;
          d.finishedAt = `2026-11-23T${hour}:01:00.000Z`;
        });
        ids.push((await ingestDocument(db, doc, `paging-${hour}`)).run.id);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await db.listRuns({ scenario: 'paging', source: 'all', limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map((r) => r.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toHaveLength(5);
      expect([...seen].sort()).toEqual([...ids].sort());
    });
  });
}
