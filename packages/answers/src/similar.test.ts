import { describe, expect, it } from 'vitest';
import {
  classFigures,
  isLike,
  rankSimilar,
  SIMILAR_DISTANCE,
  similarScore,
  similarStorageOf,
  type SimilarCandidate,
  type SimilarFigures,
} from './similar.ts';

const c = (
  cls: string,
  storageKind: string,
  physicalCores: number,
  memoryGb: number,
  runs = 1,
  more: Partial<SimilarCandidate> = {},
): SimilarCandidate => ({ class: cls, source: 'measured', storageKind, physicalCores, memoryGb, runs, ...more });

const WORKLOAD = 'tunelab-cpu-1/node-20';
const figures = (fsync: number, iops: number, mbps: number, cpu: number, workload = WORKLOAD): SimilarFigures => ({
  fsyncP50Us: fsync,
  readIopsQd1: iops,
  seqWriteMBps: mbps,
  cpu: [{ workload, score: cpu }],
});

describe('hardware like mine: cores and memory (a class never probed)', () => {
  it('is the mean |log2 ratio| of cores and memory, and says so in its basis', () => {
    expect(similarScore(c('a', 'ssd', 16, 32), { cores: 8, memoryGb: 32, storage: 'ssd' })).toEqual({
      storage: 'ssd',
      sameStorage: true,
      distance: 0.5,
      basis: ['cores', 'memory'],
    });
    expect(similarScore(c('a', 'ssd', 8, 64), { cores: 8, memoryGb: 32, storage: 'nvme' })).toMatchObject({
      sameStorage: false,
      distance: 0.5,
    });
    // (2 + log2(32/24)) / 2, rounded to 4 decimals.
    expect(similarScore(c('a', 'ssd', 2, 24), { cores: 8, memoryGb: 32, storage: 'ssd' }).distance).toBe(1.2075);
    // Memory below 1 GB counts as 1 GB.
    expect(similarScore(c('a', 'ssd', 1, 0), { cores: 1, memoryGb: 1, storage: 'ssd' }).distance).toBe(0);
  });

  it('keeps the rule it had before the probe: like within two doublings of cores and memory in all', () => {
    const spec = { cores: 8, memoryGb: 32, storage: 'ssd' };
    expect(isLike(similarScore(c('a', 'ssd', 32, 32), spec))).toBe(true); // 2 doublings
    expect(isLike(similarScore(c('a', 'ssd', 16, 64), spec))).toBe(true); // 1 + 1
    expect(isLike(similarScore(c('a', 'ssd', 32, 64), spec))).toBe(false); // 2 + 1
    expect(SIMILAR_DISTANCE).toBe(1);
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
    expect(only).toMatchObject({ sameStorage: true, distance: 0, storage: 'unknown' });
    expect(isLike(only!)).toBe(false);
  });
});

describe('hardware like mine: measured distance', () => {
  const spec = {
    cores: 2,
    memoryGb: 24,
    storage: 'unknown',
    storageTier: 'ssd-like',
    figures: figures(2000, 4000, 100, 10_000),
  };

  it('stays finite for the extreme doubles a crafted or old stored run could carry (never x / y overflowing)', () => {
    for (const tiny of [5e-324, Number.MIN_VALUE, 1e-300])
      for (const huge of [Number.MAX_VALUE, 1e300]) {
        const s = similarScore(
          c('x', 'unknown', 2, 24, 1, { storageTier: 'ssd-like', figures: figures(tiny, huge, tiny, huge) }),
          spec,
        );
        expect(Number.isFinite(s.distance), `${tiny} / ${huge}`).toBe(true);
        expect(s.distance).toBeGreaterThan(100);
      }
  });

  it('uses every figure both sides have, and names them', () => {
    // fsync 2× slower (1), reads 4× fewer (2), writes the same (0), CPU half (1); cores and memory equal.
    const s = similarScore(
      c('a', 'unknown', 2, 24, 1, { storageTier: 'ssd-like', figures: figures(4000, 1000, 100, 5000) }),
      spec,
    );
    expect(s).toEqual({
      storage: 'ssd',
      sameStorage: true,
      distance: Number(((1 + 2 + 0 + 1) / 6).toFixed(4)),
      basis: ['cores', 'memory', 'fsync', 'iops', 'mbps', 'cpu'],
    });
    // A figure either side did not measure is left out, not counted as 0.
    const partial = similarScore(
      c('b', 'ssd', 2, 24, 1, { figures: { fsyncP50Us: 8000, readIopsQd1: null, seqWriteMBps: null, cpu: [] } }),
      spec,
    );
    expect(partial).toMatchObject({ basis: ['cores', 'memory', 'fsync'], distance: Number((2 / 3).toFixed(4)) });
  });

  it('compares CPU scores only of the same workload', () => {
    const other = c('a', 'ssd', 2, 24, 1, { figures: figures(2000, 4000, 100, 99_999, 'tunelab-cpu-1/node-22') });
    expect(similarScore(other, spec)).toMatchObject({
      basis: ['cores', 'memory', 'fsync', 'iops', 'mbps'],
      distance: 0,
    });
    const both = c('a', 'ssd', 2, 24, 1, {
      figures: {
        ...figures(2000, 4000, 100, 99_999, 'tunelab-cpu-1/node-22'),
        cpu: [
          { workload: 'tunelab-cpu-1/node-20', score: 20_000 },
          { workload: 'tunelab-cpu-1/node-22', score: 99_999 },
        ],
      },
    });
    expect(similarScore(both, spec)).toMatchObject({ distance: Number((1 / 6).toFixed(4)) });
  });

  it('a class never probed is ranked by cores, memory and storage, and its basis says so', () => {
    const ranked = rankSimilar(
      [
        c('probed-far', 'unknown', 2, 24, 9, { storageTier: 'ssd-like', figures: figures(64_000, 125, 100, 10_000) }),
        c('unprobed', 'ssd', 2, 24, 1),
        c('probed-near', 'unknown', 2, 24, 1, { storageTier: 'ssd-like', figures: figures(2100, 3900, 110, 9800) }),
      ],
      spec,
    );
    expect(ranked.map((r) => [r.class, r.basis.length])).toEqual([
      ['unprobed', 2],
      ['probed-near', 6],
      ['probed-far', 6],
    ]);
    expect(ranked.map(isLike)).toEqual([true, true, false]);
  });

  it('ranks a virtual disk by its measured tier, but the kernel’s kind where it knows', () => {
    expect(similarStorageOf('unknown', 'ssd-like')).toBe('ssd');
    expect(similarStorageOf('unknown', 'nvme-like')).toBe('nvme');
    expect(similarStorageOf('unknown', 'hdd-like')).toBe('hdd');
    expect(similarStorageOf('unknown', 'network-ssd')).toBe('network-ssd');
    expect(similarStorageOf('unknown', null)).toBe('unknown');
    expect(similarStorageOf('unknown', 'constructor')).toBe('unknown');
    expect(similarStorageOf('hdd', 'ssd-like')).toBe('hdd');
    const ranked = rankSimilar(
      [
        c('kernel-hdd', 'hdd', 2, 24),
        c('measured-ssd', 'unknown', 2, 24, 1, { storageTier: 'ssd-like' }),
        c('vm', 'unknown', 2, 24),
      ],
      { cores: 2, memoryGb: 24, storage: 'ssd' },
    );
    expect(ranked.map((r) => [r.class, r.storage, r.sameStorage])).toEqual([
      ['measured-ssd', 'ssd', true],
      ['kernel-hdd', 'hdd', false],
      ['vm', 'unknown', false],
    ]);
  });

  it('orders totally: the same classes in any order rank the same', () => {
    const all = [
      c('x', 'ssd', 2, 24, 1),
      c('x', 'unknown', 2, 24, 1, { storageTier: 'ssd-like' }),
      c('x', 'ssd', 2, 24, 1, { storageTier: 'ssd-like' }),
      { ...c('x', 'ssd', 2, 24, 1), source: 'published' },
      c('y', 'ssd', 4, 24, 3, { figures: figures(2000, 4000, 100, 10_000) }),
    ];
    const want = JSON.stringify(rankSimilar(all, spec));
    // Every permutation of the five (120).
    const permutations = (xs: typeof all): (typeof all)[] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (const order of permutations(all)) expect(JSON.stringify(rankSimilar(order, spec))).toBe(want);
  });
});

describe('classFigures', () => {
  it('is the median of each figure over the probes that measured it, the CPU per workload', () => {
    const p = (fsync: number | null, iops: number | null, cpu: number | null, workload = WORKLOAD) => ({
      fsyncP50Us: fsync,
      readIopsQd1: iops,
      seqWriteMBps: null,
      cpuScore: cpu,
      cpuWorkload: workload,
    });
    expect(classFigures([])).toBeNull();
    expect(
      classFigures([
        p(100, 4000, 10),
        p(300, null, 30),
        p(200, 2000, 20, 'tunelab-cpu-1/node-22'),
        p(null, 1000, null),
      ]),
    ).toEqual({
      fsyncP50Us: 200,
      readIopsQd1: 2000,
      seqWriteMBps: null,
      cpu: [
        { workload: 'tunelab-cpu-1/node-20', score: 20 },
        { workload: 'tunelab-cpu-1/node-22', score: 20 },
      ],
    });
  });
});
