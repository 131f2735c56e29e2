/**
 * The answers a scenario page opens with, as `@tunelab/answers` computed them (the same objects
 * GET /v1/answers serves): this file only arranges them for the pages — nothing here decides a
 * verdict or an agreement.
 */
import type { ScenarioAnswers } from '@tunelab/contracts';
import type { ScenarioView } from './load.ts';
import { compareMajors, groupServer } from './servers.ts';
import { groupAnchor } from './views.ts';

import { pairClaims, verdictMagnitude, type PairClaim } from '@tunelab/answers';

export { AGREEMENT_TEXT } from '@tunelab/answers';
export type { PairClaim } from '@tunelab/answers';

export type ClassAnswer = ScenarioAnswers['groups'][number];
export type PairView = ClassAnswer['pairs'][number];

/**
 * One answer per group (class × conditions × point), the groups with the most runs first (the
 * package's order), except that the server versions of one class under the same conditions sit
 * together, oldest major first.
 */
export function scenarioAnswers(sc: ScenarioView): ClassAnswer[] {
  const groups = sc.answers?.groups ?? [];
  const keyOf = (a: ClassAnswer) =>
    `${a.group.hardware.class}|${JSON.stringify(a.group.params)}|${a.group.scenario.version}|${a.group.point?.value ?? ''}|${a.group.engine.engine}`;
  const firstAt = new Map<string, number>();
  groups.forEach((a, i) => {
    if (!firstAt.has(keyOf(a))) firstAt.set(keyOf(a), i);
  });
  return [...groups].sort(
    (x, y) =>
      firstAt.get(keyOf(x))! - firstAt.get(keyOf(y))! ||
      compareMajors(groupServer(x.group).major, groupServer(y.group).major),
  );
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
