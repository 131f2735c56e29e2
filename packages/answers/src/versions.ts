/**
 * The server version as an answer axis (issue 18): for one hardware class, scenario version,
 * engine, parameter values and sweep point, the same declared pair side by side per engine major
 * version — n and mean per side, the difference and the relative improvement with its 95%
 * interval in the metric's direction, the verdict and the agreement with the article. Every
 * figure is read from the per-group answers `answerScenario` computed (one group per major: the
 * grouping never pools two majors); nothing is computed again here.
 */
import {
  ENGINE_FACTS,
  type Engine,
  type PairComparison,
  type VersionAnswers,
  type VersionComparison,
  type VersionRow,
} from '@tunelab/contracts';
import type { AnswerGroup } from './answer.ts';
import type { GroupAnswerOf } from './scenario.ts';

/** "PostgreSQL 17" */
export const serverName = (engine: Engine, major: number) => `${ENGINE_FACTS[engine].name} ${major}`;

type VersionSide = NonNullable<VersionRow['baseline']>;

type Answered = Pick<GroupAnswerOf<AnswerGroup>, 'group' | 'name' | 'pairs'>;

const list = (xs: readonly string[]) =>
  xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;

/** The group's name without its engine-and-major part: the conditions two majors share. */
function conditionsOf(a: Answered): string {
  const server = serverName(a.group.engine.engine, a.group.engine.major);
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
    },
    agreement: pair.agreement,
  };
}

const VERDICT_WORDS: Record<PairComparison['verdict']['kind'], string> = {
  faster: 'better',
  slower: 'worse',
  'no-significant-difference': 'no significant difference',
  'insufficient-data': 'not enough data',
  descriptive: 'descriptive (no verdict)',
};

function summaryOf(c: Omit<VersionComparison, 'summary' | 'sameVerdict'>): { same: boolean; text: string } {
  const kinds = new Set(c.rows.map((r) => r.verdict.kind));
  const word = (k: PairComparison['verdict']['kind']) =>
    k === 'faster' || k === 'slower' ? `${c.candidate} ${VERDICT_WORDS[k]} than ${c.baseline}` : VERDICT_WORDS[k];
  if (kinds.size === 1) {
    const k = c.rows[0]!.verdict.kind;
    const on = `${ENGINE_FACTS[c.engine].name} ${list(c.rows.map((r) => String(r.major)))}`;
    return { same: true, text: `The same on ${on}: ${word(k)}.` };
  }
  const parts = [...kinds].map(
    (k) => `${word(k)} on ${list(c.rows.filter((r) => r.verdict.kind === k).map((r) => String(r.major)))}`,
  );
  return { same: false, text: `The verdict changes with the server version: ${parts.join('; ')}.` };
}

/**
 * The scenario's pairs across engine major versions, from its per-group answers: groups that
 * differ only in the major (same class, scenario version, source, engine, parameter values and
 * sweep point) are put side by side, oldest major first.
 */
export function answerVersions(groups: readonly Answered[]): VersionAnswers {
  const byConditions = new Map<string, Answered[]>();
  const majors = new Map<string, { hardwareClass: string; engine: Engine; majors: Set<number> }>();
  for (const a of groups) {
    const g = a.group;
    const classKey = `${g.hardware.class}\u0000${g.engine.engine}`;
    const seen = majors.get(classKey) ?? {
      hardwareClass: g.hardware.class,
      engine: g.engine.engine,
      majors: new Set(),
    };
    seen.majors.add(g.engine.major);
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

  const comparisons: VersionComparison[] = [];
  for (const same of byConditions.values()) {
    const sorted = [...same].sort((x, y) => x.group.engine.major - y.group.engine.major);
    if (new Set(sorted.map((a) => a.group.engine.major)).size < 2) continue;
    const first = sorted[0]!;
    const pairs = new Map<string, { baseline: string; candidate: string }>();
    for (const a of sorted)
      for (const p of a.pairs)
        pairs.set(`${p.baseline}\u0000${p.candidate}`, { baseline: p.baseline, candidate: p.candidate });
    for (const { baseline, candidate } of pairs.values()) {
      const rows = sorted.flatMap((a) => {
        const pair = a.pairs.find((p) => p.baseline === baseline && p.candidate === candidate);
        return pair ? [rowOf(a, pair)] : [];
      });
      if (rows.length < 2) continue;
      const direction =
        sorted.flatMap((a) => a.pairs).find((p) => p.baseline === baseline && p.candidate === candidate && p.measured)
          ?.measured?.direction ?? 'lower-is-better';
      const base = {
        hardwareClass: first.group.hardware.class,
        engine: first.group.engine.engine,
        scenarioVersion: first.group.scenario.version,
        source: first.group.source,
        params: first.group.params,
        point: first.group.point ?? null,
        conditions: conditionsOf(first),
        baseline,
        candidate,
        direction,
        unit: first.group.unit,
        rows,
      };
      const { same: sameVerdict, text } = summaryOf(base);
      comparisons.push({ ...base, sameVerdict, summary: text });
    }
  }

  const measured = [...majors.values()]
    .map((m) => ({ hardwareClass: m.hardwareClass, engine: m.engine, majors: [...m.majors].sort((a, b) => a - b) }))
    .sort((a, b) => a.hardwareClass.localeCompare(b.hardwareClass) || a.engine.localeCompare(b.engine));
  return { measured, comparisons, sentence: sentenceOf(measured, comparisons) };
}

function sentenceOf(measured: VersionAnswers['measured'], comparisons: readonly VersionComparison[]): string {
  if (measured.length === 0) return 'No server version is measured yet.';
  const on = (engine: Engine, majors: readonly number[]) => `${ENGINE_FACTS[engine].name} ${list(majors.map(String))}`;
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
