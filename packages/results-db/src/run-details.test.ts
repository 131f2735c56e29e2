import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ResultsDb } from './index.ts';
import { ingestDocument } from './testing.ts';
import { BACKENDS, useResultsDb } from './test-backends.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

for (const backend of BACKENDS) {
  describe(`getRuns on ${backend}`, () => {
    const getDb = useResultsDb(backend);
    let db: ResultsDb;
    const ids: string[] = [];
    beforeAll(async () => {
      db = getDb();
      for (let i = 0; i < 3; i++) {
        const doc = {
          ...structuredClone(fixture),
          startedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
          finishedAt: new Date(Date.UTC(2026, 0, 1 + i, 0, 5)).toISOString(),
          notes: [{ kind: 'explain', text: `plan ${i}` }],
          warnings: i === 1 ? ['a warning of run 1'] : [],
        };
        const res = await ingestDocument(db, doc, `get-runs-${i}`);
        ids.push(res.run.id);
      }
    });

    it('reads several runs in one call, equal to getRun of each, in the order asked', async () => {
      const asked = [ids[2]!, ids[0]!, ids[1]!];
      const got = await db.getRuns(asked);
      expect(got.map((r) => r.id)).toEqual(asked);
      for (const r of got) expect(r).toEqual(await db.getRun(r.id));
      expect(got[2]!.warnings).toEqual(['a warning of run 1']);
      expect(got[1]!.notes).toEqual([{ kind: 'explain', text: 'plan 0' }]);
      expect(got[0]!.samples).toHaveLength(fixture.samples.length);
    });

    it('leaves out ids it does not hold and answers an empty list for none', async () => {
      const missing = '00000000-0000-4000-8000-000000000000';
      expect((await db.getRuns([missing, ids[0]!, 'not-a-uuid'])).map((r) => r.id)).toEqual([ids[0]]);
      expect(await db.getRuns([])).toEqual([]);
    });
  });
}
