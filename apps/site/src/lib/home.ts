/**
 * The home page's answers: one line per scenario that answers — its strongest piece of
 * evidence, with the class, server versions, scale, absolute figures and the article's
 * comparability — ranked by the strength of the evidence, and a scenario × server version matrix
 * of verdict cells over every measured class and condition (nothing dropped). Everything here
 * arranges what `@tunelab/answers` computed; nothing decides a verdict.
 */
import type { Agreement, ArticleFinding, LeftOut } from '@tunelab/contracts';
import { classLabel, decidingP, pairClaims } from '@tunelab/answers';
import {
  answerAnchor,
  byStrength,
  cellWord,
  strength,
  type ClassAnswer,
  type PairView,
  type Strength,
} from './answer.ts';
import { formatWithUnit, type DurationFormat } from './format.ts';
import type { ScenarioView, SiteData } from './load.ts';
import { compareServers, groupServer, rowServer, serverKey, serversText, type Server } from './servers.ts';
import { groupAnchor, versionLabel } from './views.ts';

type ComparisonGroup = ClassAnswer['group'];

/** What the picker ranks: see similar-candidates.ts (kept importable from here for the pages). */
export { similarCandidates } from './similar-candidates.ts';

const num = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : String(v));

/**
 * The parameters worth naming beside a scenario's figures: its scale (those scenario.yaml gives
 * a `published:` value, the article's) and any that differ between its groups.
 */
function shownParams(sc: ScenarioView): Set<string> {
  const keys = new Set(
    Object.entries(sc.folder?.doc.params ?? {})
      .filter(([, p]) => (p as { published?: unknown }).published !== undefined)
      .map(([k]) => k),
  );
  const groups = sc.answers?.groups ?? [];
  for (const k of new Set(groups.flatMap((a) => Object.keys(a.group.params))))
    if (new Set(groups.map((a) => JSON.stringify(a.group.params[k] ?? null))).size > 1) keys.add(k);
  for (const k of keys) if (k.startsWith('published.')) keys.delete(k);
  return keys;
}

/** "rows = 800,000": the group's scale (see shownParams), the sweep point included. */
const paramsText = (shown: Set<string>, g: ComparisonGroup, withPoint: boolean): string =>
  [
    ...Object.entries(g.params).filter(([k]) => shown.has(k)),
    ...(withPoint && g.point ? [[g.point.param, g.point.value] as const] : []),
  ]
    .map(([k, v]) => `${k} = ${num(v)}`)
    .join(', ');

export type AnswerLine = {
  scenario: ScenarioView;
  answer: ClassAnswer;
  pair: PairView;
  anchor: string;
  /** "2 cores / 24 GB / SSD" */
  hardwareClass: string;
  /** Where the same verdict holds on several majors of the class (same conditions), all of them; else the group's. */
  servers: string;
  /** Whether other majors of the class disagree with this one. */
  versionsDiffer: boolean;
  scale: string;
  /** The scenario version, where another group of the class and conditions is of another version (else null). */
  version: string | null;
  /** "5.0 s for 1-1 vs 2.2 s for 1-2", from the group's means. */
  figures: string | null;
  /** "×0.44" the candidate's mean over the baseline's. */
  ratio: string | null;
  /** "Bonferroni-adjusted p = 0.042 over 3 decisions" (the p the verdict was decided by) and "n = 3 + 3"; null without a measured pair. */
  evidence: { p: string | null; n: string } | null;
  significant: boolean;
  /** The agreement of the line's own claim, its verdict (pairClaims): never a ratio's beside a verdict it is not about. */
  agreement: Agreement;
  /** The first words of the reasons ("scale", "hardware"). */
  reasons: string[];
  /** A declared ratio the article published for this pair, with its own agreement ("table size after"). */
  ratioClaim: { subject: string; agreement: Agreement } | null;
  /** Set when the line's group does not count towards the verdict (its runs flagged noisy), with why. */
  leftOut: LeftOut | null;
};

/** "5.0 s for 1-1 vs 2.2 s for 1-2": a pair's means in the group's unit (null when a side is missing). */
export function meansText(
  g: Pick<ComparisonGroup, 'variants' | 'unit'>,
  p: Pick<PairView, 'baseline' | 'candidate'>,
  format: DurationFormat,
): string | null {
  const mean = (v: string) => g.variants.find((x) => x.variant === v)?.mean;
  const b = mean(p.baseline);
  const c = mean(p.candidate);
  if (b === undefined || c === undefined) return null;
  const withUnit = (v: number) => formatWithUnit(v, g.unit, format);
  return `${withUnit(b)} for ${p.baseline} vs ${withUnit(c)} for ${p.candidate}`;
}

/**
 * A group's scenario version for people ("scenario version 2 of 3 (…)") where another group of the
 * scenario goes by the same name (class, server, scale; left out or not) but is of another version:
 * there the name alone would give two answers one name. Null where the name is the group's alone.
 */
export function sharedNameVersion(sc: ScenarioView, a: ClassAnswer): string | null {
  const groups = [...(sc.answers?.groups ?? []), ...(sc.answers?.leftOut ?? [])];
  const shared = groups.some(
    (b) =>
      b.name === a.name &&
      Boolean(b.leftOut) === Boolean(a.leftOut) &&
      b.group.scenario.version !== a.group.scenario.version,
  );
  return shared ? versionLabel(sc, a.group.scenario.version) : null;
}

function lineOf(sc: ScenarioView, a: ClassAnswer, p: PairView): AnswerLine {
  const g = a.group;
  const mean = (v: string) => g.variants.find((x) => x.variant === v)?.mean;
  const b = mean(p.baseline);
  const c = mean(p.candidate);
  // In the metric's unit, as the answer card, the hardware pages and the feed print them (and the API gives them).
  const figures = meansText(g, p, 's');
  const m = p.measured;
  const nOf = (v: string) => g.variants.find((x) => x.variant === v)?.n ?? 0;
  // The p the verdict was decided by (Bonferroni-adjusted when the scenario makes several decisions), never the raw one beside it.
  const decided = decidingP(m ?? null);
  const claims = pairClaims(p, sc.answers?.metric.label ?? 'the metric', a.ratios);
  const verdict = claims.find((c) => c.about === 'verdict')!;
  const ratio = claims.find((c) => c.about === 'ratio');
  const evidence = m ? { p: decided?.text ?? null, n: `n = ${nOf(p.baseline)} + ${nOf(p.candidate)}` } : null;
  const same = sc.answers?.versions.comparisons.find(
    (v) =>
      v.hardwareClass === g.hardware.class &&
      v.baseline === p.baseline &&
      v.candidate === p.candidate &&
      v.scenarioVersion === g.scenario.version &&
      JSON.stringify(v.params) === JSON.stringify(g.params) &&
      (v.point?.value ?? null) === (g.point?.value ?? null),
  );
  return {
    scenario: sc,
    answer: a,
    pair: p,
    anchor: answerAnchor(a),
    hardwareClass: classLabel(g.hardware.class),
    servers: serversText(
      same?.sameVerdict ? same.rows.map((r) => rowServer(r, sc.answers?.groups ?? [])) : [groupServer(g)],
    ),
    versionsDiffer: same !== undefined && !same.sameVerdict,
    scale: paramsText(shownParams(sc), g, true),
    version: sharedNameVersion(sc, a),
    figures,
    ratio: b !== undefined && c !== undefined && b !== 0 ? `×${(c / b).toPrecision(2)}` : null,
    evidence,
    significant: m?.verdict.significant ?? false,
    agreement: verdict.agreement,
    reasons: verdict.agreement === 'not-comparable' ? [...new Set(p.reasons.map((r) => r.split(':')[0]!))] : [],
    ratioClaim: ratio ? { subject: ratio.subject, agreement: ratio.agreement } : null,
    leftOut: a.leftOut ?? null,
  };
}

/**
 * Per scenario with measured answers, its strongest line; the scenarios ranked by it (strongest
 * first). A scenario whose measured runs were all left out of the verdict (flagged noisy) gives
 * its strongest left-out answer, labelled, after every counted one: the page never goes blank.
 */
export function answerLines(data: SiteData): AnswerLine[] {
  const best: { line: AnswerLine; key: Strength }[] = [];
  for (const sc of data.scenarios) {
    const counted = sc.answers?.groups ?? [];
    const shown = counted.length > 0 ? counted : (sc.answers?.leftOut ?? []);
    let top: { a: ClassAnswer; p: PairView; key: Strength } | null = null;
    for (const a of shown)
      for (const p of a.pairs) {
        const [k, ...rest] = strength(p, a.group);
        const key: Strength = [a.leftOut ? k + 4 : k, ...rest];
        if (!top || byStrength(key, top.key) < 0) top = { a, p, key };
      }
    if (top) best.push({ line: lineOf(sc, top.a, top.p), key: top.key });
  }
  return best.sort((x, y) => byStrength(x.key, y.key)).map((b) => b.line);
}

/** A scenario with nothing measured, and the article's finding the home page shows for it. */
export type ArticleLine = { scenario: ScenarioView; finding: ArticleFinding; more: number };

/**
 * Per scenario with no measured answer (counted or left out), the article's own finding, as the
 * answers engine says it ("the article found …; not yet measured here"): a pair it compared with
 * a direction first, else the first it has (a ratio, a stated direction).
 */
export function articleLines(data: SiteData): ArticleLine[] {
  return data.scenarios.flatMap((sc) => {
    const a = sc.answers;
    if (!a || a.groups.length > 0 || a.leftOut.length > 0) return [];
    const found = a.articleFindings;
    const first =
      found.find(
        (f) => f.figure.kind === 'comparison' && (f.figure.outcome === 'faster' || f.figure.outcome === 'slower'),
      ) ?? found[0];
    return first ? [{ scenario: sc, finding: first, more: found.length - 1 }] : [];
  });
}

export type MatrixCell = {
  anchor: string;
  pairs: { pair: PairView; word: string; ratio: string | null; kind: string; points: string | null }[];
};
export type MatrixRow = {
  /** The class as stored ("2 cores / 24 GB / unknown disk": what the picker matches). */
  hardwareClass: string;
  /** The class for people ("… / virtual or unknown disk"). */
  label: string;
  conditions: string;
  cells: Map<string, MatrixCell>;
};
export type MatrixScenario = { scenario: ScenarioView; rows: MatrixRow[] };

/**
 * Every measured group of every scenario in a matrix: one row per scenario × class × conditions
 * (the parameters; a sweep's points fold into one cell), one column per server version. A cell
 * names each declared pair's verdict; a sweep's cell counts the points where the verdict holds.
 */
export function answerMatrix(data: SiteData): {
  servers: Server[];
  scenarios: MatrixScenario[];
} {
  const servers = new Map<string, Server>();
  const scenarios: MatrixScenario[] = [];
  for (const sc of data.scenarios) {
    const rows = new Map<string, MatrixRow>();
    const groups = new Map<string, Map<string, ClassAnswer[]>>();
    const shown = shownParams(sc);
    const versions = new Set((sc.answers?.groups ?? []).map((a) => a.group.scenario.version)).size;
    for (const a of sc.answers?.groups ?? []) {
      const g = a.group;
      const server = groupServer(g);
      servers.set(serverKey(server), server);
      const conditions = [paramsText(shown, g, false), versions > 1 ? versionLabel(sc, g.scenario.version) : '']
        .filter(Boolean)
        .join(' · ');
      const rowKey = `${g.hardware.class}|${JSON.stringify(g.params)}|${g.scenario.version}`;
      const row = rows.get(rowKey) ?? {
        hardwareClass: g.hardware.class,
        label: classLabel(g.hardware.class),
        conditions,
        cells: new Map(),
      };
      rows.set(rowKey, row);
      const cells = groups.get(rowKey) ?? new Map<string, ClassAnswer[]>();
      groups.set(rowKey, cells);
      cells.set(serverKey(server), [...(cells.get(serverKey(server)) ?? []), a]);
    }
    for (const [rowKey, cells] of groups)
      for (const [server, list] of cells) {
        const sorted = [...list].sort((x, y) => (x.group.point?.value ?? 0) - (y.group.point?.value ?? 0));
        const first = sorted[0]!;
        const pairs = first.pairs.map((p0, i) => {
          const words = sorted
            .map((a) => a.pairs[i])
            .filter((p): p is PairView => p !== undefined)
            .map(cellWord);
          if (sorted.length === 1) {
            const g = first.group;
            const mean = (v: string) => g.variants.find((x) => x.variant === v)?.mean;
            const b = mean(p0.baseline);
            const c = mean(p0.candidate);
            const { word, kind } = words[0]!;
            return {
              pair: p0,
              word,
              kind,
              ratio:
                b !== undefined && c !== undefined && b !== 0 && kind !== 'insufficient'
                  ? `×${(c / b).toPrecision(2)}`
                  : null,
              points: null,
            };
          }
          // A sweep: the commonest word, and at how many of the points it holds.
          const counts = new Map<string, { word: string; kind: string; n: number }>();
          for (const w of words) counts.set(w.word, { ...w, n: (counts.get(w.word)?.n ?? 0) + 1 });
          const top = [...counts.values()].sort((x, y) => y.n - x.n)[0]!;
          return {
            pair: p0,
            word: top.word,
            kind: top.kind,
            ratio: null,
            points: `${top.n} of ${words.length} ${first.group.point?.param ?? 'points'}`,
          };
        });
        rows.get(rowKey)!.cells.set(server, { anchor: groupAnchor(first.group), pairs });
      }
    if (rows.size > 0) scenarios.push({ scenario: sc, rows: [...rows.values()] });
  }
  return { servers: [...servers.values()].sort(compareServers), scenarios };
}
