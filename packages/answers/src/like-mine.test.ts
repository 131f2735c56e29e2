import { describe, expect, it } from 'vitest';
import { answerLikeMine, type LikeMineGroup } from './like-mine.ts';
import type { SimilarCandidate, SimilarSpec } from './similar.ts';

const group = (
  key: string,
  hardwareClass: string,
  cores: number,
  memoryGb: number,
  more: { storageKind?: string; stated?: boolean; source?: 'measured' | 'published'; runCount?: number } = {},
): LikeMineGroup => ({
  group: {
    key,
    source: more.source ?? 'measured',
    runCount: more.runCount ?? 1,
    hardware: {
      class: hardwareClass,
      storageKind: more.storageKind ?? 'ssd',
      physicalCores: cores,
      memoryGb,
      stated: more.stated ?? true,
    },
  },
  name: `${hardwareClass} · ${key}`,
  pairs: [
    {
      baseline: 'a',
      candidate: 'b',
      agreement: 'no-article',
      advice: `prefer b on ${key}`,
      measured: { verdict: { sentence: `b is faster on ${key}` } },
    },
  ],
});

const candidate = (cls: string, cores: number, memoryGb: number, iops: number, runs = 1): SimilarCandidate => ({
  class: cls,
  source: 'measured',
  storageKind: 'ssd',
  physicalCores: cores,
  memoryGb,
  runs,
  figures: { fsyncP50Us: null, readIopsQd1: iops, seqWriteMBps: null, cpu: [] },
});

const SMALL = '2 cores / 8 GB / SSD';
const BIG = '16 cores / 128 GB / SSD';
/** Today's order: the big class's two groups, then the small class's. */
const GROUPS = [group('big-1', BIG, 16, 128), group('small-1', SMALL, 2, 8), group('big-2', BIG, 16, 128)];
const CANDIDATES = [candidate(SMALL, 2, 8, 4000), candidate(BIG, 16, 128, 32000, 2)];
const spec = (cores: number, memoryGb: number, iops: number, storage = 'ssd'): SimilarSpec => ({
  cores,
  memoryGb,
  storage,
  figures: { fsyncP50Us: null, readIopsQd1: iops, seqWriteMBps: null, cpu: [] },
});

describe('answerLikeMine', () => {
  it('orders the groups by their class’s distance, groups of one class in the order they had', () => {
    const near = answerLikeMine(GROUPS, CANDIDATES, spec(2, 8, 4000));
    expect(near.groups.map((g) => g.group.key)).toEqual(['small-1', 'big-1', 'big-2']);
    expect(near.groups.map((g) => g.similarity)).toEqual([
      { storage: 'ssd', sameStorage: true, distance: 0, basis: ['cores', 'memory', 'iops'], like: true },
      { storage: 'ssd', sameStorage: true, distance: 3.3333, basis: ['cores', 'memory', 'iops'], like: false },
      { storage: 'ssd', sameStorage: true, distance: 3.3333, basis: ['cores', 'memory', 'iops'], like: false },
    ]);
    const far = answerLikeMine(GROUPS, CANDIDATES, spec(16, 128, 32000));
    expect(far.groups.map((g) => g.group.key)).toEqual(['big-1', 'big-2', 'small-1']);
    expect(far.classes.map((c) => [c.class, c.groups, c.like])).toEqual([
      [BIG, 2, true],
      [SMALL, 1, false],
    ]);
  });

  it('gives the nearest like class’s answers, every group of it, and says which classes are like', () => {
    const far = answerLikeMine(GROUPS, CANDIDATES, spec(16, 128, 32000));
    expect(far).toMatchObject({ like: true, nearest: BIG });
    expect(far.answers).toEqual(
      ['big-1', 'big-2'].map((key) => ({
        group: key,
        name: `${BIG} · ${key}`,
        baseline: 'a',
        candidate: 'b',
        verdict: `b is faster on ${key}`,
        agreement: 'no-article',
        advice: `prefer b on ${key}`,
      })),
    );
    expect(far.sentence).toBe(
      `One class is like this machine (same known storage, within one doubling per figure on average): ` +
        `${BIG} (0 doublings per figure over cores, memory, iops). The answers are the nearest's, ${BIG}.`,
    );
    // A class one doubling from the machine on every figure is like it too: both named, the nearer first.
    const MID = '4 cores / 16 GB / SSD';
    const both = answerLikeMine(
      [...GROUPS, group('mid-1', MID, 4, 16)],
      [...CANDIDATES, candidate(MID, 4, 16, 8000)],
      spec(4, 16, 8000),
    );
    expect(both.sentence).toBe(
      `2 classes are like this machine (same known storage, within one doubling per figure on average): ` +
        `${MID} (0 doublings per figure over cores, memory, iops); ${SMALL} (1 doubling per figure over cores, memory, iops). ` +
        `The answers are the nearest's, ${MID}.`,
    );
    expect(both.groups.map((g) => g.group.key)).toEqual(['mid-1', 'small-1', 'big-1', 'big-2']);
    expect(both.nearest).toBe(MID);
  });

  it('says no class is like a machine on other storage, and how far the nearest is', () => {
    const other = answerLikeMine(GROUPS, CANDIDATES, spec(2, 8, 4000, 'hdd'));
    expect(other).toMatchObject({ like: false, nearest: null, answers: [] });
    expect(other.sentence).toBe(
      `No measured class is like this machine (same known storage, within one doubling per figure on average): ` +
        `the nearest, ${SMALL}, is 0 doublings per figure away over cores, memory, iops (its storage ssd, this machine's hdd); ` +
        `its answers may not hold here.`,
    );
    expect(answerLikeMine([], CANDIDATES, spec(2, 8, 4000)).sentence).toBe(
      'No measured class here to hold this machine against: the answers have no groups.',
    );
  });

  it('compares a class without figures by its group’s hardware, and puts an unstated article machine last without similarity', () => {
    const groups = [
      group('article', '1 cores / 1 GB / unknown disk', 1, 1, { source: 'published', stated: false }),
      group('unprobed', '2 cores / 8 GB / HDD', 2, 8, { storageKind: 'hdd' }),
      group('small-1', SMALL, 2, 8),
    ];
    const out = answerLikeMine(groups, CANDIDATES, spec(2, 8, 4000, 'hdd'));
    expect(out.groups.map((g) => [g.group.key, g.similarity?.basis ?? null, g.similarity?.like ?? null])).toEqual([
      ['unprobed', ['cores', 'memory'], true],
      ['small-1', ['cores', 'memory', 'iops'], false],
      ['article', null, null],
    ]);
    expect(out.classes.map((c) => c.class)).toEqual(['2 cores / 8 GB / HDD', SMALL]);
    expect(out.sentence).toMatch(/^One class is like this machine/);
  });
});
