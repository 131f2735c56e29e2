/**
 * A pair's answer as the pages beside the scenario page state it (the hardware pages, the feed):
 * the answers engine's group and pair — the same objects GET /v1/answers serves and the scenario
 * page's answer card shows — with the card's advice, badge, means and verdict sentence. Nothing
 * here computes a figure: a machine's page shows the answers of the groups its runs are part of,
 * never a verdict of its own that the scenario page does not give.
 */
import { pairClaims, type PairClaim } from '@tunelab/answers';
import type { ComparisonGroup, LeftOut } from '@tunelab/contracts';
import type { ClassAnswer, PairView } from './answer.ts';
import { meansText, sharedNameVersion } from './home.ts';
import type { ScenarioView, SiteData } from './load.ts';

type PairLine = {
  scenario: ScenarioView;
  answer: ClassAnswer;
  pair: PairView;
  /**
   * The group as the answers name it, with the scenario version where another group of the name is
   * of another version, and "(left out)" for a group of runs left out of the verdict: no two
   * groups share one.
   */
  name: string;
  /** The verdict's claim: the advice and the agreement its badge shows. */
  verdict: PairClaim;
  /** "0.3423 s for full-rewrite vs 0.5664 s for cluster", as the card prints it. */
  figures: string | null;
  /** The verdict sentence (direction word, % difference, interval, p, n). */
  sentence: string;
  leftOut: LeftOut | null;
};

/** Every group a scenario's answers give, counted first, then those left out of the verdict. */
const answeredGroups = (sc: ScenarioView): ClassAnswer[] => [
  ...(sc.answers?.groups ?? []),
  ...(sc.answers?.leftOut ?? []),
];

/**
 * Each measured pair of every group of the scenario's answers, as one line. A group is named as the
 * answers name it, plus the scenario version where another group of that name is of another version.
 */
export function pairLines(sc: ScenarioView): PairLine[] {
  let lines = made.get(sc);
  if (!lines) made.set(sc, (lines = makePairLines(sc)));
  return lines;
}

/** A scenario's lines, made once per build: every machine's page and the feed read them. */
const made = new WeakMap<ScenarioView, PairLine[]>();

function makePairLines(sc: ScenarioView): PairLine[] {
  const groups = answeredGroups(sc);
  const metric = sc.answers?.metric.label ?? 'the metric';
  return groups.flatMap((a) => {
    const version = sharedNameVersion(sc, a);
    const name = version ? `${a.name} · ${version}` : a.name;
    return a.pairs.flatMap((p) => {
      if (!p.measured) return [];
      const verdict = pairClaims(p, metric, a.ratios).find((c) => c.about === 'verdict')!;
      return [
        {
          scenario: sc,
          answer: a,
          pair: p,
          name: `${name}${a.leftOut ? ' (left out)' : ''}`,
          verdict,
          figures: meansText(a.group, p, 's'),
          sentence: p.measured.verdict.sentence,
          leftOut: a.leftOut ?? null,
        },
      ];
    });
  });
}

/** Whether a machine's group and an answer's group hold runs under the same conditions (all but the machine). */
const sameConditions = (m: ComparisonGroup, a: ClassAnswer['group']) =>
  m.scenario.key === a.scenario.key &&
  m.scenario.version === a.scenario.version &&
  m.source === a.source &&
  m.hardware.class === a.hardware.class &&
  m.engine.engine === a.engine.engine &&
  m.engine.major === a.engine.major &&
  m.metric === a.metric &&
  m.unit === a.unit &&
  (m.point?.value ?? null) === (a.point?.value ?? null) &&
  JSON.stringify(Object.entries(m.params).sort()) === JSON.stringify(Object.entries(a.params).sort());

/** A pair line on a machine's page: the line, and how many of its group's runs are the machine's. */
type MachineLine = PairLine & { runs: number };

/**
 * The answers a machine's runs are part of: per group of the machine's own runs (results-db's
 * grouping by machine, every run pooled), the answer of the class group under the same
 * conditions that counts them, and the left-out group that answers its runs left out (flagged noisy).
 */
export function machineLines(data: SiteData, fingerprint: string): MachineLine[] {
  const own = data.machineGroups.get(fingerprint) ?? [];
  const policy = data.config.noisy ?? 'exclude';
  return data.scenarios.flatMap((sc) => {
    const mine = own.filter((m) => m.scenario.key === sc.key);
    if (mine.length === 0) return [];
    return pairLines(sc).flatMap((line) => {
      const m = mine.find((g) => sameConditions(g, line.answer.group));
      if (!m) return [];
      // Runs flagged noisy and measured without blocks are left out under `exclude` (left-out.ts of @tunelab/answers).
      const leftOut = policy === 'exclude' ? m.noise.noisy - m.noise.paired : 0;
      const runs = line.leftOut ? leftOut : m.runCount - leftOut;
      return runs > 0 ? [{ ...line, runs }] : [];
    });
  });
}
