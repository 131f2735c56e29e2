/**
 * The answers a scenario page opens with, as `@tunelab/answers` computed them (the same objects
 * GET /v1/answers serves): this file only arranges them for the pages — nothing here decides a
 * verdict or an agreement.
 */
import type { Agreement, ScenarioAnswers } from '@tunelab/contracts';
import type { ScenarioView } from './load.ts';

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
    (x, y) => firstAt.get(keyOf(x))! - firstAt.get(keyOf(y))! || x.group.engine.major - y.group.engine.major,
  );
}

/** One declared pair across a group's sweep points: consecutive points with the same advice and agreement. */
export type SweepPairSummary = {
  baseline: string;
  candidate: string;
  /** Consecutive points where a claim (the verdict, or a declared ratio) says the same with the same agreement. */
  segments: {
    about: PairClaim['about'];
    subject: string;
    text: string;
    significant: boolean;
    agreement: Agreement;
    magnitude: string | null;
    points: string[];
  }[];
};

/** A swept scenario's answers for one class and conditions, for the home page (one card, not one per point). */
export type SweepClassSummary = {
  /** The first point's answer: its group names the class, links and counts. */
  first: ClassAnswer;
  name: string;
  param: string;
  runCount: number;
  pairs: SweepPairSummary[];
  reasons: string[];
};

/** "37.5% better (95% CI 23.4%–51.6%), p = 0.002": the magnitude and confidence of a significant verdict (@tunelab/answers). */
export const magnitude = (p: PairView): string | null => verdictMagnitude(p.candidate, p.measured);

/** A pair's claims (its verdict, and a declared ratio the article published), each with its own agreement. */
export const claimsOf = (answers: ScenarioAnswers | null, a: ClassAnswer, p: PairView): PairClaim[] =>
  pairClaims(p, answers?.metric.label ?? 'the metric', a.ratios);

/**
 * Folds per-point answers into one summary per class and conditions, keeping the package's order
 * (most runs first); each summary's points are sorted. Consecutive points with the same advice and
 * agreement are said once: "prefer syncfs over fsync at tables = 3,000, 10,000, 30,000".
 */
export function sweepSummaries(answers: ScenarioAnswers | null): SweepClassSummary[] {
  const byClass = new Map<string, ClassAnswer[]>();
  for (const a of answers?.groups ?? []) {
    if (!a.group.point) continue;
    const key = `${a.group.hardware.class}|${a.group.engine.engine}${a.group.engine.major}|${JSON.stringify(a.group.params)}|${a.group.scenario.version}`;
    byClass.set(key, [...(byClass.get(key) ?? []), a]);
  }
  return [...byClass.values()].map((list) => {
    const sorted = [...list].sort((x, y) => (x.group.point?.value ?? 0) - (y.group.point?.value ?? 0));
    const first = sorted[0]!;
    const param = first.group.point!.param;
    const pairs: SweepPairSummary[] = first.pairs.map((p0, i) => {
      // Per claim (the verdict, a declared ratio): its segments of consecutive points that say the same.
      const byClaim = new Map<string, SweepPairSummary['segments']>();
      for (const a of sorted) {
        const p = a.pairs[i];
        if (!p) continue;
        const point = (a.group.point?.value ?? 0).toLocaleString('en-US');
        for (const c of claimsOf(answers, a, p)) {
          const segments = byClaim.get(c.about) ?? [];
          byClaim.set(c.about, segments);
          const last = segments[segments.length - 1];
          if (last && last.text === c.text && last.agreement === c.agreement) last.points.push(point);
          else
            segments.push({
              about: c.about,
              subject: c.subject,
              text: c.text,
              significant: c.significant,
              agreement: c.agreement,
              magnitude: c.about === 'verdict' ? magnitude(p) : null,
              points: [point],
            });
        }
      }
      return { baseline: p0.baseline, candidate: p0.candidate, segments: [...byClaim.values()].flat() };
    });
    return {
      first,
      name: first.name.replace(` · ${param} = ${first.group.point!.value.toLocaleString('en-US')}`, ''),
      param,
      runCount: Math.max(...sorted.map((a) => a.group.runCount)),
      pairs,
      reasons: [...new Set(sorted.flatMap((a) => a.pairs.flatMap((p) => p.reasons.map((r) => r.split(':')[0]!))))],
    };
  });
}
