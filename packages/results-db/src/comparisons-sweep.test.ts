import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComparisonQuery, FindingsQuery } from '@tunelab/contracts';
import { openResultsDb, type ResultsDb } from './index.ts';
import { createTestDatabase, ingestDocument } from './testing.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

/** A run of scenario `sweep` with `nopm` per variant at each `vus` point (same repetition numbers at every point). */
function sweepRun(key: string, nopm: Record<number, Record<string, number[]>>) {
  const doc = structuredClone(fixture);
  doc.scenario = { key, version: 'c'.repeat(64), comparisons: [{ baseline: 'ff100', candidate: 'ff40' }] };
  doc.samples = Object.entries(nopm).flatMap(([vus, perVariant]) =>
    Object.entries(perVariant).flatMap(([variant, xs]) =>
      xs.map((value, i) => ({
        variant,
        repetition: i + 1,
        metric: 'nopm',
        unit: 'NOPM',
        value,
        point: { param: 'vus', value: Number(vus) },
      })),
    ),
  );
  doc.timeSeries = [
    { variant: 'ff100', repetition: 1, metric: 'tps', x: 1, value: 10, point: { param: 'vus', value: 1 } },
    { variant: 'ff100', repetition: 1, metric: 'tps', x: 1, value: 40, point: { param: 'vus', value: 4 } },
  ];
  delete doc.order;
  return doc;
}

for (const backend of ['postgresql', 'pglite'] as const) {
  describe(`sweep points on ${backend}`, () => {
    let db: ResultsDb;
    let pgdb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    let runId = '';
    beforeAll(async () => {
      if (backend === 'postgresql') pgdb = await createTestDatabase();
      db = await openResultsDb(pgdb?.url, { dataDir: 'memory://' });
      await db.migrate();
      const doc = sweepRun('sweep', {
        1: { ff100: [100, 101, 99], ff40: [150, 151, 149] },
        4: { ff100: [400, 402, 398], ff40: [401, 399, 400] },
      });
      runId = (await ingestDocument(db, doc, `sweep-${backend}`)).run.id;
    });
    afterAll(async () => {
      await db.close();
      await pgdb?.drop();
    });

    it('stores the same variant × repetition × metric once per point, and gives the points back', async () => {
      const run = await db.getRun(runId);
      expect(run!.samples).toHaveLength(12);
      expect(
        run!.samples.filter((s) => s.variant === 'ff40' && s.repetition === 1).map((s) => [s.point?.value, s.value]),
      ).toEqual([
        [1, 150],
        [4, 401],
      ]);
      expect(run!.timeSeries.map((p) => p.point)).toEqual([
        { param: 'vus', value: 1 },
        { param: 'vus', value: 4 },
      ]);
    });

    it('compares per point, and the findings say which', async () => {
      const res = await db.compare(
        ComparisonQuery.parse({ scenario: 'sweep', metric: 'nopm', direction: 'higher-is-better' }),
      );
      expect(res.groups.map((g) => g.point)).toEqual([
        { param: 'vus', value: 1 },
        { param: 'vus', value: 4 },
      ]);
      const at = (v: number) => res.groups.find((g) => g.point?.value === v)!;
      expect(at(1).variants.map((v) => v.n)).toEqual([3, 3]);
      expect(at(1).comparisons[0]!.verdict.kind).toBe('faster');
      expect(at(4).comparisons[0]!.verdict.significant).toBe(false);
      const findings = await db.listFindings(
        FindingsQuery.parse({ scenario: 'sweep', metric: 'nopm', direction: 'higher-is-better' }),
      );
      expect(findings.items.map((f) => f.point?.value).sort()).toEqual([1, 4]);
    });
  });
}
