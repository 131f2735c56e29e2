/**
 * The answer a scenario page opens with: per hardware class, the verdict of each declared pair,
 * and whether it agrees with the article — "reproduces", "contradicts", "inconclusive" or
 * "not comparable" with the reasons read from the data (scale vs the article's parameters,
 * storage and size of the machines, the scenario's relevant settings). Nothing here is written
 * by hand per scenario.
 */
import type { ComparisonGroup, PairComparison, RunDetail } from '@tunelab/contracts';
import type { ScenarioView } from './load.ts';
import { engineDefault, sameSetting } from './settings.ts';

export type Agreement =
  'reproduces' | 'contradicts' | 'inconclusive' | 'not-comparable' | 'no-article' | 'insufficient-data';

export const AGREEMENT_TEXT: Record<Agreement, string> = {
  reproduces: 'reproduces the article',
  contradicts: 'contradicts the article',
  inconclusive: 'inconclusive',
  'not-comparable': 'not comparable',
  'no-article': 'no article figure',
  'insufficient-data': 'not enough data',
};

/** A machine the article described (or did not: then every field is null, "not stated"). */
export type ArticleMachine = {
  id: string;
  label: string;
  stated: boolean;
  cores: number | null;
  memoryGb: number | null;
  storage: string | null;
  dataScale: number | null;
  group: ComparisonGroup;
};

export type ParamCondition = {
  name: string;
  values: string[];
  article: string | null;
  ratio: number | null;
  differs: boolean;
};
export type SettingCondition = { name: string; values: string[]; article: string | null; differs: boolean };

/** Scale and conditions of one measured group, next to the article's. */
export type Conditions = {
  params: ParamCondition[];
  settings: SettingCondition[];
  databases: string[];
  articleDatabase: string | null;
  cpuModels: string[];
  storage: string;
};

export type PairAnswer = {
  baseline: string;
  candidate: string;
  measured: PairComparison | null;
  /** The article machine the measured group is compared with (nearest by storage, then size). */
  article: { machine: ArticleMachine; comparison: PairComparison; flipped: boolean } | null;
  agreement: Agreement;
  /** How the measured result points relative to the article's, whatever the comparability. */
  direction: 'same' | 'opposite' | 'measured-no-difference' | 'article-no-difference' | null;
  reasons: string[];
};

export type ClassAnswer = {
  group: ComparisonGroup;
  /** "2 cores / 24 GB / SSD · AMD EPYC 7B13" */
  name: string;
  conditions: Conditions;
  pairs: PairAnswer[];
};

const ENGINE_NAME: Record<string, string> = { postgresql: 'PostgreSQL', mysql: 'MySQL', mariadb: 'MariaDB' };
const isPlaceholderMachine = (g: ComparisonGroup) => (g.hardware.cpuModel ?? '').includes('hardware not described');
export const storageName = (kind: string) => (kind === 'unknown' ? 'virtual or unknown disk' : kind.toUpperCase());

function firstRun(g: ComparisonGroup, runs: Map<string, RunDetail>): RunDetail | undefined {
  for (const r of g.runs) {
    const run = runs.get(r.id);
    if (run) return run;
  }
  return undefined;
}

export function articleMachines(sc: ScenarioView, runs: Map<string, RunDetail>): ArticleMachine[] {
  return sc.publishedGroups.map((g) => {
    const run = firstRun(g, runs);
    const p = run?.params ?? {};
    const id = typeof p['published.machine'] === 'string' ? p['published.machine'] : g.hardware.class;
    const stated = !isPlaceholderMachine(g);
    const label =
      typeof p['published.label'] === 'string'
        ? p['published.label']
        : stated
          ? g.hardware.class
          : 'the article’s machine (not stated by the article)';
    return {
      id,
      label,
      stated,
      cores: stated ? g.hardware.physicalCores : null,
      memoryGb: stated ? g.hardware.memoryGb : null,
      storage: stated && g.hardware.storageKind !== 'unknown' ? g.hardware.storageKind : null,
      dataScale: typeof p['published.data_scale'] === 'number' ? p['published.data_scale'] : null,
      group: g,
    };
  });
}

/** |log2 cores ratio| + |log2 memory ratio|, the API's similarity distance; null when not stated. */
export function hardwareDistance(
  a: { cores: number; memoryGb: number },
  b: { cores: number | null; memoryGb: number | null },
): number | null {
  if (b.cores === null || b.memoryGb === null || b.cores <= 0 || b.memoryGb <= 0 || a.memoryGb <= 0) return null;
  return Math.abs(Math.log2(a.cores / b.cores)) + Math.abs(Math.log2(a.memoryGb / b.memoryGb));
}

const fmtNumber = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : String(v));

export function conditionsOf(
  sc: ScenarioView,
  g: ComparisonGroup,
  runs: Map<string, RunDetail>,
  article: ArticleMachine | null,
): Conditions {
  const doc = sc.folder?.doc;
  const mine = g.runs.map((r) => runs.get(r.id)).filter((r): r is RunDetail => r !== undefined);
  const params: ParamCondition[] = Object.entries(doc?.params ?? {})
    .filter(([name]) => name !== g.point?.param)
    .map(([name, def]) => {
      const values = [...new Set(mine.map((r) => r.params[name]).filter((v) => v !== undefined && v !== null))];
      const pub = def.published;
      let ratio: number | null = null;
      if (typeof pub === 'number' && pub !== 0 && values.length > 0 && values.every((v) => typeof v === 'number')) {
        const nums = values.filter((v): v is number => typeof v === 'number');
        ratio = nums.reduce((sum, v) => sum + v, 0) / nums.length / pub;
      }
      const differs =
        pub !== undefined &&
        values.some((v) =>
          typeof pub === 'number' && typeof v === 'number' ? v / pub < 0.5 || v / pub > 2 : v !== pub,
        );
      return {
        name,
        values: values.map(fmtNumber),
        article: pub === undefined ? null : fmtNumber(pub),
        ratio,
        differs,
      };
    });
  const engine = g.databaseVersions[0]?.engine ?? 'postgresql';
  const articleSettings = article
    ? (firstRun(article.group, runs)?.databaseEnvironment.settings ?? {})
    : (sc.folder?.published?.settings ?? {});
  const settings: SettingCondition[] = (doc?.report.relevant_settings ?? []).map((name) => {
    const fallback = engineDefault(engine, name);
    const values = [
      ...new Set(
        mine.map(
          (r) => r.databaseEnvironment.settings[name] ?? (fallback ? `${fallback} (default)` : 'server default'),
        ),
      ),
    ].sort();
    const stated = articleSettings[name] ?? null;
    const differs = stated !== null && values.some((v) => !sameSetting(v.replace(/ \(default\)$/, ''), stated));
    return { name, values, article: stated, differs };
  });
  const articleDb = article?.group.databaseVersions.find((d) => d.major > 0);
  return {
    params,
    settings,
    databases: g.databaseVersions.map((d) => `${ENGINE_NAME[d.engine] ?? d.engine} ${d.major}.${d.minor}`),
    articleDatabase: articleDb ? articleDb.version : null,
    cpuModels: [...new Set(mine.map((r) => r.hardwareSpec.cpuModel))].sort(),
    storage: storageName(g.hardware.storageKind),
  };
}

/** The article machine a measured group is read against: same storage first, then nearest size. */
export function nearestArticleMachine(g: ComparisonGroup, machines: ArticleMachine[]): ArticleMachine | null {
  const here = { cores: g.hardware.physicalCores, memoryGb: g.hardware.memoryGb };
  const ranked = [...machines].sort((a, b) => {
    const sa = a.storage === g.hardware.storageKind ? 0 : 1;
    const sb = b.storage === g.hardware.storageKind ? 0 : 1;
    if (sa !== sb) return sa - sb;
    return (hardwareDistance(here, a) ?? 99) - (hardwareDistance(here, b) ?? 99);
  });
  return ranked[0] ?? null;
}

function articleComparison(
  m: ArticleMachine,
  baseline: string,
  candidate: string,
): { comparison: PairComparison; flipped: boolean } | null {
  const direct = m.group.comparisons.find((c) => c.baseline === baseline && c.candidate === candidate);
  if (direct) return { comparison: direct, flipped: false };
  const reverse = m.group.comparisons.find((c) => c.baseline === candidate && c.candidate === baseline);
  return reverse ? { comparison: reverse, flipped: true } : null;
}

/** faster / slower / none for the candidate, in the baseline→candidate orientation. */
function outcome(c: PairComparison, flipped: boolean): 'faster' | 'slower' | 'none' | 'unknown' {
  if (c.verdict.kind === 'insufficient-data') {
    // Single figures (an article's table without repetitions): their direction is the claim, untested.
    if (c.improvement === null || c.improvement === 0) return 'unknown';
    const better = c.improvement > 0;
    return better !== flipped ? 'faster' : 'slower';
  }
  if (c.verdict.kind === 'no-significant-difference') return 'none';
  const k = c.verdict.kind;
  return flipped ? (k === 'faster' ? 'slower' : 'faster') : k;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

function reasonsFor(g: ComparisonGroup, cond: Conditions, article: ArticleMachine): string[] {
  const reasons: string[] = [];
  const scale = cond.params.filter((p) => p.differs);
  if (scale.length > 0) {
    reasons.push(
      `scale: ${scale.map((p) => `${p.name} ${p.values.join(' / ')} here vs ${p.article} in the article${p.ratio !== null ? ` (${p.ratio < 1 ? `1/${Math.round(1 / p.ratio)}` : `${p.ratio.toFixed(1)}×`})` : ''}`).join('; ')}`,
    );
  }
  if (article.dataScale !== null && article.dataScale !== 1 && scale.length === 0) {
    reasons.push(`scale: the article ran ${pct(article.dataScale)} of its data on ${article.id}`);
  }
  if (!article.stated) {
    reasons.push('hardware: not stated by the article');
  } else {
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
  const settings = cond.settings.filter((s) => s.differs);
  if (settings.length > 0)
    reasons.push(
      `settings: ${settings.map((s) => `${s.name} ${s.values.join(' / ')} here vs ${s.article} in the article`).join('; ')}`,
    );
  return reasons;
}

function insideArticleInterval(
  measured: PairComparison,
  art: { comparison: PairComparison; flipped: boolean },
): boolean {
  const ci = art.comparison.ci95;
  if (!ci || measured.improvement === null) return false;
  // A flipped pair's interval is not the negation exactly (the baseline changes), close enough to tell inside from outside.
  const low = art.flipped ? (ci.high === null ? null : -ci.high) : ci.low;
  const high = art.flipped ? (ci.low === null ? null : -ci.low) : ci.high;
  return (low === null || measured.improvement >= low) && (high === null || measured.improvement <= high);
}

/** Article groups at the measured group's sweep point, else at the nearest point (log scale) of the same parameter. */
function atPoint(g: ComparisonGroup, machines: ArticleMachine[]): ArticleMachine[] {
  if (!g.point) return machines.filter((m) => !m.group.point);
  const p = g.point;
  const same = machines.filter((m) => m.group.point?.param === p.param);
  const exact = same.filter((m) => m.group.point?.value === p.value);
  if (exact.length > 0) return exact;
  const dist = (m: ArticleMachine) => Math.abs(Math.log((m.group.point?.value ?? 1) / (p.value || 1)));
  const best = Math.min(...same.map(dist));
  return same.filter((m) => dist(m) === best);
}

export function pairAnswer(
  g: ComparisonGroup,
  cond: Conditions,
  machines: ArticleMachine[],
  baseline: string,
  candidate: string,
): PairAnswer {
  const measured = g.comparisons.find((c) => c.baseline === baseline && c.candidate === candidate) ?? null;
  // Only article machines that compared this very pair (at this sweep point, or the nearest one) count.
  const withPair = atPoint(g, machines).filter((m) => articleComparison(m, baseline, candidate) !== null);
  const machine = nearestArticleMachine(g, withPair);
  const art = machine ? articleComparison(machine, baseline, candidate) : null;
  if (!measured || measured.verdict.kind === 'insufficient-data') {
    return {
      baseline,
      candidate,
      measured,
      article: machine && art ? { machine, ...art } : null,
      agreement: 'insufficient-data',
      direction: null,
      reasons: [],
    };
  }
  if (!machine || !art)
    return { baseline, candidate, measured, article: null, agreement: 'no-article', direction: null, reasons: [] };
  const here = outcome(measured, false);
  const there = outcome(art.comparison, art.flipped);
  let direction: PairAnswer['direction'];
  if (there === 'none') direction = here === 'none' ? 'same' : 'article-no-difference';
  else if (here === 'none') direction = 'measured-no-difference';
  else direction = here === there ? 'same' : 'opposite';
  const reasons = reasonsFor(g, cond, machine);
  const theirPoint = machine.group.point;
  if (g.point && theirPoint && theirPoint.value !== g.point.value) {
    reasons.unshift(
      `scale: ${g.point.param} ${g.point.value.toLocaleString('en-US')} here vs ${theirPoint.value.toLocaleString('en-US')} in the article (the nearest point it measured)`,
    );
  }
  let agreement: Agreement;
  if (there === 'unknown') agreement = 'no-article';
  else if (reasons.length > 0) agreement = 'not-comparable';
  else if (direction === 'same') agreement = 'reproduces';
  else if (direction === 'opposite') agreement = 'contradicts';
  // The article found no difference, but with its own interval: a measured difference inside it
  // does not contradict it.
  else if (direction === 'article-no-difference')
    agreement = insideArticleInterval(measured, art) ? 'inconclusive' : 'contradicts';
  else agreement = 'inconclusive';
  return { baseline, candidate, measured, article: { machine, ...art }, agreement, direction, reasons };
}

export function machineName(g: ComparisonGroup, cond: Conditions): string {
  const cpus = cond.cpuModels.filter((c) => !c.startsWith('unspecified'));
  return `${g.hardware.class.replace(/unknown disk$/, 'virtual or unknown disk')}${g.point ? ` · ${g.point.param} = ${g.point.value.toLocaleString('en-US')}` : ''}${cpus.length > 0 ? ` · ${cpus.slice(0, 2).join(', ')}${cpus.length > 2 ? ` and ${cpus.length - 2} more` : ''}` : ''}`;
}

/** One answer per measured hardware class, the classes with the most runs first. */
export function scenarioAnswers(sc: ScenarioView, runs: Map<string, RunDetail>): ClassAnswer[] {
  const machines = articleMachines(sc, runs);
  const pairs = sc.folder?.doc.comparisons ?? [];
  return [...sc.classGroups]
    .sort(
      (a, b) =>
        b.runCount - a.runCount ||
        a.hardware.class.localeCompare(b.hardware.class) ||
        (a.point?.value ?? 0) - (b.point?.value ?? 0),
    )
    .map((g) => {
      const nearest = nearestArticleMachine(g, machines);
      const conditions = conditionsOf(sc, g, runs, nearest);
      const declared =
        pairs.length > 0 ? pairs : g.comparisons.map((c) => ({ baseline: c.baseline, candidate: c.candidate }));
      return {
        group: g,
        name: machineName(g, conditions),
        conditions,
        pairs: declared.map((p) => pairAnswer(g, conditions, machines, p.baseline, p.candidate)),
      };
    });
}

/** "prefer 1-2 (drop indexes …)" — what a reader on this class should do for one pair. */
export function advice(p: PairAnswer, labels: Record<string, string>): { text: string; significant: boolean } {
  const name = (k: string) => `${k}${labels[k] ? ` (${labels[k]})` : ''}`;
  const c = p.measured;
  if (!c || c.verdict.kind === 'insufficient-data')
    return { text: `${name(p.candidate)} vs ${name(p.baseline)}: not enough data yet`, significant: false };
  if (c.verdict.kind === 'no-significant-difference')
    return {
      text: `${name(p.candidate)} vs ${name(p.baseline)}: no measurable difference here, either will do`,
      significant: false,
    };
  const better = c.verdict.kind === 'faster' ? p.candidate : p.baseline;
  const worse = better === p.candidate ? p.baseline : p.candidate;
  return { text: `prefer ${name(better)} over ${name(worse)}`, significant: true };
}

/** One declared pair across a class's sweep points: runs of points with the same advice and agreement. */
export type SweepPairSummary = {
  baseline: string;
  candidate: string;
  segments: { text: string; significant: boolean; agreement: Agreement; points: string[] }[];
};

/** A swept scenario's answers for one hardware class, for the home page (one card, not one per point). */
export type SweepClassSummary = {
  /** The first point's answer: its group names the class, links and counts. */
  first: ClassAnswer;
  name: string;
  param: string;
  runCount: number;
  pairs: SweepPairSummary[];
  reasons: string[];
};

/**
 * Folds per-point answers into one summary per hardware class (and CPU models), keeping the
 * classes' order (most runs first). Consecutive points with the same advice and agreement are
 * said once: "prefer syncfs over fsync at tables = 3,000, 10,000, 30,000".
 */
export function sweepSummaries(answers: ClassAnswer[], labels: Record<string, string>): SweepClassSummary[] {
  const byClass = new Map<string, ClassAnswer[]>();
  for (const a of answers) {
    if (!a.group.point) continue;
    const key = `${a.group.hardware.class}|${a.conditions.cpuModels.join(',')}`;
    byClass.set(key, [...(byClass.get(key) ?? []), a]);
  }
  return [...byClass.values()].map((list) => {
    const sorted = [...list].sort((x, y) => (x.group.point?.value ?? 0) - (y.group.point?.value ?? 0));
    const first = sorted[0]!;
    const param = first.group.point!.param;
    const pairs: SweepPairSummary[] = first.pairs.map((p0, i) => {
      const segments: SweepPairSummary['segments'] = [];
      for (const a of sorted) {
        const p = a.pairs[i];
        if (!p) continue;
        const adv = advice(p, labels);
        const point = (a.group.point?.value ?? 0).toLocaleString('en-US');
        const last = segments[segments.length - 1];
        if (last && last.text === adv.text && last.agreement === p.agreement) last.points.push(point);
        else segments.push({ text: adv.text, significant: adv.significant, agreement: p.agreement, points: [point] });
      }
      return { baseline: p0.baseline, candidate: p0.candidate, segments };
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
