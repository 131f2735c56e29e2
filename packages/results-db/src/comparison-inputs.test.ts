/**
 * Comparison inputs (comparison-inputs.ts) over the real runs of every scenario and the published
 * figures: computed from inputs read once, kept (packed and read back) and merged with a later
 * read of other runs, the comparisons and answers are those GET /v1/comparisons and /v1/answers give.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswersQuery, ComparisonQuery } from '@tunelab/contracts';
import { primaryMetric } from '@tunelab/answers';
import { loadScenario } from '@tunelab/scenarios';
import { mergeInputs, packInputs, unpackInputs, type ResultsDb } from './index.ts';
import { databaseWithRealRuns, REAL_RUN_KEYS, SCENARIOS } from './real-runs.ts';

const KEYS = REAL_RUN_KEYS;

describe('comparison inputs', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  let metrics: string[];

  beforeAll(async () => {
    ({ db, close } = await databaseWithRealRuns('tl_inputs_db'));
    metrics = [
      ...new Set(await Promise.all(KEYS.map(async (k) => primaryMetric((await loadScenario(`${SCENARIOS}${k}`)).doc)))),
    ];
  }, 60_000);
  afterAll(async () => close?.());

  const queries = () =>
    metrics.flatMap((metric) =>
      (['measured', 'published', 'all'] as const).flatMap((source) =>
        (['class', 'hardware'] as const).map((groupBy) => ComparisonQuery.parse({ metric, source, groupBy })),
      ),
    );

  it('give what compare and answers give, read at once or kept and merged with new runs', async () => {
    const all = await db.loadInputs(metrics);
    // Kept: half the runs, packed and read back; new: the other half, read by id.
    const ids = (await db.listRuns({ limit: 100, source: 'all' })).items.map((r) => r.id);
    expect(ids.length).toBeGreaterThan(KEYS.length);
    const keptIds = ids.filter((_, i) => i % 2 === 0);
    const kept = unpackInputs(packInputs(await db.loadInputs(metrics, keptIds), keptIds));
    expect(kept.covers).toEqual([...keptIds].sort());
    const merged = mergeInputs(
      kept.inputs,
      await db.loadInputs(
        metrics,
        ids.filter((_, i) => i % 2 === 1),
      ),
    );
    expect(packInputs(merged, ids)).toBe(packInputs(all, ids));

    for (const q of queries()) {
      const expected = await db.compare(q);
      expect(expected.groups.length + (q.source === 'published' ? 1 : 0)).toBeGreaterThan(0);
      expect(await db.compareInputs(all, q), JSON.stringify(q)).toEqual(expected);
      expect(await db.compareInputs(merged, q), JSON.stringify(q)).toEqual(expected);
    }
    for (const scenario of KEYS)
      for (const source of ['measured', 'published'] as const) {
        const q = AnswersQuery.parse({ scenario, source });
        const expected = await db.answers(q);
        expect(expected).not.toBeNull();
        expect(await db.answerInputs(all, q), `${scenario} ${source}`).toEqual(expected);
        expect(await db.answerInputs(merged, q), `${scenario} ${source}`).toEqual(expected);
      }
  });

  it('say which filter or metric they cannot answer, and read nothing for no runs', async () => {
    const inputs = await db.loadInputs(['duration']);
    await expect(
      db.compareInputs(inputs, ComparisonQuery.parse({ metric: 'nopm', source: 'all', groupBy: 'class' })),
    ).rejects.toThrow(/no samples of nopm/);
    await expect(
      db.compareInputs(inputs, ComparisonQuery.parse({ metric: 'duration', storage: 'ssd' })),
    ).rejects.toThrow(/not filtered by storage/);
    const none = await db.loadInputs(['duration'], []);
    expect([...none.rows.values()].flat()).toEqual([]);
    expect(() => unpackInputs('{"format":2}')).toThrow();
  });
});
