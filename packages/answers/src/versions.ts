/**
 * The server version as an answer axis (issue 18): for one hardware class, scenario version,
 * engine, parameter values and sweep point, the same declared pair side by side per engine major
 * version — n and mean per side, the difference and the relative improvement with its 95%
 * interval in the metric's direction, the verdict and the agreement with the article, read from
 * the per-group answers `answerScenario` computed (one group per major: the grouping never pools
 * two majors). Whether the version changes the answer is not read from two verdicts that differ
 * but tested: per two majors, the interaction (`interactionTest` of @tunelab/stats: is the pair's
 * ratio on one major different from that on the other?), Holm-adjusted over every interaction
 * test of the same class and conditions.
 */
import {
  ENGINE_FACTS,
  type Engine,
  type PairComparison,
  type VersionAnswers,
  type VersionComparison,
  type VersionRow,
} from '@tunelab/contracts';
import { adjustPValues, formatP, interactionTest, type Moments } from '@tunelab/stats';
import { groupMajor, serverName, type AnswerGroup } from './answer.ts';
import type { GroupAnswerOf } from './scenario.ts';

type VersionSide = NonNullable<VersionRow['baseline']>;

type Answered = Pick<GroupAnswerOf<AnswerGroup>, 'group' | 'name' | 'pairs'>;

const list = (xs: readonly string[]) =>
  xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;

/** The group's name without its engine-and-major part: the conditions two majors share. */
function conditionsOf(a: Answered): string {
  const server = serverName(a.group);
  return a.name
    .split(' · ')
    .filter((part) => part !== server)
    .join(' · ');
}

function rowOf(a: Answered, pair: Answered['pairs'][number]): VersionRow {
  const side = (variant: string): VersionSide | null => {
    const v = a.group.variants.find((x) => x.variant === variant);
    return v ? { n: v.n, mean: v.mean } : null;
  };
  const m = pair.measured;
  return {
    engine: a.group.engine.engine,
    major: a.group.engine.major,
    serverVersions: a.group.databaseVersions.map((d) => d.version),
    group: a.group.key,
    runCount: a.group.runCount,
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

type Interactions = VersionComparison['interactions'];
type RawInteraction = Omit<Interactions[number], 'adjusted' | 'differs'>;

/** Per two majors whose pair was tested on both (oldest first), the interaction test, unadjusted. */
function interactionsOf(sorted: readonly Answered[], baseline: string, candidate: string): RawInteraction[] {
  const cells = sorted.flatMap((a) => {
    const pair = a.pairs.find((p) => p.baseline === baseline && p.candidate === candidate);
    const b = momentsOf(a, baseline);
    const c = momentsOf(a, candidate);
    const tested = pair?.measured?.adjusted !== null && pair?.measured?.adjusted !== undefined;
    return tested && b && c ? [{ major: a.group.engine.major, pair: { baseline: b, candidate: c } }] : [];
  });
  const out: RawInteraction[] = [];
  cells.forEach((x, i) =>
    cells.slice(i + 1).forEach((y) => {
      // The newer major against the older: estimate = ratio on the newer ÷ ratio on the older.
      const t = interactionTest(y.pair, x.pair);
      out.push({
        a: y.major,
        b: x.major,
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
const two = (x: number | null) => (x === null ? 'unbounded' : Number(x.toPrecision(3)).toString());

const VERDICT_WORDS: Record<PairComparison['verdict']['kind'], string> = {
  faster: 'better',
  slower: 'worse',
  'no-significant-difference': 'no measurable difference',
  'insufficient-data': 'not enough data',
  descriptive: 'descriptive (no verdict)',
};

/**
 * `majors`: each row's release line ("10.11"; the row's `major` holds the first number only), in
 * the rows' order.
 */
function summaryOf(
  c: Omit<VersionComparison, 'summary' | 'sameVerdict' | 'versionChangesAnswer'>,
  majors: readonly string[],
): {
  same: boolean;
  changes: boolean;
  text: string;
} {
  // A non-significant verdict is "no measurable difference" only when it is conclusive (its
  // interval within ±10%), else "not enough repetitions to be sure", as the verdict itself says.
  const word = (v: PairComparison['verdict']) =>
    v.kind === 'faster' || v.kind === 'slower'
      ? `${c.candidate} ${VERDICT_WORDS[v.kind]} than ${c.baseline}`
      : v.kind === 'no-significant-difference'
        ? v.conclusive
          ? 'no measurable difference'
          : 'not enough repetitions to be sure'
        : VERDICT_WORDS[v.kind];
  const words = [...new Set(c.rows.map((r) => word(r.verdict)))];
  const parts = words.map(
    (w) => `${w} on ${list(c.rows.flatMap((r, i) => (word(r.verdict) === w ? [majors[i] ?? String(r.major)] : [])))}`,
  );
  const verdicts = `verdicts per version: ${parts.join('; ')}`;
  const differing = c.interactions.filter((i) => i.differs);
  if (differing.length > 0) {
    const best = [...differing].sort((x, y) => x.adjusted.p - y.adjusted.p)[0]!;
    const what =
      best.method === 'log-ratio'
        ? `${c.candidate} ÷ ${c.baseline} on ${best.a} is ${two(best.estimate)}× what it is on ${best.b} (95% CI ${two(best.ci95.low)}–${two(best.ci95.high)})`
        : `${c.candidate} − ${c.baseline} on ${best.a} differs from that on ${best.b} by ${two(best.estimate)} ${c.unit} (95% CI ${two(best.ci95.low)} to ${two(best.ci95.high)})`;
    return {
      same: words.length === 1,
      changes: true,
      text: `The version changes the answer: ${what}, Holm-adjusted interaction p ${formatP(best.adjusted.p).replace(/^p /, '')} over ${best.adjusted.family} tests; ${verdicts}.`,
    };
  }
  if (c.interactions.length === 0)
    return {
      same: words.length === 1,
      changes: false,
      text: `Not enough runs to test whether the version changes the answer (at least 3 runs of each variant on two versions are needed); ${verdicts}.`,
    };
  const smallest = Math.min(...c.interactions.map((i) => i.adjusted.p));
  const family = c.interactions[0]!.adjusted.family;
  return {
    same: words.length === 1,
    changes: false,
    text: `No evidence that the version changes the answer (interaction tests between ${ENGINE_FACTS[c.engine].name} ${list(c.rows.map((r, i) => majors[i] ?? String(r.major)))}: smallest Holm-adjusted p ${formatP(smallest).replace(/^p /, '')} over ${family} tests); ${verdicts}.`,
  };
}

/**
 * The scenario's pairs across engine major versions, from its per-group answers: groups that
 * differ only in the major (same class, scenario version, source, engine, parameter values and
 * sweep point) are put side by side, oldest major first.
 */
export function answerVersions(groups: readonly Answered[]): VersionAnswers {
  const byConditions = new Map<string, Answered[]>();
  const majors = new Map<string, { hardwareClass: string; engine: Engine; majors: Set<number> }>();
  // The release lines ("10.11") behind each engine's first numbers (what `majors` holds), for the words.
  const releases = new Map<string, Set<string>>();
  for (const a of groups) {
    const g = a.group;
    const classKey = `${g.hardware.class}\u0000${g.engine.engine}`;
    const seen = majors.get(classKey) ?? {
      hardwareClass: g.hardware.class,
      engine: g.engine.engine,
      majors: new Set(),
    };
    seen.majors.add(g.engine.major);
    const first = `${g.engine.engine}\u0000${g.engine.major}`;
    releases.set(first, (releases.get(first) ?? new Set()).add(groupMajor(g)));
    majors.set(classKey, seen);
    const key = JSON.stringify([
      g.hardware.class,
      g.scenario.version,
      g.source,
      g.engine.engine,
      g.unit,
      Object.entries(g.params).sort(([x], [y]) => x.localeCompare(y)),
      g.point ?? null,
    ]);
    byConditions.set(key, [...(byConditions.get(key) ?? []), a]);
  }

  const pending: (Omit<VersionComparison, 'interactions' | 'summary' | 'sameVerdict' | 'versionChangesAnswer'> & {
    family: string;
    raw: RawInteraction[];
    releases: string[];
  })[] = [];
  for (const same of byConditions.values()) {
    const sorted = [...same].sort((x, y) => x.group.engine.major - y.group.engine.major);
    if (new Set(sorted.map((a) => a.group.engine.major)).size < 2) continue;
    const first = sorted[0]!;
    const pairs = new Map<string, { baseline: string; candidate: string }>();
    for (const a of sorted)
      for (const p of a.pairs)
        pairs.set(`${p.baseline}\u0000${p.candidate}`, { baseline: p.baseline, candidate: p.candidate });
    for (const { baseline, candidate } of pairs.values()) {
      const answered = sorted.flatMap((a) => {
        const pair = a.pairs.find((p) => p.baseline === baseline && p.candidate === candidate);
        return pair ? [{ row: rowOf(a, pair), release: groupMajor(a.group) }] : [];
      });
      const rows = answered.map((r) => r.row);
      if (rows.length < 2) continue;
      const direction =
        sorted.flatMap((a) => a.pairs).find((p) => p.baseline === baseline && p.candidate === candidate && p.measured)
          ?.measured?.direction ?? 'lower-is-better';
      const g = first.group;
      pending.push({
        hardwareClass: g.hardware.class,
        engine: g.engine.engine,
        scenarioVersion: g.scenario.version,
        source: g.source,
        params: g.params,
        point: g.point ?? null,
        conditions: conditionsOf(first),
        baseline,
        candidate,
        direction,
        unit: g.unit,
        rows,
        // One family of interaction tests: every pair and sweep point of one class and conditions.
        family: JSON.stringify([
          g.hardware.class,
          g.scenario.version,
          g.source,
          g.engine.engine,
          g.unit,
          Object.entries(g.params).sort(([x], [y]) => x.localeCompare(y)),
        ]),
        raw: direction === 'descriptive' ? [] : interactionsOf(sorted, baseline, candidate),
        releases: answered.map((r) => r.release),
      });
    }
  }
  const families = new Map<string, { p: number }[]>();
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
  const comparisons: VersionComparison[] = pending.map(({ family, raw, releases, ...base }) => {
    const size = families.get(family)?.length ?? 1;
    const interactions: Interactions = raw.map((t) => {
      const p = adjustedOf.get(family)?.get(t) ?? t.p;
      return { ...t, adjusted: { method: 'holm', p, family: size }, differs: p < ALPHA };
    });
    const { same, changes, text } = summaryOf({ ...base, interactions }, releases);
    return { ...base, interactions, sameVerdict: same, versionChangesAnswer: changes, summary: text };
  });

  const measured = [...majors.values()]
    .map((m) => ({ hardwareClass: m.hardwareClass, engine: m.engine, majors: [...m.majors].sort((a, b) => a - b) }))
    .sort((a, b) => a.hardwareClass.localeCompare(b.hardwareClass) || a.engine.localeCompare(b.engine));
  const releasesOf = (engine: Engine, major: number) => {
    const lines = [...(releases.get(`${engine}\u0000${major}`) ?? [])];
    // Release lines of one first number in order: 10.6 before 10.11.
    return lines.length > 0
      ? lines.sort((x, y) => Number(x.split('.')[1] ?? 0) - Number(y.split('.')[1] ?? 0))
      : [String(major)];
  };
  return { measured, comparisons, sentence: sentenceOf(measured, comparisons, releasesOf) };
}

function sentenceOf(
  measured: VersionAnswers['measured'],
  comparisons: readonly VersionComparison[],
  releasesOf: (engine: Engine, major: number) => string[],
): string {
  if (measured.length === 0) return 'No server version is measured yet.';
  const on = (engine: Engine, majors: readonly number[]) =>
    `${ENGINE_FACTS[engine].name} ${list(majors.flatMap((m) => releasesOf(engine, m)))}`;
  const servers = [...new Set(measured.map((m) => m.engine))].map((e) =>
    on(
      e,
      [...new Set(measured.filter((m) => m.engine === e).flatMap((m) => m.majors))].sort((x, y) => x - y),
    ),
  );
  if (comparisons.length > 0) {
    const side = new Map<string, { engine: Engine; majors: Set<number> }>();
    for (const c of comparisons) {
      const s = side.get(c.hardwareClass) ?? { engine: c.engine, majors: new Set<number>() };
      for (const r of c.rows) s.majors.add(r.major);
      side.set(c.hardwareClass, s);
    }
    const where = [...side.entries()].map(([hardwareClass, s]) => {
      const majors = [...s.majors].sort((x, y) => x - y);
      return `${hardwareClass} on ${on(s.engine, majors)}`;
    });
    return `Measured on ${list(servers)}; the same pairs under equal conditions side by side: ${list(where)}.`;
  }
  const perClass = measured.map((m) => `${m.hardwareClass} on ${on(m.engine, m.majors)}`);
  return `Measured on ${list(servers)} only — ${list(perClass)}; no hardware class has the same pair under equal conditions on two versions yet.`;
}
