import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '@tunelab/scenarios';
import { declaredCrossings, type SeriesPoint } from './figures.ts';

const load = (key: string) => loadScenario(fileURLToPath(new URL(`../../../scenarios/${key}`, import.meta.url)));

/** Two variants whose lines cross twice: a wiggle around one level. */
const wiggle = (metric: string, baseline: string, candidate: string): SeriesPoint[] =>
  [0, 5, 10, 15, 20].flatMap((x, i) => [
    { run: 'r', variant: baseline, repetition: 1, metric, x, value: 100 },
    { run: 'r', variant: candidate, repetition: 1, metric, x, value: [90, 110, 95, 105, 90][i]! },
  ]);

describe('declaredCrossings', () => {
  it('prints no crossing of curves against the seconds of a window (fillfactor’s tps every 5 s)', async () => {
    const { doc } = await load('fillfactor-hot-updates');
    expect(declaredCrossings(doc, wiggle('tps', 'ff100', 'ff80'))).toEqual([]);
  });

  it('finds where a curve against rows inserted overtakes the other', async () => {
    const { doc } = await load('innodb-compression-insert');
    const pair = doc.comparisons[0]!;
    const found = declaredCrossings(doc, wiggle('rows_per_s', pair.baseline, pair.candidate));
    expect(found.find((c) => c.candidate === pair.candidate)?.crossings.length).toBeGreaterThan(0);
  });
});
