/**
 * "Hardware like mine" on a scenario's answers (GET /v1/answers with a machine): the groups
 * ordered by how near their hardware class is to the asker's machine — as GET /v1/similar ranks
 * classes (`rankSimilar`: same storage first, unknown storage last, then the distance, then the
 * most runs) — each with its similarity, and a summary: which classes are like the machine and the
 * answers of the nearest like one, or a sentence saying none is. A stored machine (`like=`) with
 * runs of its own is answered from those runs first (`mine`): its class pools other machines'
 * runs, and another runner must not move the answer this machine's owner reads for it. Pure: the
 * classes' figures and the machine's own groups are read by the caller (results-db).
 */
import {
  isLike,
  rankSimilar,
  similarStorageOf,
  type SimilarCandidate,
  type SimilarScore,
  type SimilarSpec,
} from './similar.ts';

/** What this reads of a group's answer (contracts' GroupAnswer). */
export type LikeMineGroup = {
  group: {
    key: string;
    source: 'measured' | 'published';
    runCount: number;
    runs?: readonly { id: string }[];
    hardware: { class: string; storageKind: string; physicalCores: number; memoryGb: number; stated: boolean };
  };
  name: string;
  pairs: readonly {
    baseline: string;
    candidate: string;
    agreement: string;
    advice: string;
    measured: { verdict: { sentence: string } } | null;
  }[];
};

export type GroupSimilarityOf = SimilarScore & { like: boolean };

type LikeMineAnswerOf<G extends LikeMineGroup> = {
  group: string;
  name: string;
  baseline: string;
  candidate: string;
  verdict: string | null;
  agreement: G['pairs'][number]['agreement'];
  advice: string;
};

export type LikeMineOf<G extends LikeMineGroup> = {
  groups: (G & { similarity: GroupSimilarityOf | null })[];
  like: boolean;
  classes: (GroupSimilarityOf & { class: string; source: 'measured' | 'published'; groups: number })[];
  nearest: string | null;
  answers: LikeMineAnswerOf<G>[];
  /** With the machine's own groups given: their answers and runs. */
  mine?: { runs: number; answers: LikeMineAnswerOf<G>[] };
  sentence: string;
};

/** Per group and pair: the verdict sentence, the agreement and the advice. */
function answersOf<G extends LikeMineGroup>(groups: readonly G[]): LikeMineAnswerOf<G>[] {
  return groups.flatMap((g) =>
    g.pairs.map((p) => ({
      group: g.group.key,
      name: g.name,
      baseline: p.baseline,
      candidate: p.candidate,
      verdict: p.measured?.verdict.sentence ?? null,
      agreement: p.agreement,
      advice: p.advice,
    })),
  );
}

const classKey = (source: string, hardwareClass: string) => `${source}\u0000${hardwareClass}`;
const doublings = (d: number) => `${Number(d.toFixed(2))} doubling${d === 1 ? '' : 's'}`;

/**
 * The groups nearest the machine first (groups of one class keep the order they had; a group
 * whose hardware an article did not state has no similarity and comes last), each with its
 * similarity, and the summary. `candidates` are the classes with their figures (the median of
 * their runs' probes); a group's class missing from them is compared by its cores, memory and
 * storage kind alone. `own`: a stored machine's groups of its own runs alone; when they hold
 * measured runs, the answers are theirs (`mine`), not the nearest class's.
 */
export function answerLikeMine<G extends LikeMineGroup>(
  groups: readonly G[],
  candidates: readonly SimilarCandidate[],
  spec: SimilarSpec,
  own?: readonly G[],
): LikeMineOf<G> {
  const known = new Map(candidates.map((c) => [classKey(c.source, c.class), c]));
  const present = new Map<string, SimilarCandidate & { groups: number }>();
  for (const { group } of groups) {
    if (!group.hardware.stated) continue;
    const key = classKey(group.source, group.hardware.class);
    const seen = present.get(key);
    if (seen) {
      seen.groups++;
      continue;
    }
    const c: SimilarCandidate = known.get(key) ?? {
      class: group.hardware.class,
      source: group.source,
      storageKind: group.hardware.storageKind,
      storageTier: null,
      physicalCores: group.hardware.physicalCores,
      memoryGb: group.hardware.memoryGb,
      runs: group.runCount,
      figures: null,
    };
    present.set(key, { ...c, groups: 1 });
  }
  const ranked = rankSimilar([...present.values()], spec).map((c) => ({ ...c, like: isLike(c) }));
  const rank = new Map(ranked.map((c, i) => [classKey(c.source, c.class), i]));
  const similarityOf = (g: G): GroupSimilarityOf | null => {
    const i = g.group.hardware.stated ? rank.get(classKey(g.group.source, g.group.hardware.class)) : undefined;
    if (i === undefined) return null;
    const { storage, sameStorage, distance, basis, like } = ranked[i]!;
    return { storage, sameStorage, distance, basis, like };
  };
  const position = (g: G) =>
    g.group.hardware.stated
      ? (rank.get(classKey(g.group.source, g.group.hardware.class)) ?? ranked.length)
      : ranked.length;
  // Array.prototype.sort is stable: groups of one class keep today's order.
  const ordered = groups
    .map((g, i) => ({ g, i, at: position(g) }))
    .sort((x, y) => x.at - y.at || x.i - y.i)
    .map(({ g }) => ({ ...g, similarity: similarityOf(g) }));

  const classes = ranked.map((c) => ({
    class: c.class,
    source: c.source === 'published' ? ('published' as const) : ('measured' as const),
    groups: c.groups,
    storage: c.storage,
    sameStorage: c.sameStorage,
    distance: c.distance,
    basis: c.basis,
    like: c.like,
  }));
  const likeClasses = classes.filter((c) => c.like);
  const nearestLike = likeClasses[0] ?? null;
  const classAnswers = nearestLike
    ? answersOf(
        ordered.filter((g) => g.group.source === nearestLike.source && g.group.hardware.class === nearestLike.class),
      )
    : [];
  const measuredOwn = (own ?? []).filter((g) => g.group.source === 'measured');
  const mine = own
    ? {
        runs: new Set(measuredOwn.flatMap((g) => (g.group.runs ?? []).map((r) => r.id))).size,
        answers: answersOf(measuredOwn),
      }
    : undefined;
  const fromMine = mine !== undefined && mine.answers.length > 0;
  const sentence = likeMineSentence(classes, spec);
  return {
    groups: ordered,
    like: nearestLike !== null,
    classes,
    nearest: nearestLike?.class ?? null,
    answers: fromMine ? mine.answers : classAnswers,
    ...(mine ? { mine } : {}),
    sentence: fromMine ? mineSentence(sentence, mine.runs) : sentence,
  };
}

/** The classes' sentence, its last words now saying that the answers are the machine's own. */
function mineSentence(classes: string, runs: number): string {
  const head = classes
    .replace(/ The answers are the nearest's, .*\.$/, '')
    .replace(/; its answers may not hold here\.$/, '.');
  return (
    `${head} The answers are this machine's own, from its ${runs} run${runs === 1 ? '' : 's'} here: ` +
    `another machine's runs, even of its class, do not move them.`
  );
}

const RULE = 'same known storage, within one doubling per figure on average';

/** Which classes are like the machine, or that none is and how far the nearest is. */
function likeMineSentence(
  classes: readonly (GroupSimilarityOf & { class: string; source: 'measured' | 'published' })[],
  spec: SimilarSpec,
): string {
  const measured = classes.every((c) => c.source === 'measured');
  const noun = measured ? 'measured class' : 'class';
  const like = classes.filter((c) => c.like);
  const nearest = classes[0];
  if (!nearest) return `No ${noun} here to hold this machine against: the answers have no groups.`;
  if (like.length === 0) {
    const mine = similarStorageOf(spec.storage, spec.storageTier);
    const storage = nearest.sameStorage
      ? nearest.storage === 'unknown'
        ? ' (both on storage of unknown kind)'
        : ''
      : ` (its storage ${nearest.storage}, this machine's ${mine})`;
    return (
      `No ${noun} is like this machine (${RULE}): the nearest, ${nearest.class}, is ` +
      `${doublings(nearest.distance)} per figure away over ${nearest.basis.join(', ')}${storage}; its answers may not hold here.`
    );
  }
  const list = like
    .map((c) => `${c.class} (${doublings(c.distance)} per figure over ${c.basis.join(', ')})`)
    .join('; ');
  return (
    `${like.length === 1 ? 'One class is' : `${like.length} classes are`} like this machine (${RULE}): ${list}. ` +
    `The answers are the nearest's, ${like[0]!.class}.`
  );
}
