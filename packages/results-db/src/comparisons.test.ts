import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComparisonQuery, FindingsQuery, SimilarHardwareQuery } from '@tunelab/contracts';
import { openResultsDb, type ResultsDb } from './index.ts';
import { createTestDatabase, prismaOf, ingestDocument } from './testing.ts';
import { storedWarningText } from '@tunelab/answers';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);
const V1 = 'a'.repeat(64);
const V2 = 'b'.repeat(64);

/** A measured submission of scenario `cmp` with the given durations per variant. */
function submission(opts: {
  version?: string;
  major?: number;
  cores?: number;
  memoryGb?: number;
  storage?: string;
  cpu?: string;
  durations: Record<string, number[]>;
}) {
  const doc = structuredClone(fixture);
  doc.scenario = { key: 'cmp', version: opts.version ?? V1 };
  doc.database.major = opts.major ?? 15;
  doc.database.version = `PostgreSQL ${opts.major ?? 15}.4`;
  doc.hardware.physicalCores = opts.cores ?? 2;
  doc.hardware.logicalCpus = opts.cores ?? 2;
  doc.hardware.memoryBytes = (opts.memoryGb ?? 24) * 1024 ** 3;
  doc.hardware.storage.kind = opts.storage ?? 'ssd';
  doc.hardware.cpuModel = opts.cpu ?? 'AMD EPYC 7B13';
  doc.samples = Object.entries(opts.durations).flatMap(([variant, xs]) =>
    xs.map((value, i) => ({ variant, repetition: i + 1, metric: 'duration', unit: 's', value })),
  );
  delete doc.timeSeries;
  delete doc.order;
  return doc;
}

for (const backend of ['postgresql', 'pglite'] as const) {
  describe(`comparisons on ${backend}`, () => {
    let db: ResultsDb;
    let pgdb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    let n = 0;
    const ingest = async (doc: unknown) => (await ingestDocument(db, doc, `cmp-${n++}`)).run;

    beforeAll(async () => {
      if (backend === 'postgresql') pgdb = await createTestDatabase();
      db = await openResultsDb(pgdb?.url, { dataDir: 'memory://' });
      await db.migrate();
      await ingest(submission({ durations: { a: [10, 11, 10.5], b: [8, 8.2, 7.9], c: [10, 10.4, 10.2] } }));
      await ingest(
        submission({ major: 16, durations: { a: [10.2, 10.8, 10.1], b: [8.1, 8.3, 7.8], c: [10.1, 10.2, 10.6] } }),
      );
      await ingest(submission({ version: V2, durations: { a: [20, 21, 22], b: [20, 21, 22] } }));
      await ingest(
        submission({ cores: 8, memoryGb: 32, cpu: 'Big box', durations: { a: [5, 5.1, 5.2], b: [5, 5.2, 5.1] } }),
      );
      await ingest(
        submission({ storage: 'hdd', cores: 2, cpu: 'Spinning box', durations: { a: [50, 51, 52], b: [40, 41, 42] } }),
      );
    });
    afterAll(async () => {
      await db.close();
      await pgdb?.drop();
    });

    it('groups per sweep point, carries the point in groups and findings, and filters by point', async () => {
      const doc = submission({ version: 'c'.repeat(64), durations: {} });
      doc.scenario.key = 'cmp-sweep';
      const at = (vus: number, a: number[], b: number[]) =>
        Object.entries({ a, b }).flatMap(([variant, xs]) =>
          xs.map((value, i) => ({
            variant,
            repetition: i + 1,
            metric: 'tps',
            unit: 'tx/s',
            value,
            point: { param: 'vus', value: vus },
          })),
        );
      doc.samples = [...at(1, [100, 101, 99], [100, 102, 98]), ...at(8, [400, 405, 395], [600, 610, 590])];
      await ingest(doc);
      const res = await db.compare(
        ComparisonQuery.parse({ scenario: 'cmp-sweep', metric: 'tps', direction: 'higher-is-better' }),
      );
      expect(res.groups.map((g) => g.point)).toEqual([
        { param: 'vus', value: 1 },
        { param: 'vus', value: 8 },
      ]);
      expect(res.groups.map((g) => g.variants.map((v) => v.n))).toEqual([
        [3, 3],
        [3, 3],
      ]);
      expect(res.groups[0]!.key).toMatch(/@vus=1$/);
      const at8 = res.groups[1]!;
      expect(at8.variants.find((v) => v.variant === 'b')!.mean).toBeCloseTo(600, 6);
      expect(at8.comparisons[0]!.verdict.significant).toBe(true);
      expect(res.groups[0]!.comparisons[0]!.verdict.significant).toBe(false);
      const only8 = await db.compare(ComparisonQuery.parse({ scenario: 'cmp-sweep', metric: 'tps', point: '8' }));
      expect(only8.groups.map((g) => g.point?.value)).toEqual([8]);
      const findings = await db.listFindings(FindingsQuery.parse({ scenario: 'cmp-sweep', metric: 'tps' }));
      expect(findings.items.map((f) => f.point?.value).sort()).toEqual([1, 8]);
      expect(findings.items.find((f) => f.point?.value === 8)!.comparison.point).toBe('8');
      // Groups without a sweep carry no point.
      const plain = await db.compare(ComparisonQuery.parse({ scenario: 'cmp' }));
      expect(plain.groups.every((g) => g.point === undefined)).toBe(true);
    });

    it('never pools two scenario versions nor two major versions of the engine', async () => {
      const res = await db.compare(
        ComparisonQuery.parse({ scenario: 'cmp', hardware: undefined, storage: 'ssd', maxCores: 2 }),
      );
      expect(res.groups.map((g) => `${g.scenario.version.slice(0, 1)} ${g.engine.major}`).sort()).toEqual([
        'a 15',
        'a 16',
        'b 15',
      ]);
      const v1 = res.groups.find((g) => g.scenario.version === V1 && g.engine.major === 15)!;
      expect(v1.runCount).toBe(1);
      expect(v1.variants.find((v) => v.variant === 'a')!.n).toBe(3);
      expect(v1.databaseVersions.map((d) => d.major)).toEqual([15]);
      // Nothing declared: every pair, alphabetical baseline; no scenario folder: lower is better by default.
      expect(res).toMatchObject({ direction: 'lower-is-better', directionFrom: 'default' });
      expect(v1.pairsFrom).toBe('all-pairs');
      expect(v1.comparisons.map((c) => `${c.baseline}>${c.candidate}`)).toEqual(['a>b', 'a>c', 'b>c']);
      expect(v1.comparisons[0]!.verdict.kind).toBe('faster');
      const only16 = await db.compare(
        ComparisonQuery.parse({ scenario: 'cmp', major: '16', storage: 'ssd', maxCores: 2 }),
      );
      expect(only16.groups).toHaveLength(1);
      // The group carries its runs' own warnings (the fixture's runner warned about its storage).
      expect(only16.groups[0]!.warnings).toEqual(
        (fixture.warnings as string[]).map((w) => storedWarningText(fixture.database.engine, w)),
      );
    });

    it('filters by memory in whole GB and groups by class', async () => {
      const big = await db.compare(ComparisonQuery.parse({ scenario: 'cmp', minMemoryGb: '32', groupBy: 'class' }));
      expect(big.groups.map((g) => g.hardware.class)).toEqual(['8 cores / 32 GB / SSD']);
      expect(big.groups[0]!.comparisons[0]!.verdict.kind).toBe('no-significant-difference');
      const none = await db.compare(ComparisonQuery.parse({ scenario: 'cmp', minCores: '64' }));
      expect(none.groups).toEqual([]);
    });

    it('reports a missing variant of an explicit pair as insufficient data', async () => {
      const res = await db.compare(
        ComparisonQuery.parse({ scenario: 'cmp', baseline: 'a', candidate: 'c', storage: 'hdd' }),
      );
      expect(res.groups[0]!.comparisons[0]!.verdict).toMatchObject({ kind: 'insufficient-data', significant: false });
    });

    it('findings: newest data first, each with the runs behind it', async () => {
      const { items } = await db.listFindings(FindingsQuery.parse({ scenario: 'cmp' }));
      expect(items[0]!.hardwareClass).toBe('2 cores / 24 GB / HDD');
      expect(items[0]!.sentence).toMatch(/^b is 19\.6% faster than a/);
      for (let i = 1; i < items.length; i++) expect(items[i - 1]!.newestRunAt >= items[i]!.newestRunAt).toBe(true);
      expect(items.every((f) => f.runIds.length > 0 && f.runIds.every((id) => /^[0-9a-f-]{36}$/.test(id)))).toBe(true);
      expect((await db.listFindings(FindingsQuery.parse({ scenario: 'cmp', limit: '2' }))).items).toHaveLength(2);
    });

    it('similar hardware: same storage first, then distance in cores and memory (no probes here)', async () => {
      const hdd = await prismaOf(db).hardwareProfile.findFirstOrThrow({ where: { cpuModel: 'Spinning box' } });
      const res = (await db.findSimilarHardware(hdd.fingerprint, SimilarHardwareQuery.parse({})))!;
      expect(res.items.map((i) => i.class)).toEqual([
        '2 cores / 24 GB / HDD',
        '2 cores / 24 GB / SSD',
        '8 cores / 32 GB / SSD',
      ]);
      expect(res.items[0]).toMatchObject({ sameStorage: true, distance: 0 });
      // The mean |log2 ratio| of cores and memory, the only figures these classes have.
      expect(res.items[2]!.distance).toBeCloseTo((2 + Math.log2(32 / 24)) / 2, 3);
      expect(res.items.every((i) => i.basis.join() === 'cores,memory')).toBe(true);
      expect(await db.findSimilarHardware('f'.repeat(64), SimilarHardwareQuery.parse({}))).toBeNull();
    });
  });
}
