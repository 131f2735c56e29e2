/**
 * "Hardware like mine": how near a measured hardware class is to a machine, and which classes are
 * like it. Pure (no database, no DOM): GET /v1/similar (results-db) and the site's picker (in the
 * browser) rank with this one function, so they never disagree.
 */

/** Beyond this distance (two doublings of cores or memory) a class is not "like" the machine. */
export const SIMILAR_DISTANCE = 2;

/** A machine as a user describes it: physical cores, memory in GB, storage kind. */
export type SimilarSpec = { cores: number; memoryGb: number; storage: string };

/** A hardware class (of one source) with its runs: what is ranked. */
export type SimilarCandidate = {
  class: string;
  source: string;
  storageKind: string;
  physicalCores: number;
  memoryGb: number;
  runs: number;
};

export type SimilarScore = { sameStorage: boolean; distance: number };

/**
 * |log2(cores ratio)| + |log2(memory ratio)| (doubling the cores counts as much as doubling the
 * memory; memory below 1 GB counts as 1 GB), rounded to 4 decimals as the API reports it.
 */
export function similarScore(c: Omit<SimilarCandidate, 'class' | 'source' | 'runs'>, spec: SimilarSpec): SimilarScore {
  const distance =
    Math.abs(Math.log2(c.physicalCores / spec.cores)) +
    Math.abs(Math.log2(Math.max(1, c.memoryGb) / Math.max(1, spec.memoryGb)));
  return { sameStorage: c.storageKind === spec.storage, distance: Number(distance.toFixed(4)) };
}

/**
 * The classes nearest a machine: same storage kind first, unknown storage last, then the fewest
 * doublings apart, then the most runs (then by name and source, so the order is total).
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
        Number(x.storageKind === 'unknown') - Number(y.storageKind === 'unknown') ||
        x.distance - y.distance ||
        y.runs - x.runs ||
        x.class.localeCompare(y.class) ||
        x.source.localeCompare(y.source),
    )
    .slice(0, limit);
}

/** Whether a ranked class is hardware like the machine: same known storage kind, within two doublings. */
export const isLike = (item: SimilarScore & { storageKind: string }): boolean =>
  item.sameStorage && item.storageKind !== 'unknown' && item.distance <= SIMILAR_DISTANCE;
