import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ComparisonQuery, RunSubmission } from '@tunelab/contracts';
import { parsePublished, publishedVersion } from '@tunelab/scenarios';
import { publishedSubmissions, type ResultsDb } from './index.ts';
import { BACKENDS, useResultsDb } from './test-backends.ts';
import { prismaOf } from './testing.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const INDEX_CLEANUP = readFileSync(new URL('vacuum-index-cleanup/published.json', `file://${SCENARIOS}`));

/** "0:03:46" → 226 s */
const hms = (t: string) => t.split(':').reduce((s, x) => s * 60 + Number(x), 0);

describe('publishedSubmissions', () => {
  it('describes each article server as a published machine, durations in seconds', () => {
    const parsed = parsePublished(INDEX_CLEANUP, 'vacuum-index-cleanup/published.json');
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    expect(parsed.published.version).toBe(publishedVersion(INDEX_CLEANUP));
    const runs = publishedSubmissions(parsed.published.file, parsed.published.version);
    expect(runs.map((r) => r.machine)).toEqual(['server-1', 'server-2', 'server-3']);
    const s1 = RunSubmission.parse(runs[0]!.submission);
    expect(s1.hardware).toMatchObject({
      cpuModel: 'unspecified (published: server-1)',
      physicalCores: 8,
      memoryBytes: 32 * 1024 ** 3,
      storage: { kind: 'ssd' },
      os: 'unspecified',
      kernel: 'unspecified',
    });
    expect(s1.samples).toHaveLength(20);
    expect(s1.params['published.avg.1-1']).toBe('0:03:46');
    const s3 = RunSubmission.parse(runs[2]!.submission);
    expect(s3.hardware).toMatchObject({ memoryBytes: 4 * 1024 ** 3, storage: { kind: 'hdd' } });
  });

  it('a sweep table (recovery-init-sync) becomes one article run whose samples carry their point', () => {
    const bytes = readFileSync(new URL('recovery-init-sync/published.json', `file://${SCENARIOS}`));
    const parsed = parsePublished(bytes, 'recovery-init-sync/published.json');
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const runs = publishedSubmissions(parsed.published.file, parsed.published.version);
    expect(runs.map((r) => r.machine)).toEqual(['article']);
    const s = RunSubmission.parse(runs[0]!.submission);
    expect(s.database).toMatchObject({ major: 14, minor: 13 });
    const fsync = s.samples
      .filter((x) => x.variant === 'fsync')
      .map((x) => [x.point?.value, x.value, x.unit, x.metric]);
    expect(fsync).toEqual([
      [10_000, 2_000, 'ms', 'sync_duration'],
      [100_000, 17_000, 'ms', 'sync_duration'],
      [1_000_000, 167_000, 'ms', 'sync_duration'],
      [10_000_000, 1_708_000, 'ms', 'sync_duration'],
    ]);
    expect(s.samples.filter((x) => x.variant === 'syncfs').every((x) => x.value === 0)).toBe(true);
  });

  it('converts runs_ms to seconds', () => {
    const parsed = parsePublished(
      readFileSync(new URL('vacuum-full-rewrite/published.json', `file://${SCENARIOS}`)),
      'vacuum-full-rewrite/published.json',
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const runs = publishedSubmissions(parsed.published.file, parsed.published.version);
    expect(runs).toHaveLength(1);
    const s = RunSubmission.parse(runs[0]!.submission);
    expect(s.samples.find((x) => x.variant === 'full-rewrite' && x.repetition === 1)?.value).toBeCloseTo(14.042748, 6);
    expect(s.hardware.storage.kind).toBe('unknown');
  });
});

for (const backend of BACKENDS) {
  describe(`importPublished on ${backend}`, () => {
    const getDb = useResultsDb(backend);
    let db: ResultsDb;
    beforeAll(() => {
      db = getDb();
    });

    it('imports every published.json once; a second import changes nothing', async () => {
      const first = await db.importPublished(SCENARIOS);
      expect(first.imported.map((i) => `${i.idempotencyKey} ${i.outcome}`)).toEqual(
        expect.arrayContaining([
          'published:vacuum-index-cleanup:server-1 created',
          'published:vacuum-index-cleanup:server-2 created',
          'published:vacuum-index-cleanup:server-3 created',
          'published:vacuum-full-rewrite:article created',
        ]),
      );
      const count = async () => ({
        runs: await prismaOf(db).run.count(),
        samples: await prismaOf(db).sample.count(),
        hw: await prismaOf(db).hardwareProfile.count(),
      });
      const before = await count();
      const second = await db.importPublished(SCENARIOS);
      expect(second.imported.every((i) => i.outcome === 'replayed')).toBe(true);
      expect(await count()).toEqual(before);
      const hw = await prismaOf(db).hardwareProfile.findMany({ select: { source: true, hardwareClass: true } });
      expect(hw.every((h) => h.source === 'published')).toBe(true);
      expect(hw.map((h) => h.hardwareClass)).toContain('unspecified (published)');
    });

    it('a sweep article: its points are stored with the samples, read back by getRun, one comparison group per point', async () => {
      const imported = await db.importPublished(SCENARIOS);
      const item = imported.imported.find((i) => i.idempotencyKey === 'published:recovery-init-sync:article');
      expect(item?.samples).toBe(8);
      const run = await db.getRun(item!.runId);
      expect(
        run!.samples.filter((x) => x.variant === 'fsync').map((x) => [x.point?.param, x.point?.value, x.value]),
      ).toEqual([
        ['tables', 10_000, 2_000],
        ['tables', 100_000, 17_000],
        ['tables', 1_000_000, 167_000],
        ['tables', 10_000_000, 1_708_000],
      ]);
      const res = await db.compare(
        ComparisonQuery.parse({ scenario: 'recovery-init-sync', source: 'published', metric: 'sync_duration' }),
      );
      expect(
        res.groups.map((g) => [g.point?.value, g.variants.map((v) => `${v.variant}:${v.mean}`).join(' ')]),
      ).toEqual([
        [10_000, 'fsync:2000 syncfs:0'],
        [100_000, 'fsync:17000 syncfs:0'],
        [1_000_000, 'fsync:167000 syncfs:0'],
        [10_000_000, 'fsync:1708000 syncfs:0'],
      ]);
    });

    it('reproduces the article: means, % faster, and which differences are significant at n = 5', async () => {
      await db.importPublished(SCENARIOS); // created here, or replayed after the test above
      const res = await db.compare(ComparisonQuery.parse({ scenario: 'vacuum-index-cleanup', source: 'published' }));
      expect(res.groups).toHaveLength(3);
      const published = JSON.parse(String(INDEX_CLEANUP)) as {
        hardware: { id: string; published_avg: Record<string, string> }[];
      };
      const expected: Record<string, { means: [number, number]; faster: number }> = {
        'server-1': { means: [226.4, 141.4], faster: 0.375 },
        'server-2': { means: [836, 669.4], faster: 0.199 },
        'server-3': { means: [609.4, 535.6], faster: 0.121 },
      };
      for (const [server, want] of Object.entries(expected)) {
        const g = res.groups.find((x) => x.hardware.cpuModel === `unspecified (published: ${server})`);
        expect(g, server).toBeDefined();
        expect(g!.source).toBe('published');
        expect(g!.pairsFrom).toBe('declared');
        const mean = (v: string) => g!.variants.find((x) => x.variant === v)!.mean;
        expect(mean('1-1')).toBeCloseTo(want.means[0], 6);
        expect(mean('1-2')).toBeCloseTo(want.means[1], 6);
        // The article's rounded averages (m:ss) are the same means.
        const avg = published.hardware.find((h) => h.id === server)!.published_avg;
        expect(Math.abs(mean('1-1') - hms(avg['1-1']!))).toBeLessThan(1);
        expect(Math.abs(mean('1-2') - hms(avg['1-2']!))).toBeLessThan(1);
        const c = g!.comparisons.find((x) => x.baseline === '1-1' && x.candidate === '1-2')!;
        expect(c.improvement!).toBeCloseTo(want.faster, 3);
        expect(c.ci95?.low).toBeTypeOf('number');
        expect(c.welch?.p).toBeTypeOf('number');
        expect(c.mannWhitney?.p).toBeTypeOf('number');
        const full = g!.comparisons.find((x) => x.baseline === '2-1' && x.candidate === '2-2')!;
        if (server === 'server-1') expect(full.verdict.kind).toBe('no-significant-difference');
      }
      const s1 = res.groups.find((x) => x.hardware.cpuModel === 'unspecified (published: server-1)')!;
      expect(s1.comparisons[0]!.verdict.sentence).toMatch(/^1-2 is 37\.5% faster than 1-1 \(95% CI/);
      expect(s1.comparisons[0]!.verdict.significant).toBe(true);
    });

    it('keeps published runs out of the default (measured) comparison', async () => {
      await db.importPublished(SCENARIOS);
      const res = await db.compare(ComparisonQuery.parse({ scenario: 'vacuum-index-cleanup' }));
      expect(res.groups).toEqual([]);
      const all = await db.compare(
        ComparisonQuery.parse({ scenario: 'vacuum-index-cleanup', source: 'all', groupBy: 'class' }),
      );
      expect(all.groups.map((g) => g.hardware.class).sort()).toEqual([
        '8 cores / 32 GB / HDD',
        '8 cores / 32 GB / SSD',
        '8 cores / 4 GB / HDD',
      ]);
    });
  });
}
