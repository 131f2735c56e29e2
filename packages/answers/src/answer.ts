/**
 * The answer engine: per group of runs under equal conditions and per declared pair, the verdict
 * (already computed in the metric's direction by `comparePair`) and whether it agrees with the
 * article — reproduces / contradicts / inconclusive / not-comparable / no-article /
 * insufficient-data — with the reasons read from the data by ONE comparability rule (README.md),
 * the same for every scenario. Nothing here is written per scenario.
 */
import type {
  Agreement,
  ArticleFigure,
  ComparisonGroup,
  PairComparison,
  PublishedFile,
  ScenarioDocument,
} from '@tunelab/contracts';
import { ENGINE_FACTS, majorOfParts } from '@tunelab/contracts';
import { engineDefault, sameSetting } from './settings.ts';
import type { RatioAnswer } from '@tunelab/contracts';
import { conditionReasons, evaluateConditions } from './conditions.ts';
import type { UnitSample } from './figures.ts';

/** A comparison group as results-db returns it (run links optional). */
export type AnswerGroup = Omit<ComparisonGroup, 'runs'> & { runs: readonly { id: string }[] };

export type ScenarioInput = { doc: ScenarioDocument; published: PublishedFile | null };

export const AGREEMENT_TEXT: Record<Agreement, string> = {
  reproduces: 'reproduces the article',
  contradicts: 'contradicts the article',
  inconclusive: 'inconclusive',
  'not-comparable': 'not comparable',
  'no-article': 'no article figure',
  'insufficient-data': 'not enough data',
};

/** The comparability rule in words: README.md and the site's method text print this. */
export const COMPARABILITY_RULE =
  'A measured result is held against the article’s figure for the same pair at the same sweep point (else the nearest point, which makes it not comparable). ' +
  'It is comparable only when (1) every parameter for which the scenario declares the article’s value is within a factor of 2 of it (booleans and choices equal), and the article ran its full data set; ' +
  '(2) every essential condition the scenario declares (published.json `conditions`: a metric, parameter or setting a run records, and the threshold it must reach) is met by every run of the group; a condition whose value the group did not record counts as not met; ' +
  '(3) when the article described its machine: the storage kind here is known and the same, and cores and memory together are within two doublings; ' +
  '(4) every setting the scenario calls relevant equals the article’s, where the article stated it (a setting a run did not record is the server’s default). ' +
  'A comparable result reproduces the article when it points the same way (both faster, both slower, or both without a significant difference), contradicts it when it points the other way, ' +
  'and is inconclusive when the measurement finds no significant difference where the article found one. Any condition that differs makes it not comparable, whatever it points to, and says which.';

export const storageName = (kind: string) => (kind === 'unknown' ? 'virtual or unknown disk' : kind.toUpperCase());
const num = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : String(v));
const pct = (x: number) => `${Math.round(x * 100)}%`;
const fraction = (r: number) => (r < 1 ? `1/${Math.round(1 / r).toLocaleString('en-US')}` : `${r.toFixed(1)}×`);

/** A machine the article described (or did not: `stated` false, its figures still count). */
export type ArticleMachine = {
  id: string;
  label: string;
  stated: boolean;
  cores: number | null;
  memoryGb: number | null;
  storage: string | null;
  dataScale: number | null;
  group: AnswerGroup;
};

export function articleMachine(g: AnswerGroup): ArticleMachine {
  const p = g.params;
  const stated = g.hardware.stated;
  const id = typeof p['published.machine'] === 'string' ? p['published.machine'] : g.hardware.class;
  return {
    id,
    label:
      typeof p['published.label'] === 'string'
        ? p['published.label']
        : stated
          ? g.hardware.class
          : 'the article’s machine (not stated by the article)',
    stated,
    cores: stated ? g.hardware.physicalCores : null,
    memoryGb: stated ? g.hardware.memoryGb : null,
    storage: stated && g.hardware.storageKind !== 'unknown' ? g.hardware.storageKind : null,
    dataScale: typeof p['published.data_scale'] === 'number' ? p['published.data_scale'] : null,
    group: g,
  };
}

/** |log2 cores ratio| + |log2 memory ratio|; null when a side is not stated. */
export function hardwareDistance(
  a: { cores: number; memoryGb: number },
  b: { cores: number | null; memoryGb: number | null },
): number | null {
  if (b.cores === null || b.memoryGb === null || b.cores <= 0 || b.memoryGb <= 0 || a.memoryGb <= 0 || a.cores <= 0)
    return null;
  return Math.abs(Math.log2(a.cores / b.cores)) + Math.abs(Math.log2(a.memoryGb / b.memoryGb));
}

/** Same storage first, then the nearest size; machines the article did not describe last. */
export function nearestArticleMachine(g: AnswerGroup, machines: readonly ArticleMachine[]): ArticleMachine | null {
  const here = { cores: g.hardware.physicalCores, memoryGb: g.hardware.memoryGb };
  const ranked = [...machines].sort((a, b) => {
    const sa = a.storage !== null && a.storage === g.hardware.storageKind ? 0 : 1;
    const sb = b.storage !== null && b.storage === g.hardware.storageKind ? 0 : 1;
    if (sa !== sb) return sa - sb;
    return (
      (hardwareDistance(here, a) ?? 99) - (hardwareDistance(here, b) ?? 99) ||
      // Ties: the machine that ran the article's whole data set, then the article's own order.
      Math.abs(Math.log((a.dataScale ?? 1) || 1)) - Math.abs(Math.log((b.dataScale ?? 1) || 1)) ||
      a.id.localeCompare(b.id)
    );
  });
  return ranked[0] ?? null;
}

/** Article machines with figures at the group's sweep point, else at the nearest point (log scale). */
function atPoint(g: AnswerGroup, machines: readonly ArticleMachine[]): ArticleMachine[] {
  if (!g.point) return machines.filter((m) => !m.group.point);
  const p = g.point;
  const same = machines.filter((m) => m.group.point?.param === p.param);
  const exact = same.filter((m) => m.group.point?.value === p.value);
  if (exact.length > 0) return exact;
  const dist = (m: ArticleMachine) =>
    Math.abs(Math.log(Math.max(1e-9, m.group.point?.value ?? 1) / Math.max(1e-9, p.value)));
  const best = Math.min(...same.map(dist));
  return same.filter((m) => dist(m) === best);
}

type Outcome = ArticleFigure['outcome'];

const meanOf = (g: AnswerGroup, variant: string) => g.variants.find((v) => v.variant === variant)?.mean;

/**
 * faster / slower / none for the candidate. A tested comparison gives its verdict; figures without
 * repetitions (an article's table) give the direction of their means, or none when they are equal
 * (e.g. 0 s and 0 s at one-second resolution).
 */
function outcomeOf(g: AnswerGroup, c: PairComparison): Outcome {
  if (c.verdict.kind === 'faster' || c.verdict.kind === 'slower') return c.verdict.kind;
  if (c.verdict.kind === 'no-significant-difference') return 'none';
  if (c.verdict.kind === 'descriptive') return 'unknown';
  const a = meanOf(g, c.baseline);
  const b = meanOf(g, c.candidate);
  if (a === undefined || b === undefined) return 'unknown';
  if (a === b) return 'none';
  const lowerBetter = c.direction === 'lower-is-better';
  return b < a === lowerBetter ? 'faster' : 'slower';
}

const flip = (o: Outcome): Outcome => (o === 'faster' ? 'slower' : o === 'slower' ? 'faster' : o);

function articleComparison(m: ArticleMachine, baseline: string, candidate: string) {
  const direct = m.group.comparisons.find((c) => c.baseline === baseline && c.candidate === candidate);
  if (direct) return { comparison: direct, outcome: outcomeOf(m.group, direct) };
  const reverse = m.group.comparisons.find((c) => c.baseline === candidate && c.candidate === baseline);
  return reverse ? { comparison: reverse, outcome: flip(outcomeOf(m.group, reverse)) } : null;
}

/** The reasons a measured group is not comparable with an article machine, and notes that do not decide. */
export function comparability(
  scenario: ScenarioInput,
  g: AnswerGroup,
  article: ArticleMachine | null,
  /** Every sample of the group's runs (the metrics its conditions read; `conditionMetrics`). */
  samples: readonly UnitSample[] = [],
): { reasons: string[]; notes: string[] } {
  const doc = scenario.doc;
  const reasons: string[] = [];
  const notes: string[] = [];
  // (1) scale: every parameter whose article value the scenario declares.
  const scale: string[] = [];
  for (const [name, def] of Object.entries(doc.params)) {
    if (name === doc.sweep?.param || def.published === undefined) continue;
    const here = g.params[name];
    if (here === undefined) continue;
    const pub = def.published;
    if (typeof pub === 'number' && typeof here === 'number') {
      const r = pub === 0 ? (here === 0 ? 1 : Infinity) : here / pub;
      if (r < 0.5 || r > 2)
        scale.push(
          `${name} ${num(here)} here vs ${num(pub)} in the article${Number.isFinite(r) && r > 0 ? ` (${fraction(r)})` : ''}`,
        );
    } else if (here !== pub) scale.push(`${name} ${num(here)} here vs ${num(pub)} in the article`);
  }
  if (scale.length > 0) reasons.push(`scale: ${scale.join('; ')}`);
  if (article?.dataScale !== null && article?.dataScale !== undefined && article.dataScale !== 1)
    reasons.push(`scale: the article ran ${pct(article.dataScale)} of its data on ${article.id}`);
  // (2) the essential conditions the scenario declares, read from what the runs recorded.
  const unmet = conditionReasons(evaluateConditions(doc, scenario.published, g, samples));
  if (unmet.length > 0) reasons.push(`conditions: ${unmet.join('; ')}`);
  // (3) hardware, when the article described it.
  if (article && !article.stated) notes.push('hardware: the article did not describe its machine');
  else if (article) {
    const parts: string[] = [];
    if (g.hardware.storageKind === 'unknown')
      parts.push(
        `storage here is a virtual or unknown disk, the article’s ${article.storage ? storageName(article.storage) : 'not stated'}`,
      );
    else if (article.storage !== null && article.storage !== g.hardware.storageKind)
      parts.push(`${storageName(g.hardware.storageKind)} here vs ${storageName(article.storage)} in the article`);
    const d = hardwareDistance({ cores: g.hardware.physicalCores, memoryGb: g.hardware.memoryGb }, article);
    if (d !== null && d > 2)
      parts.push(
        `${g.hardware.physicalCores} cores / ${g.hardware.memoryGb} GB here vs ${article.cores} cores / ${article.memoryGb} GB in the article`,
      );
    if (parts.length > 0) reasons.push(`hardware: ${parts.join('; ')}`);
  }
  // (4) the settings the scenario calls relevant, where the article stated them.
  // What the article stated: its published.json settings, and the settings its imported runs
  // recorded. A value results-db filled in as the engine's default was not stated by the article.
  const recorded = Object.entries(article?.group.settings ?? {}).flatMap(([k, v]): [string, string][] => {
    const first = v[0];
    return first !== undefined && !first.endsWith(' (default)') && first !== 'server default' ? [[k, first]] : [];
  });
  const stated: Record<string, string> = {
    ...(scenario.published?.setup?.server_settings ?? {}),
    ...Object.fromEntries(recorded),
  };
  const differ: string[] = [];
  for (const name of doc.report.relevant_settings) {
    const theirs = stated[name];
    if (theirs === undefined) continue;
    const values = settingValues(g, name);
    if (values.some((v) => !sameSetting(v.replace(/ \(default\)$/, ''), theirs)))
      differ.push(`${name} ${values.join(' / ')} here vs ${theirs} in the article`);
  }
  if (differ.length > 0) reasons.push(`settings: ${differ.join('; ')}`);
  return { reasons, notes };
}

/** The values a group's runs had for a setting; a setting no run recorded is the engine default. */
export function settingValues(g: AnswerGroup, name: string): string[] {
  const recorded = g.settings[name];
  if (recorded && recorded.length > 0) return recorded;
  const fallback = engineDefault(g.engine.engine, name);
  return [fallback ? `${fallback} (default)` : 'server default'];
}

/** "prefer 1-2 (drop indexes …) over 1-1 (…)" — what a reader on this class should do for one pair. */
export function advice(
  measured: PairComparison | null,
  baseline: string,
  candidate: string,
  labels: Record<string, string>,
): { text: string; significant: boolean } {
  const name = (k: string) => `${k}${labels[k] ? ` (${labels[k]})` : ''}`;
  const c = measured;
  if (!c || c.verdict.kind === 'insufficient-data')
    return { text: `${name(candidate)} vs ${name(baseline)}: not enough data yet`, significant: false };
  if (c.verdict.kind === 'descriptive')
    return { text: `${name(candidate)} vs ${name(baseline)}: a description, not a goal`, significant: false };
  // "No measurable difference" only when the interval rules out a change beyond ±10% (conclusive).
  if (c.verdict.kind === 'no-significant-difference')
    return {
      text: c.verdict.conclusive
        ? `${name(candidate)} vs ${name(baseline)}: no measurable difference here (within ±10%)`
        : `${name(candidate)} vs ${name(baseline)}: not enough repetitions to be sure`,
      significant: false,
    };
  const better = c.verdict.kind === 'faster' ? candidate : baseline;
  const worse = better === candidate ? baseline : candidate;
  return { text: `prefer ${name(better)} over ${name(worse)}`, significant: true };
}

function insideArticleInterval(measured: PairComparison, art: PairComparison, flipped: boolean): boolean {
  const ci = art.ci95;
  if (!ci || measured.improvement === null) return false;
  const low = flipped ? (ci.high === null ? null : -ci.high) : ci.low;
  const high = flipped ? (ci.low === null ? null : -ci.low) : ci.high;
  return (low === null || measured.improvement >= low) && (high === null || measured.improvement <= high);
}

const outcomeOfMeasured = (c: PairComparison): Outcome =>
  c.verdict.kind === 'faster' || c.verdict.kind === 'slower'
    ? c.verdict.kind
    : c.verdict.kind === 'no-significant-difference'
      ? 'none'
      : 'unknown';

export type PairAnswerRecord = {
  baseline: string;
  candidate: string;
  measured: PairComparison | null;
  agreement: Agreement;
  reasons: string[];
  notes: string[];
  article: ArticleFigure | null;
  advice: string;
};

/** One declared pair of one measured group, against the nearest article machine with figures for it. */
export function answerPair(
  scenario: ScenarioInput,
  g: AnswerGroup,
  machines: readonly ArticleMachine[],
  baseline: string,
  candidate: string,
  ratios: readonly RatioAnswer[],
  /** Every sample of the group's runs, for the declared conditions. */
  samples: readonly UnitSample[] = [],
): PairAnswerRecord {
  const labels = Object.fromEntries(scenario.doc.variants.map((v) => [v.key, v.label]));
  const measured = g.comparisons.find((c) => c.baseline === baseline && c.candidate === candidate) ?? null;
  const adviceText = advice(measured, baseline, candidate, labels).text;
  const withPair = atPoint(g, machines).filter((m) => articleComparison(m, baseline, candidate) !== null);
  const machine = nearestArticleMachine(g, withPair);
  const art = machine ? articleComparison(machine, baseline, candidate) : null;
  const base = { baseline, candidate, measured, advice: adviceText };
  let article: ArticleFigure | null = null;
  let there: Outcome = 'unknown';
  if (machine && art) {
    there = art.outcome;
    article = {
      kind: 'comparison',
      machine: machine.id,
      label: machine.label,
      stated: machine.stated,
      point: machine.group.point ?? null,
      values: Object.fromEntries(
        [baseline, candidate].flatMap((v) => {
          const m = meanOf(machine.group, v);
          return m === undefined ? [] : [[v, m]];
        }),
      ),
      outcome: art.outcome,
      sentence:
        art.comparison.verdict.kind === 'insufficient-data'
          ? `${[baseline, candidate].map((v) => `${v} ${num(meanOf(machine.group, v) ?? NaN)} ${machine.group.unit}`).join(', ')} (single figures, no spread)`
          : art.comparison.verdict.sentence,
    };
  } else {
    // A declared ratio the article published for this candidate counts as its figure (a size table).
    for (const r of ratios) {
      if (r.baseline !== baseline) continue;
      const row = r.rows.find((x) => x.variant === candidate);
      if (!row || row.article === null) continue;
      article = {
        kind: 'ratio',
        machine: 'article',
        label: `the article’s ${r.label}`,
        stated: false,
        point: null,
        values: { [baseline]: 1, [candidate]: row.article },
        outcome: 'unknown',
        sentence: `${r.label}: ${candidate} ${row.article.toFixed(2)} in the article, ${row.ratio === null ? 'not measured' : row.ratio.toFixed(2)} here`,
      };
      const { reasons, notes } = comparability(scenario, g, null, samples);
      if (row.agrees === null)
        return {
          ...base,
          agreement: 'insufficient-data',
          reasons: ['ratio: needs two units of each variant'],
          notes,
          article,
        };
      return {
        ...base,
        agreement: reasons.length > 0 ? 'not-comparable' : row.agrees ? 'reproduces' : 'contradicts',
        reasons,
        notes,
        article,
      };
    }
  }
  if (!measured || measured.verdict.kind === 'insufficient-data')
    return { ...base, agreement: 'insufficient-data', reasons: [], notes: [], article };
  if (measured.verdict.kind === 'descriptive')
    return { ...base, agreement: 'no-article', reasons: [], notes: ['descriptive metric: no verdict'], article };
  if (!machine || !art || there === 'unknown') {
    // No figure to hold it against; a result measured far from the article's conditions still
    // says so, so that a toy-scale run never reads as the article's answer.
    const { reasons, notes } = comparability(scenario, g, null, samples);
    return { ...base, agreement: reasons.length > 0 ? 'not-comparable' : 'no-article', reasons, notes, article };
  }
  const { reasons, notes } = comparability(scenario, g, machine, samples);
  const theirPoint = machine.group.point;
  if (g.point && theirPoint && theirPoint.value !== g.point.value)
    reasons.unshift(
      `scale: ${g.point.param} ${num(g.point.value)} here vs ${num(theirPoint.value)} in the article (the nearest point it measured)`,
    );
  const here = outcomeOfMeasured(measured);
  let agreement: Agreement;
  if (reasons.length > 0) agreement = 'not-comparable';
  else if (there === 'none')
    agreement =
      here === 'none'
        ? 'reproduces'
        : insideArticleInterval(measured, art.comparison, art.comparison.baseline !== baseline)
          ? 'inconclusive'
          : 'contradicts';
  else if (here === 'none') agreement = 'inconclusive';
  else agreement = here === there ? 'reproduces' : 'contradicts';
  return { ...base, agreement, reasons, notes, article };
}

/**
 * A group's major as its release line (PostgreSQL 17, MariaDB 10.11: contracts' majorOfParts of
 * its servers' two numbers), not `engine.major`, the first number alone (10 for MariaDB 10.11).
 */
export const groupMajor = (g: Pick<AnswerGroup, 'engine' | 'databaseVersions'>): string =>
  majorOfParts(g.engine.engine, g.databaseVersions[0] ?? { major: g.engine.major, minor: 0 });

/** "MariaDB 10.11" */
export const serverName = (g: Pick<AnswerGroup, 'engine' | 'databaseVersions'>): string =>
  `${ENGINE_FACTS[g.engine.engine].name} ${groupMajor(g)}`;

/** "2 cores / 8 GB / virtual or unknown disk · MariaDB 10.11 · rows = 20,000 · threads = 8" */
export function groupName(scenario: ScenarioInput, g: AnswerGroup): string {
  const scale = Object.entries(scenario.doc.params)
    .filter(([name, def]) => def.published !== undefined && g.params[name] !== undefined && name !== g.point?.param)
    .map(([name]) => `${name} = ${num(g.params[name])}`);
  return [
    g.hardware.class.replace(/unknown disk$/, 'virtual or unknown disk'),
    serverName(g),
    ...(g.point ? [`${g.point.param} = ${num(g.point.value)}`] : []),
    ...scale,
  ].join(' · ');
}
