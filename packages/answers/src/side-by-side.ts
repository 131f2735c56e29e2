/**
 * One declared pair side by side along an answer axis — the server version (versions.ts) or the
 * hardware class (classes.ts), each an `Axis` — over groups that differ in their place on that
 * axis only, each row read from its group's answer; per two rows the interaction test
 * (`interactionTest` of @tunelab/stats: is the pair's ratio on one different from that on the
 * other?), Holm-adjusted within a family; and the summary, in which only an adjusted interaction
 * says that the axis changes the answer. `sideBySide(groups, axis)` is the whole walk.
 */
import type { PairComparison, VersionComparison, VersionRow } from '@tunelab/contracts';
import { adjustPValues, formatP, interactionTest, type Moments } from '@tunelab/stats';
import type { AnswerGroup } from './answer.ts';
import type { GroupAnswerOf } from './scenario.ts';

/** A group answer as the axes read it. */
export type Answered = Pick<GroupAnswerOf<AnswerGroup>, 'group' | 'name' | 'pairs'>;
type PairOf = Answered['pairs'][number];

export const list = (xs: readonly string[]) =>
  xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;

/**
 * The key of a group's conditions besides the axis: `held` (the value the other axis is held at:
 * the class on the versions axis, the major or release on the classes axis), then the scenario
 * version, source, engine, unit and parameter values, and with `point` the sweep point. Groups with
 * one key differ only in the axis; a family of interaction tests is one key without the point.
 */
function conditionsKey(
  g: Pick<AnswerGroup, 'scenario' | 'source' | 'engine' | 'unit' | 'params' | 'point'>,
  held: string | number,
  point: boolean,
): string {
  return JSON.stringify([
    held,
    g.scenario.version,
    g.source,
    g.engine.engine,
    g.unit,
    Object.entries(g.params).sort(([x], [y]) => x.localeCompare(y)),
    ...(point ? [g.point ?? null] : []),
  ]);
}

/** A row's figures, whatever the axis: the group's own n, means, improvement, interval, verdict and agreement. */
type PairFigures = Omit<VersionRow, 'engine' | 'major' | 'serverVersions'>;

export function pairFigures(a: Answered, pair: PairOf): PairFigures {
  const side = (variant: string) => {
    const v = a.group.variants.find((x) => x.variant === variant);
    return v ? { n: v.n, mean: v.mean } : null;
  };
  const m = pair.measured;
  return {
    group: a.group.key,
    runCount: a.group.runCount,
    runners: a.group.runners,
    baseline: side(pair.baseline),
    candidate: side(pair.candidate),
    difference: m?.difference ?? null,
    improvement: m?.improvement ?? null,
    ci95: m?.ci95 ?? null,
    p: m?.welch?.p ?? null,
    verdict: m?.verdict ?? {
      kind: 'insufficient-data',
      sentence: `No runs of ${pair.baseline} and ${pair.candidate} in this group`,
      significant: false,
      conclusive: false,
    },
    pAdjusted: m?.adjusted?.p ?? null,
    agreement: pair.agreement,
  };
}

/** A variant's n, mean, sd and min, when it can enter a test (n ≥ 3 and a spread). */
function momentsOf(a: Answered, variant: string): Moments | null {
  const v = a.group.variants.find((x) => x.variant === variant);
  if (!v || v.n < 3 || v.sd === null) return null;
  return { n: v.n, mean: v.mean, sd: v.sd, min: v.min };
}

type VersionInteraction = VersionComparison['interactions'][number];
/** One interaction test between rows labelled `a` and `b`, unadjusted. */
type RawInteraction<L> = Omit<VersionInteraction, 'a' | 'b' | 'adjusted' | 'differs'> & { a: L; b: L };
type Interaction<L> = RawInteraction<L> & Pick<VersionInteraction, 'adjusted' | 'differs'>;

/**
 * Per two rows whose pair was tested on both, the interaction test, unadjusted. `laterFirst`: `a`
 * is the later of the two rows (versions: the newer major ÷ the older), else the earlier.
 */
function interactionsOf<L>(
  rows: readonly { label: L; answer: Answered }[],
  baseline: string,
  candidate: string,
  laterFirst: boolean,
): RawInteraction<L>[] {
  const cells = rows.flatMap(({ label, answer: a }) => {
    const pair = a.pairs.find((p) => p.baseline === baseline && p.candidate === candidate);
    const b = momentsOf(a, baseline);
    const c = momentsOf(a, candidate);
    const tested = pair?.measured?.adjusted !== null && pair?.measured?.adjusted !== undefined;
    return tested && b && c ? [{ label, pair: { baseline: b, candidate: c } }] : [];
  });
  const out: RawInteraction<L>[] = [];
  cells.forEach((x, i) =>
    cells.slice(i + 1).forEach((y) => {
      const [first, second] = laterFirst ? [y, x] : [x, y];
      // estimate = the pair's ratio on `a` ÷ its ratio on `b`.
      const t = interactionTest(first.pair, second.pair);
      out.push({
        a: first.label,
        b: second.label,
        method: t.method,
        estimate: t.estimate,
        ci95: { low: Number.isFinite(t.ci.low) ? t.ci.low : null, high: Number.isFinite(t.ci.high) ? t.ci.high : null },
        df: t.df,
        p: t.p,
      });
    }),
  );
  return out;
}

const ALPHA = 0.05;

/** Holm's adjustment over every interaction test of one family (`family` of each item), per item its tests adjusted. */
function adjustInteractions<L>(pending: readonly { family: string; raw: RawInteraction<L>[] }[]): Interaction<L>[][] {
  const families = new Map<string, RawInteraction<L>[]>();
  for (const c of pending) families.set(c.family, [...(families.get(c.family) ?? []), ...c.raw]);
  const adjustedOf = new Map(
    [...families.entries()].map(([family, tests]) => {
      const ps = adjustPValues(
        tests.map((t) => t.p),
        'holm',
      );
      return [family, new Map(tests.map((t, i) => [t, ps[i] ?? 1]))] as const;
    }),
  );
  return pending.map(({ family, raw }) => {
    const size = families.get(family)?.length ?? 1;
    return raw.map((t) => {
      const p = adjustedOf.get(family)?.get(t) ?? t.p;
      return { ...t, adjusted: { method: 'holm' as const, p, family: size }, differs: p < ALPHA };
    });
  });
}

/** The pairs of groups under equal conditions, in their first group's order. */
function pairsOf(sorted: readonly Answered[]): { baseline: string; candidate: string }[] {
  const pairs = new Map<string, { baseline: string; candidate: string }>();
  for (const a of sorted)
    for (const p of a.pairs)
      pairs.set(`${p.baseline}\u0000${p.candidate}`, { baseline: p.baseline, candidate: p.candidate });
  return [...pairs.values()];
}

/** The pair's direction, as the first group that measured it compared it. */
const directionOf = (sorted: readonly Answered[], baseline: string, candidate: string) =>
  sorted.flatMap((a) => a.pairs).find((p) => p.baseline === baseline && p.candidate === candidate && p.measured)
    ?.measured?.direction ?? 'lower-is-better';

const two = (x: number | null) => (x === null ? 'unbounded' : Number(x.toPrecision(3)).toString());

const VERDICT_WORDS: Record<PairComparison['verdict']['kind'], string> = {
  faster: 'better',
  slower: 'worse',
  'no-significant-difference': 'no measurable difference',
  'insufficient-data': 'not enough data',
  descriptive: 'descriptive (no verdict)',
};

/** What an axis is called in its summary: "the version changes the answer", "verdicts per class". */
type AxisWords = {
  /** "version", "hardware": the subject of "… changes the answer". */
  subject: string;
  /** "version", "class": one row. */
  one: string;
  /** "versions", "classes": rows. */
  many: string;
  /** What the "no evidence" sentence says was tested, given the rows' labels in words. */
  tested: (labels: readonly string[]) => string;
  /** Past this many rows, the summary counts the rows of each verdict instead of naming them ("on 58 classes"). */
  namesUpTo?: number;
};

/**
 * A row's verdict in the words of a summary: "1-2 better than 1-1". A non-significant verdict is
 * "no measurable difference" only when it is conclusive (its interval within ±10%), else "not
 * enough repetitions to be sure", as the verdict itself says.
 */
export const verdictWords = (c: { baseline: string; candidate: string }, v: PairComparison['verdict']): string =>
  v.kind === 'faster' || v.kind === 'slower'
    ? `${c.candidate} ${VERDICT_WORDS[v.kind]} than ${c.baseline}`
    : v.kind === 'no-significant-difference'
      ? v.conclusive
        ? 'no measurable difference'
        : 'not enough repetitions to be sure'
      : VERDICT_WORDS[v.kind];

/**
 * One interaction test in words, as a summary and the site's fleet view say it: "1-2 ÷ 1-1 on A is
 * 0.667× what it is on B (95% CI 0.648–0.686)", or for values ≤ 0 the difference of differences.
 */
export const interactionWords = <L>(
  c: { baseline: string; candidate: string; unit: string },
  t: Pick<Interaction<L>, 'method' | 'a' | 'b' | 'estimate' | 'ci95'>,
  label: (l: L) => string,
): string =>
  t.method === 'log-ratio'
    ? `${c.candidate} ÷ ${c.baseline} on ${label(t.a)} is ${two(t.estimate)}× what it is on ${label(t.b)} (95% CI ${two(t.ci95.low)}–${two(t.ci95.high)})`
    : `${c.candidate} − ${c.baseline} on ${label(t.a)} differs from that on ${label(t.b)} by ${two(t.estimate)} ${c.unit} (95% CI ${two(t.ci95.low)} to ${two(t.ci95.high)})`;

/**
 * The summary of one pair side by side: the axis changes the answer only when an adjusted
 * interaction test says so; `labels`: each row's label in words, in the rows' order.
 */
function summaryOf<L>(
  c: {
    baseline: string;
    candidate: string;
    unit: string;
    rows: readonly { verdict: PairComparison['verdict'] }[];
    interactions: readonly Interaction<L>[];
  },
  labels: readonly string[],
  label: (l: L) => string,
  words: AxisWords,
): { same: boolean; changes: boolean; text: string } {
  const word = (v: PairComparison['verdict']) => verdictWords(c, v);
  const distinct = [...new Set(c.rows.map((r) => word(r.verdict)))];
  const parts = distinct.map((w) => {
    const named = c.rows.flatMap((r, i) => (word(r.verdict) === w ? [labels[i] ?? ''] : []));
    return labels.length > (words.namesUpTo ?? Infinity)
      ? `${w} on ${named.length} ${words.many}`
      : `${w} on ${list(named)}`;
  });
  const verdicts = `verdicts per ${words.one}: ${parts.join('; ')}`;
  const same = distinct.length === 1;
  const differing = c.interactions.filter((i) => i.differs);
  if (differing.length > 0) {
    const best = [...differing].sort((x, y) => x.adjusted.p - y.adjusted.p)[0]!;
    const what = interactionWords(c, best, label);
    return {
      same,
      changes: true,
      text: `The ${words.subject} changes the answer: ${what}, Holm-adjusted interaction p ${formatP(best.adjusted.p).replace(/^p /, '')} over ${best.adjusted.family.toLocaleString('en-US')} tests; ${verdicts}.`,
    };
  }
  if (c.interactions.length === 0)
    return {
      same,
      changes: false,
      text: `Not enough runs to test whether the ${words.subject} changes the answer (at least 3 runs of each variant on two ${words.many} are needed); ${verdicts}.`,
    };
  const smallest = Math.min(...c.interactions.map((i) => i.adjusted.p));
  const family = c.interactions[0]!.adjusted.family;
  return {
    same,
    changes: false,
    text: `No evidence that the ${words.subject} changes the answer (${words.tested(labels)}: smallest Holm-adjusted p ${formatP(smallest).replace(/^p /, '')} over ${family.toLocaleString('en-US')} tests); ${verdicts}.`,
  };
}

/**
 * Which rows one runner (token) stands behind, said after a summary: a class or server version
 * with one runner's runs is one machine owner's measurement, so a difference it makes rests on
 * that runner alone. `labels`: each row's label, in the rows' order; empty when no row is so.
 */
function oneRunnerNote(
  rows: readonly { runners: number }[],
  labels: readonly string[],
  words: { one: string; many: string },
): string {
  const single = labels.filter((_, i) => rows[i]?.runners === 1);
  if (single.length === 0) return '';
  const which =
    single.length === rows.length
      ? `every ${words.one} here`
      : single.length > 6
        ? `${single.length.toLocaleString('en-US')} of these ${words.many}`
        : single.join(', ');
  return ` One runner stands behind ${which}: ${single.length === 1 && single.length !== rows.length ? 'its' : 'their'} runs are one machine owner's, so what differs there rests on that runner alone.`;
}

/** The figures of a comparison every axis has: its conditions, its pair and its metric. */
type Shared = Pick<
  VersionComparison,
  'scenarioVersion' | 'source' | 'params' | 'point' | 'conditions' | 'baseline' | 'candidate' | 'direction' | 'unit'
>;

/**
 * One answer axis: what differs between a comparison's rows (the engine major, the hardware
 * class), what is held (the class, the release line) and how a row and the summary say it. `H`
 * is what a comparison says of its axis (its class and engine; its engine, major and server),
 * `R` a row, `L` a row's label in the interaction tests.
 */
export type Axis<L, R extends Row, H> = {
  /** A group's place on the axis: two groups with one place are never side by side. */
  label: (a: Answered) => L;
  /** The value the other axis is held at: one family of interaction tests is one such value and conditions. */
  held: (g: Answered['group']) => string | number;
  /** The rows' order. */
  order: (x: Answered, y: Answered) => number;
  /** Whether an interaction's `a` is the later of its two rows (the newer major ÷ the older). */
  laterFirst: boolean;
  /** What the comparison says of its axis, from its first group. */
  head: (first: Answered) => H;
  /** The group's name without its place on the axis: the conditions the rows share. */
  conditions: (a: Answered) => string;
  row: (a: Answered, pair: PairOf) => R;
  /** Each row's label in words, from the rows' groups. */
  rowWords: (answered: readonly Answered[]) => string[];
  /** A label in words, where the summary names an interaction's two rows. */
  labelWords: (l: L) => string;
  /** The summary's words for one comparison. */
  words: (c: H & Pick<Shared, 'baseline' | 'candidate'> & { interactions: readonly Interaction<L>[] }) => AxisWords;
  /** What the one-runner note calls a row and rows. */
  runnerWords: { one: string; many: string };
};

/** One pair side by side along an axis: its rows, interaction tests and summary. */
type Body<L, R> = Shared & {
  rows: R[];
  /** Each row's group answer, in the rows' order. */
  answered: Answered[];
  interactions: Interaction<L>[];
  same: boolean;
  changes: boolean;
  summary: string;
};
type SideBySide<L, R, H> = H & Body<L, R>;

type Row = { verdict: PairComparison['verdict']; runners: number };

/** The groups by their conditions besides the axis, sweep point included, in the groups' order. */
function byConditions<L, R extends Row, H>(groups: readonly Answered[], axis: Axis<L, R, H>): Answered[][] {
  const out = new Map<string, Answered[]>();
  for (const a of groups) {
    const key = conditionsKey(a.group, axis.held(a.group), true);
    out.set(key, [...(out.get(key) ?? []), a]);
  }
  return [...out.values()];
}

/** Each pair two groups or more of one set of conditions measured, with its rows and raw interaction tests. */
function comparisonsOf<L, R extends Row, H>(same: readonly Answered[], axis: Axis<L, R, H>) {
  const sorted = [...same].sort(axis.order);
  if (new Set(sorted.map(axis.label)).size < 2) return [];
  const first = sorted[0]!;
  const g = first.group;
  return pairsOf(sorted).flatMap(({ baseline, candidate }) => {
    const found = sorted.flatMap((a) => {
      const pair = a.pairs.find((p) => p.baseline === baseline && p.candidate === candidate);
      return pair ? [{ a, pair }] : [];
    });
    if (found.length < 2) return [];
    const direction = directionOf(sorted, baseline, candidate);
    const body: Omit<Body<L, R>, 'interactions' | 'same' | 'changes' | 'summary'> = {
      scenarioVersion: g.scenario.version,
      source: g.source,
      params: g.params,
      point: g.point ?? null,
      conditions: axis.conditions(first),
      baseline,
      candidate,
      direction,
      unit: g.unit,
      rows: found.map(({ a, pair }) => axis.row(a, pair)),
      answered: found.map(({ a }) => a),
    };
    const raw =
      direction === 'descriptive'
        ? []
        : interactionsOf(
            sorted.map((a) => ({ label: axis.label(a), answer: a })),
            baseline,
            candidate,
            axis.laterFirst,
          );
    // One family of interaction tests: every pair and sweep point of one held value and conditions.
    return [{ head: axis.head(first), body, family: conditionsKey(g, axis.held(g), false), raw }];
  });
}

/**
 * The scenario's pairs along one axis, from its per-group answers: groups that differ only in
 * their place on the axis are put side by side, each pair that two of them or more measured one
 * comparison; the interaction tests Holm-adjusted per family, and each comparison summarised.
 */
export function sideBySide<L, R extends Row, H>(
  groups: readonly Answered[],
  axis: Axis<L, R, H>,
): SideBySide<L, R, H>[] {
  const pending = byConditions(groups, axis).flatMap((same) => comparisonsOf(same, axis));
  const adjusted = adjustInteractions(pending);
  return pending.map(({ head, body }, i) => {
    const interactions = adjusted[i] ?? [];
    const labels = axis.rowWords(body.answered);
    const words = axis.words({ ...head, baseline: body.baseline, candidate: body.candidate, interactions });
    const { same, changes, text } = summaryOf({ ...body, interactions }, labels, axis.labelWords, words);
    const note = oneRunnerNote(body.rows, labels, axis.runnerWords);
    return { ...head, ...body, interactions, same, changes, summary: `${text}${note}` };
  });
}
