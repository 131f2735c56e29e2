/**
 * The answers a scenario page opens with, as `@tunelab/answers` computed them (the same objects
 * GET /v1/answers serves): this file only arranges them for the pages — nothing here decides a
 * verdict or an agreement.
 */
import type { ScenarioAnswers } from '@tunelab/contracts';
import type { ScenarioView } from './load.ts';
import { compareMajors, groupServer } from './servers.ts';
import { groupAnchor } from './views.ts';

import { decidingP, pairClaims, verdictMagnitude, type PairClaim } from '@tunelab/answers';

export { AGREEMENT_TEXT } from '@tunelab/answers';
export type { PairClaim } from '@tunelab/answers';

export type ClassAnswer = ScenarioAnswers['groups'][number];
export type PairView = ClassAnswer['pairs'][number];

/** How strong a pair's evidence is, as a sort key (smaller first). */
export type Strength = [number, number, number];

/**
 * A pair's strength: a difference first, then a decided equivalence, then undecided or unstable
 * pairs, then too few runs; within each, the smallest deciding p, then the most repetitions.
 */
export function strength(p: PairView, g: ClassAnswer['group']): Strength {
  const m = p.measured;
  const n = g.variants
    .filter((v) => v.variant === p.baseline || v.variant === p.candidate)
    .reduce((s, v) => s + v.n, 0);
  if (!m || m.verdict.kind === 'insufficient-data' || m.verdict.kind === 'descriptive') return [3, 1, -n];
  return [m.verdict.significant ? 0 : m.verdict.conclusive ? 1 : 2, decidingP(m)?.p ?? 1, -n];
}
export const byStrength = (a: Strength, b: Strength) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** A group's strength: its strongest pair's. */
const groupStrength = (a: ClassAnswer): Strength =>
  a.pairs.map((p) => strength(p, a.group)).sort(byStrength)[0] ?? [4, 1, 0];

/**
 * One answer per group (class × conditions × point), the answer first: the groups of one class
 * under the same conditions (its sweep points and server versions) sit together — points in
 * their order, and at each point the strongest server version first — and those clusters come in
 * the order of their strongest group (a decided pair before an undecided one), then the package's
 * order (the most runs first). So a decided answer is never below an unstable one of the same
 * class at the same point.
 */
export function scenarioAnswers(sc: ScenarioView): ClassAnswer[] {
  const groups = sc.answers?.groups ?? [];
  const keyOf = (a: ClassAnswer) =>
    `${a.group.hardware.class}|${JSON.stringify(a.group.params)}|${a.group.scenario.version}|${a.group.engine.engine}`;
  const firstAt = new Map<string, number>();
  const best = new Map<string, Strength>();
  groups.forEach((a, i) => {
    const k = keyOf(a);
    if (!firstAt.has(k)) firstAt.set(k, i);
    const s = groupStrength(a);
    if (!best.has(k) || byStrength(s, best.get(k)!) < 0) best.set(k, s);
  });
  return [...groups].sort(
    (x, y) =>
      byStrength(best.get(keyOf(x))!, best.get(keyOf(y))!) ||
      firstAt.get(keyOf(x))! - firstAt.get(keyOf(y))! ||
      (x.group.point?.value ?? 0) - (y.group.point?.value ?? 0) ||
      byStrength(groupStrength(x), groupStrength(y)) ||
      compareMajors(groupServer(x.group).major, groupServer(y.group).major),
  );
}

/** What the cell word reads of a pair: its verdict's kind and whether it decided, and the paired decision. */
export type CellPair = {
  measured: {
    verdict: Pick<NonNullable<PairView['measured']>['verdict'], 'kind' | 'conclusive'>;
    paired?: Pick<NonNullable<NonNullable<PairView['measured']>['paired']>, 'decision'> | null;
  } | null;
};

/** A pair's verdict word (the matrix cells, the cards' data-verdict, the grouped answer). */
export function cellWord(p: CellPair): { word: string; kind: string } {
  const k = p.measured?.verdict.kind ?? 'insufficient-data';
  if (k === 'faster') return { word: 'better', kind: 'better' };
  if (k === 'slower') return { word: 'worse', kind: 'worse' };
  // Neither way: within the margin (decided), too noisy to decide (unstable), or not yet decided.
  if (k === 'no-significant-difference') {
    if (p.measured?.paired?.decision === 'unstable') return { word: 'unstable', kind: 'none' };
    return p.measured?.verdict.conclusive ? { word: 'equivalent', kind: 'none' } : { word: 'undecided', kind: 'none' };
  }
  if (k === 'descriptive') return { word: 'no verdict', kind: 'none' };
  return { word: 'too few runs', kind: 'insufficient' };
}

/**
 * "1-2 vs 1-1: better on 60, equivalent on 10, undecided on 5": per declared pair, how many groups
 * give each verdict (the matrix's words), the most first — the grouped answer in one line when a
 * page folds its cards.
 */
export function verdictTally(answers: readonly ClassAnswer[]): { pair: string; counts: [string, number][] }[] {
  const tally = new Map<string, Map<string, number>>();
  for (const a of answers)
    for (const p of a.pairs) {
      const pair = `${p.candidate} vs ${p.baseline}`;
      const counts = tally.get(pair) ?? new Map<string, number>();
      const word = cellWord(p).word;
      counts.set(word, (counts.get(word) ?? 0) + 1);
      tally.set(pair, counts);
    }
  return [...tally].map(([pair, counts]) => ({ pair, counts: [...counts].sort(([, a], [, b]) => b - a) }));
}

/** "37.5% better (95% CI 23.4%–51.6%), p = 0.002": the magnitude and confidence of a significant verdict (@tunelab/answers). */
export const magnitude = (p: PairView): string | null => verdictMagnitude(p.candidate, p.measured);

/** A pair's claims (its verdict, and a declared ratio the article published), each with its own agreement. */
export const claimsOf = (answers: ScenarioAnswers | null, a: ClassAnswer, p: PairView): PairClaim[] =>
  pairClaims(p, answers?.metric.label ?? 'the metric', a.ratios);

/**
 * The anchor of a group's answer card: the group's, and for a group left out of the verdict (its
 * runs flagged noisy) its own beside the counted group of the same class and conditions.
 */
export const answerAnchor = (a: Pick<ClassAnswer, 'group' | 'leftOut'>): string =>
  `${groupAnchor(a.group)}${a.leftOut ? `-left-out-${a.leftOut.reason}` : ''}`;
