/**
 * "Hardware like mine": how near a hardware class is to a machine, and which classes are like it.
 * Pure (no database, no DOM, no imports: it runs in the browser as it is): GET /v1/similar,
 * POST /v1/similar, GET /v1/hardware/:fingerprint/similar (results-db) and the site's picker rank
 * with these functions, so they never disagree.
 *
 * **Distance.** The mean, over every figure both sides have, of |log2(ratio)|: cores, memory (GB,
 * below 1 GB counted as 1 GB), and where both were probed (`tunelab probe`) the fsync latency of an
 * 8 kB write (p50), random 8 kB reads per second at queue depth 1, sequential write MB/s and the
 * single-core CPU score (only between scores of the same workload: scores of different workloads,
 * or of one workload on different Node majors, are not comparable). A distance of 1 means "on
 * average one doubling (or halving) per figure apart". The mean, not the sum: a class probed on six
 * figures is not pushed behind one known only by cores and memory for having more figures, and the
 * threshold means the same whatever the basis. `basis` says which figures a distance rests on, so a
 * class that never ran the probe says it was ranked by cores and memory alone (and its storage).
 * log2 rather than ln: a doubling is the unit the API and the picker already speak (ln would scale
 * every distance by 0.69 and change no order).
 *
 * **Storage** is compared before the distance, as a category: the storage kind the kernel's flags
 * (or the user's `--storage`) gave, and where that is unknown — a virtual disk — the tier its probe
 * measured (NVMe-like → nvme, SSD-like → ssd, HDD-like → hdd, network SSD → network-ssd). The
 * kernel's flag wins where it knows: a probe on a loaded machine can measure a slower tier than the
 * disk has (apps/runner/README.md, "Measuring the disk and CPU"); the figures still count in the
 * distance.
 */

/**
 * A class is "like" a machine at a mean distance of at most one doubling per figure, on the same
 * known storage. For cores and memory alone that is the rule this module had before the probe
 * (|log2 cores ratio| + |log2 memory ratio| ≤ 2). For the probe's figures: three probes of one
 * 2-core VM at load 7–8 differed by up to 0.9 doublings in fsync latency, 0.6 in random reads, 0.9
 * in sequential writes (3.4 against a probe minutes earlier) and 0.7 in CPU score — a machine against
 * its own loaded probes stays within one doubling on average — while an HDD (~100–150 random reads/s)
 * and a local SSD (thousands) are 4.7 doublings apart on that figure alone.
 */
export const SIMILAR_DISTANCE = 1;

/** The figures a distance can rest on, in the order `basis` lists them. */
export const SIMILAR_BASIS = ['cores', 'memory', 'fsync', 'iops', 'mbps', 'cpu'] as const;
export type SimilarBasis = (typeof SIMILAR_BASIS)[number];

/** A CPU score with the workload it was measured with. */
export type CpuFigure = { workload: string; score: number };

/**
 * What `tunelab probe` measured: one machine's figures, or the median of a class's probes. A figure
 * that was not measured is null; `cpu` has one score per workload.
 */
export type SimilarFigures = {
  fsyncP50Us: number | null;
  readIopsQd1: number | null;
  seqWriteMBps: number | null;
  cpu: CpuFigure[];
};

/**
 * A machine as a user describes it: physical cores, memory in GB, its storage (a kind — ssd, hdd,
 * nvme, unknown — or network-ssd), the tier its probe measured (null: none) and the probe's figures.
 */
export type SimilarSpec = {
  cores: number;
  memoryGb: number;
  storage: string;
  storageTier?: string | null;
  figures?: SimilarFigures | null;
};

/** A hardware class (of one source) with its runs: what is ranked. */
export type SimilarCandidate = {
  class: string;
  source: string;
  storageKind: string;
  /** The tier the class's machines' first probe measured (it names the disk in the class); null: never probed. */
  storageTier?: string | null;
  physicalCores: number;
  memoryGb: number;
  runs: number;
  /** The median of the class's probes (`classFigures`); null: no run of the class was probed. */
  figures?: SimilarFigures | null;
};

export type SimilarScore = {
  /** The storage the class was compared as (see `similarStorageOf`). */
  storage: string;
  sameStorage: boolean;
  /** Mean |log2 ratio| over `basis`, rounded to 4 decimals as the API reports it. */
  distance: number;
  basis: SimilarBasis[];
};

const TIER_STORAGE: Readonly<Record<string, string>> = {
  'nvme-like': 'nvme',
  'ssd-like': 'ssd',
  'hdd-like': 'hdd',
  'network-ssd': 'network-ssd',
};

/** The storage a machine is ranked as: its kind when known, else its measured tier's, else unknown. */
export function similarStorageOf(kind: string, tier?: string | null): string {
  if (kind !== 'unknown') return kind;
  return tier != null && Object.prototype.hasOwnProperty.call(TIER_STORAGE, tier) ? TIER_STORAGE[tier]! : 'unknown';
}

const usable = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0;

/**
 * The mean |log2 ratio| over the figures both sides have (module comment), which those were, and
 * whether the storage is the same.
 */
export function similarScore(
  c: Pick<SimilarCandidate, 'storageKind' | 'storageTier' | 'physicalCores' | 'memoryGb' | 'figures'>,
  spec: SimilarSpec,
): SimilarScore {
  const terms: [SimilarBasis, number, number][] = [
    ['cores', c.physicalCores, spec.cores],
    ['memory', Math.max(1, c.memoryGb), Math.max(1, spec.memoryGb)],
  ];
  const a = c.figures;
  const b = spec.figures;
  if (a && b) {
    const pairs: [SimilarBasis, number | null, number | null][] = [
      ['fsync', a.fsyncP50Us, b.fsyncP50Us],
      ['iops', a.readIopsQd1, b.readIopsQd1],
      ['mbps', a.seqWriteMBps, b.seqWriteMBps],
    ];
    for (const [name, x, y] of pairs) if (usable(x) && usable(y)) terms.push([name, x, y]);
    for (const mine of b.cpu) {
      const theirs = a.cpu.find((f) => f.workload === mine.workload);
      if (theirs && usable(theirs.score) && usable(mine.score)) {
        terms.push(['cpu', theirs.score, mine.score]);
        break;
      }
    }
  }
  const used = terms.filter(([, x, y]) => usable(x) && usable(y));
  // A difference of logs, not the log of a quotient: x / y overflows to Infinity for a tiny y.
  const sum = used.reduce((s, [, x, y]) => s + Math.abs(Math.log2(x) - Math.log2(y)), 0);
  const storage = similarStorageOf(c.storageKind, c.storageTier);
  return {
    storage,
    sameStorage: storage === similarStorageOf(spec.storage, spec.storageTier),
    distance: used.length === 0 ? 0 : Number((sum / used.length).toFixed(4)),
    basis: used.map(([name]) => name),
  };
}

const byCodePoint = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * The classes nearest a machine: same storage first, unknown storage last, then the smallest
 * distance, then the most runs (then by name, source, storage kind and tier, so the order is total).
 */
export function rankSimilar<C extends SimilarCandidate>(
  candidates: readonly C[],
  spec: SimilarSpec,
  limit = Infinity,
): (C & SimilarScore)[] {
  return candidates
    .map((c) => ({ ...c, ...similarScore(c, spec) }))
    .sort(
      (x, y) =>
        Number(y.sameStorage) - Number(x.sameStorage) ||
        Number(x.storage === 'unknown') - Number(y.storage === 'unknown') ||
        x.distance - y.distance ||
        y.runs - x.runs ||
        x.class.localeCompare(y.class) ||
        x.source.localeCompare(y.source) ||
        byCodePoint(x.storageKind, y.storageKind) ||
        byCodePoint(x.storageTier ?? '', y.storageTier ?? ''),
    )
    .slice(0, limit);
}

/** Whether a ranked class is hardware like the machine: same known storage, within SIMILAR_DISTANCE. */
export const isLike = (item: Pick<SimilarScore, 'sameStorage' | 'storage' | 'distance'>): boolean =>
  item.sameStorage && item.storage !== 'unknown' && item.distance <= SIMILAR_DISTANCE;

/** One probe's figures, as a run stores them (contracts' MeasuredHardware). */
export type ProbeFigures = {
  fsyncP50Us: number | null;
  readIopsQd1: number | null;
  seqWriteMBps: number | null;
  cpuScore: number | null;
  cpuWorkload: string;
};

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * A class's figures: per figure the median of its probes that measured it (the median, because a
 * probe on a loaded machine is an outlier, not a trend), the CPU score per workload; null without
 * a probe. The API and the site compute a class's figures with this, over the same runs' probes.
 */
export function classFigures(probes: readonly ProbeFigures[]): SimilarFigures | null {
  if (probes.length === 0) return null;
  const of = (pick: (p: ProbeFigures) => number | null) => median(probes.map(pick).filter(usable));
  const workloads = [...new Set(probes.filter((p) => usable(p.cpuScore)).map((p) => p.cpuWorkload))].sort(byCodePoint);
  return {
    fsyncP50Us: of((p) => p.fsyncP50Us),
    readIopsQd1: of((p) => p.readIopsQd1),
    seqWriteMBps: of((p) => p.seqWriteMBps),
    cpu: workloads.map((workload) => ({
      workload,
      score: of((p) => (p.cpuWorkload === workload ? p.cpuScore : null))!,
    })),
  };
}
