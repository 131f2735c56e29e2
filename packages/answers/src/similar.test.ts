import { describe, expect, it } from 'vitest';
import { isLike, rankSimilar, similarScore } from './similar.ts';

const c = (cls: string, storageKind: string, physicalCores: number, memoryGb: number, runs = 1) => ({
  class: cls,
  source: 'measured',
  storageKind,
  physicalCores,
  memoryGb,
  runs,
});

describe('hardware like mine', () => {
  it('counts a doubling of cores as much as a doubling of memory', () => {
    expect(similarScore(c('a', 'ssd', 16, 32), { cores: 8, memoryGb: 32, storage: 'ssd' })).toEqual({
      sameStorage: true,
      distance: 1,
    });
    expect(similarScore(c('a', 'ssd', 8, 64), { cores: 8, memoryGb: 32, storage: 'nvme' }).distance).toBe(1);
    expect(similarScore(c('a', 'ssd', 2, 24), { cores: 8, memoryGb: 32, storage: 'ssd' }).distance).toBe(2.415);
  });

  it('ranks same storage first, unknown storage last, then distance, then runs', () => {
    const ranked = rankSimilar(
      [
        c('near-other-disk', 'hdd', 8, 32),
        c('unknown', 'unknown', 8, 32),
        c('far', 'ssd', 64, 512),
        c('few-runs', 'ssd', 4, 16, 1),
        c('many-runs', 'ssd', 16, 64, 5),
      ],
      { cores: 8, memoryGb: 32, storage: 'ssd' },
    );
    expect(ranked.map((r) => r.class)).toEqual(['many-runs', 'few-runs', 'far', 'near-other-disk', 'unknown']);
    expect(ranked.map(isLike)).toEqual([true, true, false, false, false]);
  });

  it('never calls unknown storage like, even at distance 0', () => {
    const [only] = rankSimilar([c('vm', 'unknown', 2, 24)], { cores: 2, memoryGb: 24, storage: 'unknown' });
    expect(only).toMatchObject({ sameStorage: true, distance: 0 });
    expect(isLike(only!)).toBe(false);
  });
});
