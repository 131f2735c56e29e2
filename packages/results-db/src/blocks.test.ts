import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComparisonQuery } from '@tunelab/contracts';
import { openResultsDb, packInputs, unpackInputs, type ResultsDb } from './index.ts';
import { createTestDatabase, ingestDocument, prismaOf } from './testing.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

// A shared machine: each block 1×–3× slower; b is 15 % faster than a in every block.
const LOAD = [1, 2.6, 1.2, 3, 1.1, 2.2, 1.4, 2.9];

/** A run of scenario `blocks` measured in blocks (positions) or, with `positions: false`, as before blocks. */
function submission(version: string, positions: boolean) {
  const doc = structuredClone(fixture);
  doc.scenario = { key: 'blocks', version, comparisons: [{ baseline: 'a', candidate: 'b' }] };
  doc.samples = LOAD.flatMap((load, i) =>
    [
      ['a', 1],
      ['b', 0.85],
    ].map(([variant, base], place) => ({
      variant,
      repetition: i + 1,
      metric: 'duration',
      unit: 's',
      value: (base as number) * load * (1 + (i % 3) * 0.005 * (place + 1)),
      ...(positions ? { position: ((i + place) % 2) + 1 } : {}),
    })),
  );
  delete doc.timeSeries;
  delete doc.order;
  return doc;
}

for (const backend of ['postgresql', 'pglite'] as const) {
  describe(`runs measured in blocks on ${backend}`, () => {
    let db: ResultsDb;
    let pgdb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    const BLOCKED = 'c'.repeat(64);
    const OLD = 'd'.repeat(64);

    beforeAll(async () => {
      if (backend === 'postgresql') pgdb = await createTestDatabase();
      db = await openResultsDb(pgdb?.url, { dataDir: 'memory://' });
      await db.migrate();
      await ingestDocument(db, submission(BLOCKED, true), 'blocked');
      await ingestDocument(db, submission(OLD, false), 'old');
    });
    afterAll(async () => {
      await db.close();
      await pgdb?.drop();
    });

    it('stores each sample’s position, and none for a run from before blocks', async () => {
      const rows = await prismaOf(db).$queryRaw<{ version: string; positions: (number | null)[] }[]>`
        SELECT v.version_hash AS version, array_agg(s.position ORDER BY s.repetition, s.variant) AS positions
        FROM samples s JOIN scenario_versions v ON v.id = s.scenario_version_id GROUP BY v.version_hash`;
      const by = new Map(rows.map((r) => [r.version, r.positions]));
      expect(by.get(BLOCKED)!.slice(0, 4)).toEqual([1, 2, 2, 1]);
      expect(by.get(OLD)!.every((p) => p === null)).toBe(true);
    });

    it('answers blocked runs from their blocks and older runs as before', async () => {
      const res = await db.compare(ComparisonQuery.parse({ scenario: 'blocks', metric: 'duration' }));
      const blocked = res.groups.find((g) => g.scenario.version === BLOCKED)!.comparisons[0]!;
      const old = res.groups.find((g) => g.scenario.version === OLD)!.comparisons[0]!;
      expect(blocked.paired?.decision).toBe('differs');
      expect(blocked.verdict.kind).toBe('faster');
      expect(blocked.adjusted?.method).toBe('bonferroni');
      expect(old.paired ?? null).toBeNull();
      expect(old.verdict.kind).toBe('no-significant-difference');
      expect(old.verdict.sentence).toMatch(/Welch/);
    });

    it('keeps positions through the packed inputs the site rebuilds from', async () => {
      const inputs = await db.loadInputs(['duration']);
      const back = unpackInputs(packInputs(inputs, [])).inputs;
      const positions = (x: typeof inputs) =>
        (x.rows.get('duration') ?? [])
          .map((r) => `${r.version_hash.slice(0, 1)}${r.repetition}${r.variant}:${r.position ?? '-'}`)
          .sort();
      expect(positions(back)).toEqual(positions(inputs));
      expect(positions(back)).toContain('c1a:1');
      expect(positions(back)).toContain('d1a:-');
    });
  });
}
