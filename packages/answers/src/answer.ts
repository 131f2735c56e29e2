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
import {
  ENGINE_FACTS,
  STORAGE_TIER_LABELS,
  isEmulatedClass,
  majorOfParts,
  ownValue,
  paramUnitBytes,
  parseSizeText,
  type ArticleMachineConditions,
  type StorageTier,
} from '@tunelab/contracts';
import { engineDefault, normalizeSetting, sameSetting } from './settings.ts';
import type { PairRunners, RatioAnswer } from '@tunelab/contracts';
import { conditionReasons, evaluateConditions } from './conditions.ts';
import type { UnitSample } from './figures.ts';
import { notDifferentWords } from './claims.ts';

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
  'A measured result is held against the article’s figure for the same pair at the same sweep point (else the nearest point, which makes it not comparable); where the article printed no figure but stated a direction (published.json `claims`, e.g. read off a chart), against that direction. ' +
  'It is comparable only when (1) every parameter for which the scenario declares the article’s value is within a factor of 2 of it (booleans and choices equal), and the article ran its full data set; ' +
  '(2) every essential condition the scenario declares (published.json `conditions`: a metric, parameter or setting a run records, and the threshold it must reach) is met by every run of the group; a condition whose value the group did not record counts as not met; ' +
  '(3) when the article described its machine: the storage kind here is known and the same, and cores and memory together are within two doublings; ' +
  '(4) every setting the scenario calls relevant equals the article’s, where the article stated it (a setting a run did not record is the server’s default). ' +
  'A comparable result reproduces the article when it points the same way (both faster, both slower, or both without a significant difference), contradicts it when it points the other way, ' +
  'and is inconclusive when the measurement finds no significant difference where the article found one. Any condition that differs makes it not comparable, whatever it points to, and says which. ' +
  'An emulated run (`--like-article`: the server inside a resource envelope) is held against the machine `article_conditions` lists whose storage tier it measured inside the envelope (else the nearest listed), and judged by the ratios declared for that machine instead of absolutes: ' +
  'its data size (the scale parameter × bytes per unit) over its memory limit within a factor of 2 of the article’s data : memory (where the scenario states one), each setting listed in `settings_to_data` and each parameter listed in `params_to_data` over its data size within a factor of 2 of the article’s, and the storage tier measured inside the envelope equal to the article’s; ' +
  'cores and absolute data size are not reproduced and are said as notes. Every answer drawn from an emulated run says “under emulated conditions”; an emulated run without `article_conditions` for the machine is judged as any other.';

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

const SECOND_IN: Record<string, number> = { s: 1, ms: 1000, us: 1e6, µs: 1e6 };

/**
 * An article's figure of 0 read with a clock of whole ticks (published.json `setup.resolution_s`)
 * is under one tick, not a measured 0: "under 1,000 ms". Null for any other figure.
 */
export function belowResolution(value: number, unit: string, published: PublishedFile | null): string | null {
  const tick = published?.setup?.resolution_s;
  const per = ownValue(SECOND_IN, unit);
  if (value !== 0 || tick === undefined || per === undefined) return null;
  return `under ${(tick * per).toLocaleString('en-US')} ${unit}`;
}

/** The article's figure for a pair on one of its machines (its means, outcome and verdict); null when it did not compare the pair. */
export function articleFigure(
  machine: ArticleMachine,
  baseline: string,
  candidate: string,
  art = articleComparison(machine, baseline, candidate),
  published: PublishedFile | null = null,
): ArticleFigure | null {
  if (!art) return null;
  return {
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
        ? `${[baseline, candidate]
            .map((v) => {
              const m = meanOf(machine.group, v) ?? NaN;
              return `${v} ${belowResolution(m, machine.group.unit, published) ?? `${num(m)} ${machine.group.unit}`}`;
            })
            .join(', ')} (single figures, no spread)`
        : art.comparison.verdict.sentence,
  };
}

/** The reasons a measured group is not comparable with an article machine, and notes that do not decide. */
export function comparability(
  scenario: ScenarioInput,
  g: AnswerGroup,
  article: ArticleMachine | null,
  /** Every sample of the group's runs (the metrics its conditions read; `conditionMetrics`). */
  samples: readonly UnitSample[] = [],
): Comparability {
  const doc = scenario.doc;
  const emulated = isEmulatedClass(g.hardware.class);
  const like = emulated ? likeArticle(scenario, g, article) : null;
  const found: Found = { reasons: [], notes: [], reproduced: [], notReproduced: [] };
  if (emulated && !like)
    found.notes.push(
      'emulated: the run’s server ran inside a resource envelope, and the scenario declares no article_conditions for this machine, so it is judged on absolutes',
    );
  // (1) scale: every parameter whose article value the scenario declares.
  const scale = [...(like ? emulatedScale(like, g, article, found) : []), ...publishedScale(doc, g, like)];
  if (scale.length > 0) found.reasons.push(`scale: ${scale.join('; ')}`);
  if (article?.dataScale !== null && article?.dataScale !== undefined && article.dataScale !== 1)
    found.reasons.push(`scale: the article ran ${pct(article.dataScale)} of its data on ${article.id}`);
  // (2) the essential conditions the scenario declares, read from what the runs recorded.
  const unmet = conditionReasons(evaluateConditions(doc, scenario.published, g, samples));
  if (unmet.length > 0) found.reasons.push(`conditions: ${unmet.join('; ')}`);
  // (3) hardware, when the article described it.
  hardwareReasons(g, article, like, found);
  // (4) the settings the scenario calls relevant, where the article stated them.
  const differ = settingsDiffer(scenario, g, article, like, found);
  if (differ.length > 0) found.reasons.push(`settings: ${differ.join('; ')}`);
  const { reasons, notes, reproduced, notReproduced } = found;
  if (notReproduced.length > 0) notes.push(`not reproduced: ${notReproduced.join('; ')}`);
  if (like)
    notes.unshift(
      `emulated like the article’s ${like.machine.label === undefined ? like.machine.hardware : `machine (${like.machine.label})`}: the run’s server ran inside a resource envelope`,
    );
  return { reasons, notes, emulated: emulated ? { reproduced, notReproduced } : null };
}

/** What comparability found so far: reasons that decide, notes that do not, and the emulated run's reproduced conditions. */
type Found = { reasons: string[]; notes: string[]; reproduced: string[]; notReproduced: string[] };
type Like = NonNullable<ReturnType<typeof likeArticle>>;

/** An emulated run's scale against the article's: data:memory and each parameter scaled with the data. */
function emulatedScale(like: Like, g: AnswerGroup, article: ArticleMachine | null, found: Found): string[] {
  const scale: string[] = [];
  const r = like.dataBytes / like.memoryBytes;
  const theirs = like.machine.data_to_memory;
  if (theirs === undefined) {
    // No memory limit: the memory that matters is a parameter scaled with the data (below).
  } else if (r / theirs < 0.5 || r / theirs > 2)
    scale.push(
      `data:memory ${ratioText(r)} here (${sizeName(like.dataBytes)} of data, ${like.param} ${num(like.paramValue)}, in a ${sizeName(like.memoryBytes)} memory limit) vs ${declaredRatio(theirs)} in the article`,
    );
  else found.reproduced.push(`data:memory ${ratioText(r)} vs ${declaredRatio(theirs)}`);
  for (const [name, { ratio, unit }] of Object.entries(like.machine.params_to_data)) {
    const v = g.params[name];
    if (typeof v !== 'number') {
      scale.push(`${name} not recorded here, the article’s ${name}:data is ${declaredRatio(ratio)}`);
      continue;
    }
    const here = (v * paramUnitBytes(unit)) / like.dataBytes;
    if (here / ratio < 0.5 || here / ratio > 2)
      scale.push(
        `${name}:data ${ratioText(here)} here (${name} ${num(v)}, ${sizeName(like.dataBytes)} of data) vs ${declaredRatio(ratio)} in the article`,
      );
    else found.reproduced.push(`${name}:data ${ratioText(here)} vs ${declaredRatio(ratio)}`);
  }
  if (article?.cores != null && article.cores !== g.hardware.physicalCores)
    found.notReproduced.push(`${g.hardware.physicalCores} cores here vs ${article.cores}`);
  else if (like.machine.label !== undefined)
    found.notReproduced.push('cores and memory (the article does not state them)');
  const theirSize = parseSizeText(like.machine.data_size);
  if (theirSize !== null)
    found.notReproduced.push(`${sizeName(like.dataBytes)} of data here vs ${sizeName(theirSize)}`);
  return scale;
}

/** Parameters whose published value the scenario declares, more than 2× away from the article's. */
function publishedScale(doc: ScenarioInput['doc'], g: AnswerGroup, like: Like | null): string[] {
  const scale: string[] = [];
  for (const [name, def] of Object.entries(doc.params)) {
    if (name === doc.sweep?.param || def.published === undefined) continue;
    if (like && (name === like.param || Object.hasOwn(like.machine.params_to_data, name))) continue;
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
  return scale;
}

/** The hardware against the article's: the tier measured inside an envelope, else storage and size. */
function hardwareReasons(g: AnswerGroup, article: ArticleMachine | null, like: Like | null, found: Found): void {
  if (like) {
    const theirs = like.machine.storage_tier;
    if (like.tier === null)
      found.reasons.push(
        `hardware: no storage tier was measured inside the envelope, the article’s disk is ${STORAGE_TIER_LABELS[theirs]}`,
      );
    else if (like.tier !== theirs)
      found.reasons.push(
        `hardware: ${STORAGE_TIER_LABELS[like.tier]} here (measured inside the envelope) vs ${STORAGE_TIER_LABELS[theirs]} in the article`,
      );
    else found.reproduced.push(`${STORAGE_TIER_LABELS[like.tier]} vs ${STORAGE_TIER_LABELS[theirs]}`);
    return;
  }
  if (article && !article.stated) {
    found.notes.push('hardware: the article did not describe its machine');
    return;
  }
  if (!article) return;
  const parts: string[] = [];
  // A disk the probe measured is named by its tier ("NVMe-like"), not by the kernel's flag.
  const tier = g.hardware.storageKind === 'unknown' ? tierOfClass(g.hardware.class) : null;
  if (tier) {
    if (article.storage !== null && TIER_KIND[tier] !== article.storage)
      parts.push(`${STORAGE_TIER_LABELS[tier]} here (measured) vs ${storageName(article.storage)} in the article`);
  } else if (g.hardware.storageKind === 'unknown')
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
  if (parts.length > 0) found.reasons.push(`hardware: ${parts.join('; ')}`);
}

/** The relevant settings that differ from what the article stated (an emulated run's sizes as ratios to its data). */
function settingsDiffer(
  scenario: ScenarioInput,
  g: AnswerGroup,
  article: ArticleMachine | null,
  like: Like | null,
  found: Found,
): string[] {
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
  for (const name of scenario.doc.report.relevant_settings) {
    const scaled = like ? ownRatio(like.machine.settings_to_data, name) : undefined;
    if (like && scaled !== undefined) {
      const values = settingValues(g, name);
      const bytes = values.map((v) => sizeBytes(v.replace(/ \(default\)$/, '')));
      const off = bytes.some((b) => b === null || b / like.dataBytes / scaled < 0.5 || b / like.dataBytes / scaled > 2);
      const here = bytes.map((b) => (b === null ? 'not a size' : ratioText(b / like.dataBytes))).join(' / ');
      if (off)
        differ.push(
          `${name}:data ${here} here (${name} ${values.join(' / ')}) vs ${declaredRatio(scaled)} in the article`,
        );
      else found.reproduced.push(`${name}:data ${here} vs ${declaredRatio(scaled)}`);
      continue;
    }
    const theirs = stated[name];
    if (theirs === undefined) continue;
    const values = settingValues(g, name);
    if (values.some((v) => !sameSetting(v.replace(/ \(default\)$/, ''), theirs)))
      differ.push(`${name} ${values.join(' / ')} here vs ${theirs} in the article`);
  }
  return differ;
}

/** The storage tier a class names ("2 cores / 24 GB / NVMe-like", also emulated), null when it names none. */
function tierOfClass(hardwareClass: string): StorageTier | null {
  const label = hardwareClass
    .replace(/, emulated$/, '')
    .split(' / ')
    .slice(2)
    .join(' / ');
  return (Object.keys(STORAGE_TIER_LABELS) as StorageTier[]).find((t) => STORAGE_TIER_LABELS[t] === label) ?? null;
}

/** The article's storage kind (published.json `disk`) a measured tier stands for; a network SSD is none of them. */
const TIER_KIND: Record<StorageTier, string> = {
  'nvme-like': 'nvme',
  'ssd-like': 'ssd',
  'network-ssd': 'network-ssd',
  'hdd-like': 'hdd',
};

/** What comparability found; `emulated` for a group whose class is emulated: the ratios it reproduced and what it did not. */
export type Comparability = {
  reasons: string[];
  notes: string[];
  emulated: { reproduced: string[]; notReproduced: string[] } | null;
};

const ownRatio = (r: Record<string, number>, k: string) => (Object.hasOwn(r, k) ? r[k] : undefined);
/** A measured ratio to two significant digits ("0.37"); the article's as declared, to three ("0.375"). */
const ratioText = (r: number) => Number(r.toPrecision(2)).toString();
const declaredRatio = (r: number) => Number(r.toPrecision(3)).toString();
const GIB = 1024 ** 3;
const sizeName = (bytes: number) =>
  bytes >= 0.95 * GIB ? `${Number((bytes / GIB).toFixed(1))} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;
/** "683MB" → bytes; null for a value that is not a size. */
function sizeBytes(value: string): number | null {
  const m = /^(\d+(?:\.\d+)?)B$/.exec(normalizeSetting(value));
  return m ? Number(m[1]) : null;
}

/**
 * An emulated group's article conditions for the machine compared (published.json hardware id; the
 * first declared machine when there is no figure to compare with), its data size, memory limit and
 * the tier measured inside the envelope, read from the class ("2 cores / 2.7 GB of 24 GB / SSD-like,
 * emulated"); null when the scenario declares none for it or the group did not record the scale parameter.
 */
function likeArticle(scenario: ScenarioInput, g: AnswerGroup, article: ArticleMachine | null) {
  const conditions = scenario.doc.article_conditions;
  if (!conditions) return null;
  const machine: ArticleMachineConditions | undefined = article
    ? conditions.machines.find((m) => m.hardware === article.id)
    : conditions.machines[0];
  if (!machine) return null;
  const value = g.point?.param === conditions.param ? g.point.value : g.params[conditions.param];
  if (typeof value !== 'number') return null;
  const parts = g.hardware.class.replace(/, emulated$/, '').split(' / ');
  const limit = /^(\d+(?:\.\d+)?) (GB|MB) of /.exec(parts[1] ?? '');
  const memoryBytes = limit ? Number(limit[1]) * (limit[2] === 'GB' ? GIB : 1024 ** 2) : g.hardware.memoryGb * GIB;
  const tier = tierOfClass(g.hardware.class);
  if (memoryBytes <= 0) return null;
  return {
    machine,
    param: conditions.param,
    paramValue: value,
    dataBytes: value * conditions.bytes_per_unit,
    memoryBytes,
    tier: tier ?? null,
  };
}

/**
 * The agreement in words, with "under emulated conditions" and the ratios it reproduced for an
 * emulated group: "reproduces the article under emulated conditions (data:memory 0.37 vs 0.375, …);
 * not reproduced: 2 cores here vs 8; 1 GB of data here vs 12 GB".
 */
export function agreementSentence(agreement: Agreement, c: Comparability): string {
  if (!c.emulated) return AGREEMENT_TEXT[agreement];
  const reproduced = c.emulated.reproduced.length > 0 ? ` (${c.emulated.reproduced.join(', ')})` : '';
  const not = c.emulated.notReproduced.length > 0 ? `; not reproduced: ${c.emulated.notReproduced.join('; ')}` : '';
  return `${AGREEMENT_TEXT[agreement]} under emulated conditions${reproduced}${not}`;
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
  // "No measurable difference" only when the interval rules out a change beyond ±10% (conclusive);
  // a pair measured in blocks says what its paired decision was.
  if (c.verdict.kind === 'no-significant-difference')
    return {
      text: c.paired
        ? `${name(candidate)} vs ${name(baseline)}: ${notDifferentWords(c)}`
        : c.verdict.conclusive
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

/**
 * Whether a measured "no difference" is a finding (equivalent within the margin: a conclusive
 * verdict) rather than the absence of one (undecided, unstable, not enough repetitions): only a
 * finding reproduces an article's "no difference"; the absence of one is inconclusive.
 */
const decidedNone = (c: PairComparison): boolean => outcomeOfMeasured(c) === 'none' && c.verdict.conclusive;

export type PairAnswerRecord = {
  baseline: string;
  candidate: string;
  measured: PairComparison | null;
  agreement: Agreement;
  reasons: string[];
  notes: string[];
  article: ArticleFigure | null;
  advice: string;
  /** The agreement in words; "… under emulated conditions (…)" for an emulated group (`agreementSentence`). */
  sentence: string;
  /** On a group with runs of two runners or more: how its runners answer the pair on their own runs (runners.ts). */
  runners?: PairRunners;
};

/** One declared pair of one measured group, against the nearest article machine with figures for it. */
export function answerPair(...question: Parameters<typeof pairAnswer>): PairAnswerRecord {
  const [, g] = question;
  const plain: Comparability = {
    reasons: [],
    notes: [],
    emulated: isEmulatedClass(g.hardware.class) ? { reproduced: [], notReproduced: [] } : null,
  };
  const r = pairAnswer(...question);
  return { ...r.record, sentence: agreementSentence(r.record.agreement, r.comparability ?? plain) };
}

/** The article's stated direction for the pair on this metric (published.json `claims`), in the pair's orientation. */
function claimFor(
  published: PublishedFile | null,
  metric: string,
  baseline: string,
  candidate: string,
): { outcome: Outcome; basis: string } | null {
  for (const c of published?.claims ?? []) {
    if (c.metric !== metric) continue;
    if (c.baseline === baseline && c.candidate === candidate) return { outcome: c.outcome, basis: c.basis };
    if (c.baseline === candidate && c.candidate === baseline) return { outcome: flip(c.outcome), basis: c.basis };
  }
  return null;
}

/**
 * The article machines an emulated group is held against: those whose conditions it emulates
 * (article_conditions), and of them those whose storage tier its probe measured inside the envelope —
 * an HDD-like run (`--like-article-machine server-2`) is judged against server-2's HDD, not server-1's
 * SSD, though both have 8 cores and 32 GB. Null for an unconstrained group or when none is listed.
 */
function emulatedMachines(
  scenario: ScenarioInput,
  g: AnswerGroup,
  machines: readonly ArticleMachine[],
): ArticleMachine[] | null {
  if (!isEmulatedClass(g.hardware.class)) return null;
  const conditions = scenario.doc.article_conditions?.machines ?? [];
  const listed = machines.filter((m) => conditions.some((c) => c.hardware === m.id));
  if (listed.length === 0) return null;
  const tier = tierOfClass(g.hardware.class);
  const sameTier = listed.filter((m) => conditions.some((c) => c.hardware === m.id && c.storage_tier === tier));
  return sameTier.length > 0 ? sameTier : listed;
}

function pairAnswer(
  scenario: ScenarioInput,
  g: AnswerGroup,
  machines: readonly ArticleMachine[],
  baseline: string,
  candidate: string,
  ratios: readonly RatioAnswer[],
  /** Every sample of the group's runs, for the declared conditions. */
  samples: readonly UnitSample[] = [],
): { record: Omit<PairAnswerRecord, 'sentence'>; comparability?: Comparability } {
  const labels = Object.fromEntries(scenario.doc.variants.map((v) => [v.key, v.label]));
  const measured = g.comparisons.find((c) => c.baseline === baseline && c.candidate === candidate) ?? null;
  const adviceText = advice(measured, baseline, candidate, labels).text;
  const withPair = atPoint(g, machines).filter((m) => articleComparison(m, baseline, candidate) !== null);
  const machine = nearestArticleMachine(g, emulatedMachines(scenario, g, withPair) ?? withPair);
  const art = machine ? articleComparison(machine, baseline, candidate) : null;
  const base = { baseline, candidate, measured, advice: adviceText };
  let article: ArticleFigure | null = null;
  let there: Outcome = 'unknown';
  if (machine && art) {
    there = art.outcome;
    article = articleFigure(machine, baseline, candidate, art, scenario.published);
  } else {
    const fromRatio = ratioPairAnswer(scenario, g, base, ratios, samples);
    if (fromRatio) return fromRatio;
  }
  const claim = article === null ? claimFor(scenario.published, g.metric, baseline, candidate) : null;
  if (claim) {
    article = {
      kind: 'claim',
      machine: 'article',
      label: 'the article (a direction it stated, without figures)',
      stated: false,
      point: null,
      values: {},
      outcome: claim.outcome,
      sentence: claim.basis,
    };
    there = claim.outcome;
  }
  if (!measured || measured.verdict.kind === 'insufficient-data')
    return { record: { ...base, agreement: 'insufficient-data', reasons: [], notes: [], article } };
  if (claim && measured.verdict.kind !== 'descriptive') {
    // Held against a direction: the same rule, without the article's interval to fall inside.
    const c = comparability(scenario, g, null, samples);
    const here = outcomeOfMeasured(measured);
    const agreement: Agreement =
      c.reasons.length > 0
        ? 'not-comparable'
        : there === 'none'
          ? here === 'none'
            ? decidedNone(measured)
              ? 'reproduces'
              : 'inconclusive'
            : 'contradicts'
          : here === 'none'
            ? 'inconclusive'
            : here === there
              ? 'reproduces'
              : 'contradicts';
    return { record: { ...base, agreement, reasons: c.reasons, notes: c.notes, article }, comparability: c };
  }
  if (measured.verdict.kind === 'descriptive')
    return {
      record: { ...base, agreement: 'no-article', reasons: [], notes: ['descriptive metric: no verdict'], article },
    };
  if (!machine || !art || there === 'unknown') {
    // No figure to hold it against; a result measured far from the article's conditions still
    // says so, so that a toy-scale run never reads as the article's answer.
    const c = comparability(scenario, g, null, samples);
    const { reasons, notes } = c;
    return {
      record: { ...base, agreement: reasons.length > 0 ? 'not-comparable' : 'no-article', reasons, notes, article },
      comparability: c,
    };
  }
  const c = comparability(scenario, g, machine, samples);
  const { reasons, notes } = c;
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
        ? decidedNone(measured)
          ? 'reproduces'
          : 'inconclusive'
        : insideArticleInterval(measured, art.comparison, art.comparison.baseline !== baseline)
          ? 'inconclusive'
          : 'contradicts';
  else if (here === 'none') agreement = 'inconclusive';
  else agreement = here === there ? 'reproduces' : 'contradicts';
  return { record: { ...base, agreement, reasons, notes, article }, comparability: c };
}

type PairBase = Pick<PairAnswerRecord, 'baseline' | 'candidate' | 'measured' | 'advice'>;

/** A declared ratio the article published for this candidate, as its figure (a size table); null when there is none. */
function ratioPairAnswer(
  scenario: ScenarioInput,
  g: AnswerGroup,
  base: PairBase,
  ratios: readonly RatioAnswer[],
  samples: readonly UnitSample[],
): ReturnType<typeof pairAnswer> | null {
  const { baseline, candidate } = base;
  for (const r of ratios) {
    if (r.baseline !== baseline) continue;
    const row = r.rows.find((x) => x.variant === candidate);
    if (!row || row.article === null) continue;
    const article: ArticleFigure = {
      kind: 'ratio',
      machine: 'article',
      label: `the article’s ${r.label}`,
      stated: false,
      point: null,
      values: { [baseline]: 1, [candidate]: row.article },
      outcome: 'unknown',
      sentence: `${r.label}: ${candidate} ${row.article.toFixed(2)} in the article, ${row.ratio === null ? 'not measured' : row.ratio.toFixed(2)} here`,
    };
    const c = comparability(scenario, g, null, samples);
    const { reasons, notes } = c;
    if (row.agrees === null)
      return {
        record: {
          ...base,
          agreement: 'insufficient-data',
          reasons: ['ratio: needs two units of each variant'],
          notes,
          article,
        },
        comparability: c,
      };
    return {
      record: {
        ...base,
        agreement: reasons.length > 0 ? 'not-comparable' : row.agrees ? 'reproduces' : 'contradicts',
        reasons,
        notes,
        article,
      },
      comparability: c,
    };
  }
  return null;
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
