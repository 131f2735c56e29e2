/**
 * "Hardware like mine" on the answers (GET /v1/answers), over the real runs and the published
 * figures: without a machine the answers are exactly what `answerScenarioQuery` (the answers
 * before "like mine") gives; with one, the article's machines whose hardware is not stated have no
 * similarity and come last, the others ranked as GET /v1/similar ranks them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswersQuery, SimilarBySpecQuery } from '@tunelab/contracts';
import type { ResultsDb } from './index.ts';
import { answerScenarioQuery } from './answers.ts';
import { databaseWithRealRuns, REAL_RUN_KEYS, SCENARIOS } from './real-runs.ts';
import { scenarioCatalog } from './scenario-catalog.ts';
import { prismaOf } from './testing.ts';

describe('answers like mine over real runs and the published figures', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  const catalog = scenarioCatalog(SCENARIOS);

  beforeAll(async () => {
    ({ db, close } = await databaseWithRealRuns('h_likemine_db'));
  }, 60_000);
  afterAll(async () => close?.());

  const SOURCES = ['measured', 'published'] as const;
  it.each(REAL_RUN_KEYS.flatMap((key) => SOURCES.map((source) => [key, source] as const)))(
    '%s (%s): without a machine, byte for byte the answers as before',
    async (scenario, source) => {
      const q = AnswersQuery.parse({ scenario, source });
      const before = await answerScenarioQuery(prismaOf(db), catalog, q);
      expect(before).not.toBeNull();
      expect(JSON.stringify(await db.answers(q))).toBe(JSON.stringify(before));
    },
  );

  it('published: the article machines ranked as GET /v1/similar ranks them, an undescribed one last without similarity', async () => {
    const machine = { cores: '8', memoryGb: '32', machineStorage: 'ssd' };
    const seen = { stated: 0, undescribed: 0 };
    for (const scenario of REAL_RUN_KEYS) {
      const a = (await db.answers(AnswersQuery.parse({ scenario, source: 'published', ...machine })))!;
      const stated = a.groups.filter((g) => g.group.hardware.stated);
      seen.stated += stated.length;
      seen.undescribed += a.groups.length - stated.length;
      expect(a.groups.map((g) => g.similarity === null)).toEqual(a.groups.map((g) => !g.group.hardware.stated));
      // The undescribed ones come after every described one.
      expect(a.groups.slice(0, stated.length)).toEqual(stated);
      const similar = await db.findSimilarBySpec(
        SimilarBySpecQuery.parse({ cores: 8, memoryGb: 32, storage: 'ssd', scenario, source: 'published' }),
      );
      // The same classes in the same order and distances as GET /v1/similar (which lists no undescribed machine).
      expect(a.likeMine!.classes.map((c) => [c.class, c.distance, c.like])).toEqual(
        similar.items
          .filter((i) => stated.some((g) => g.group.hardware.class === i.class))
          .map((i) => [i.class, i.distance, i.sameStorage && i.storage !== 'unknown' && i.distance <= 1]),
      );
    }
    // Both kinds of article machine were there to be ranked.
    expect(seen.stated).toBeGreaterThan(0);
    expect(seen.undescribed).toBeGreaterThan(0);
  });
});
