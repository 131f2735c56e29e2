/**
 * The tables of each page as plain data: pages render them, and the downloads serve the very
 * same rows as JSON and CSV.
 */
import {
  ENGINE_FACTS,
  ENGINES,
  factsOf,
  serverForCommand,
  type ComparisonGroup,
  type PairComparison,
  type RunDetail,
  type ScenarioDocument,
} from '@tunelab/contracts';
import { runCommandLine, type RunCommand } from '@tunelab/contracts/run-command';
import type { ScenarioView, SiteData } from './load.ts';
import { unitFor, type DisplayUnit } from './units.ts';
import {
  classLabel,
  decidingP,
  engineDefault,
  intervalLevelText,
  isNoiseSetting,
  meanImprovement,
  normalizeSetting,
} from '@tunelab/answers';
import { groupServer, serverKey, serverLabel } from './servers.ts';
import type { DifferenceRow } from './charts.ts';
import {
  formatDuration,
  formatInterval,
  formatPct,
  formatPctInterval,
  formatValue,
  metricName,
  shortHash,
  type DurationFormat,
} from './format.ts';

/** A verdict decided equivalent: no difference beyond the scenario's margin (its interval lies within it). */
export const isEquivalent = (v: { significant: boolean; conclusive: boolean }) => !v.significant && v.conclusive;

/** What a pair's interval decided, beside it: nothing for a difference, else equivalent or not significant. */
const decisionNote = (v: { significant: boolean; conclusive: boolean }) =>
  v.significant ? '' : isEquivalent(v) ? ', equivalent within the margin' : ', not significant';

export const MAX_LISTED_VALUES = 10;

export type TableRow = {
  variant: string;
  label: string;
  /** Every repetition's value in the metric's unit (seconds for durations). */
  values: number[];
  mean: number;
  avgText: string;
  n: number;
  ciText: string;
  /** "% faster" of this row as a candidate against its baseline, as printed. */
  pctText: string;
  pctNote: string | null;
  /** Colour and weight only for a significant difference. */
  significant: boolean;
};

export type PublishedTable = {
  machine: string;
  label: string;
  dataScale: number | null;
  repetitions: number;
  rows: TableRow[];
  verdicts: { baseline: string; candidate: string; sentence: string; kind: string }[];
  group: ComparisonGroup | null;
};

export type MeasuredTable = {
  id: string;
  heading: string;
  group: ComparisonGroup;
  /** How this table writes durations: the article's, or seconds when h:mm:ss would read 0:00:01.23. */
  format: DurationFormat;
  rows: TableRow[];
  verdicts: {
    baseline: string;
    candidate: string;
    sentence: string;
    kind: string;
    p: number | null;
    improvement: number | null;
  }[];
};

/** "article server-1 · 8 cores / 32 GB / SSD"; a machine the article did not describe has no class. */
/** ` · vus = 4` for a group of a sweep point (a swept scenario has one group per point), else ''. */
export const pointSuffix = (g: ComparisonGroup) =>
  g.point ? ` · ${g.point.param} = ${g.point.value.toLocaleString('en-US')}` : '';

export const groupLabel = (g: ComparisonGroup) => `${hardwareLabel(g)}${pointSuffix(g)}`;

const hardwareLabel = (g: ComparisonGroup) => {
  if (g.source !== 'published') return classLabel(g.hardware.class);
  const cpu = g.hardware.cpuModel ?? '';
  if (cpu.includes('hardware not described')) return 'article · hardware not stated';
  const id = /^unspecified \(published: (.*)\)$/.exec(cpu)?.[1];
  return `article${id ? ` ${id}` : ''} · ${g.hardware.class}`;
};

/** A short stable tag of a group's conditions (engine, major, parameter values): groups of one class at two scales get two anchors. */
function conditionsTag(g: Pick<ComparisonGroup, 'engine' | 'databaseVersions' | 'params'>): string {
  const server = groupServer(g);
  let h = 0x811c9dc5;
  for (const ch of `${server.engine}${server.major}${JSON.stringify(g.params)}`)
    h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

export const groupAnchor = (
  g: Pick<ComparisonGroup, 'source' | 'hardware' | 'scenario' | 'point' | 'engine' | 'databaseVersions' | 'params'>,
) =>
  `g-${g.source}-${g.hardware.class.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}-${shortHash(g.scenario.version).slice(0, 8)}-${conditionsTag(g)}${g.point ? `-${g.point.param}-${String(g.point.value).replace(/[^0-9]+/g, '-')}` : ''}`;

/**
 * The page of one measured group's full detail (its figures per variant, every repetition as a
 * chart, its runs): `/scenarios/<key>/groups/<group anchor>/`, stable while the group's conditions are.
 */
export const groupPageUrl = (g: Parameters<typeof groupAnchor>[0]) =>
  `/scenarios/${g.scenario.key}/groups/${groupAnchor(g)}/`;

/** Values of one group, per variant, gathered from the runs behind it. */
export function groupValues(g: ComparisonGroup, runDetail: Map<string, RunDetail>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const ref of g.runs) {
    const run = runDetail.get(ref.id);
    if (!run) continue;
    for (const s of run.samples) {
      if (s.metric !== g.metric || s.unit !== g.unit) continue;
      // A group of a sweep holds the samples of its own point only.
      if (s.point?.param !== g.point?.param || s.point?.value !== g.point?.value) continue;
      const list = out.get(s.variant) ?? [];
      list.push(s.value);
      out.set(s.variant, list);
    }
  }
  return out;
}

const pairFor = (g: ComparisonGroup | null, candidate: string): PairComparison | undefined =>
  g?.comparisons.find((c) => c.candidate === candidate);

function tableRows(
  g: ComparisonGroup,
  values: Map<string, number[]>,
  sc: ScenarioView,
  fmt: DurationFormat,
): TableRow[] {
  return g.variants.map((v) => {
    const pair = pairFor(g, v.variant);
    return {
      variant: v.variant,
      label: sc.variantLabels[v.variant] ?? '',
      values: values.get(v.variant) ?? [],
      mean: v.mean,
      avgText: formatValue(v.mean, g.unit, fmt),
      n: v.n,
      ciText: formatInterval(v.ci95, g.unit, fmt),
      pctText: pair && pair.improvement !== null ? formatPct(pair.improvement) : '',
      pctNote: pair
        ? `vs ${pair.baseline}, ${intervalLevelText(pair)} CI ${formatPctInterval(pair.ci95)}${decisionNote(pair.verdict)}`
        : null,
      significant: pair?.verdict.significant ?? false,
    };
  });
}

export function publishedTables(sc: ScenarioView): PublishedTable[] {
  const art = sc.folder?.published;
  if (!art) return [];
  return art.machines.map((m) => {
    const group =
      sc.publishedGroups.find(
        (g) => g.scenario.version === art.version && g.hardware.cpuModel === `unspecified (published: ${m.id})`,
      ) ?? (m.id === 'article' ? (sc.publishedGroups.find((g) => g.scenario.version === art.version) ?? null) : null);
    const rows: TableRow[] = m.variants.map((v) => {
      const mean = v.values.reduce((s, x) => s + x, 0) / v.values.length;
      const summary = group?.variants.find((x) => x.variant === v.variant);
      const baseline = art.comparisons.find(([, c]) => c === v.variant)?.[0];
      const stated = baseline ? art.articlePercent.get(`${baseline}→${v.variant}`)?.get(m.id) : undefined;
      const pair = pairFor(group, v.variant);
      let pctText = '';
      let pctNote: string | null = null;
      if (stated) {
        pctText = stated;
        pctNote = `as the article printed it (vs ${baseline})${pair?.improvement != null ? `; computed from the runs: ${formatPct(pair.improvement)}` : ''}`;
      } else if (baseline) {
        const b = m.variants.find((x) => x.variant === baseline);
        if (b) {
          const bm = b.values.reduce((s, x) => s + x, 0) / b.values.length;
          pctText = formatPct(meanImprovement(bm, mean, sc.answers?.metric.direction ?? sc.metric.direction));
          pctNote = `computed from the article's runs (vs ${baseline}); the article printed no percentage`;
        }
      }
      return {
        variant: v.variant,
        label: sc.variantLabels[v.variant] ?? art.variantText[v.variant] ?? '',
        values: v.values,
        mean,
        // The article's own AVG text when it printed one (0:03:46), else the mean in its format.
        avgText: v.avgText ?? formatDuration(mean, art.format),
        n: v.values.length,
        ciText: summary ? formatInterval(summary.ci95, 's', art.format) : '—',
        pctText,
        pctNote,
        significant: pair?.verdict.significant ?? false,
      };
    });
    return {
      machine: m.id,
      label: m.label,
      dataScale: m.dataScale,
      repetitions: Math.max(0, ...m.variants.map((v) => v.values.length)),
      rows,
      verdicts: (group?.comparisons ?? []).map((c) => ({
        baseline: c.baseline,
        candidate: c.candidate,
        sentence: c.verdict.sentence,
        kind: c.verdict.kind,
      })),
      group,
    };
  });
}

/**
 * The article's h:mm:ss suits runs of minutes; a machine whose every variant takes under a minute
 * (the default scale) is shown in seconds instead, where 0.859 reads better than 0:00:00.86.
 */
export function measuredFormat(sc: ScenarioView, g: Pick<ComparisonGroup, 'variants'>): DurationFormat {
  return sc.format === 'hms' && g.variants.every((v) => Math.abs(v.mean) < 60) ? 's' : sc.format;
}

/** " · PostgreSQL 17" when the groups span several servers (two majors of one class are two tables). */
function serverSuffix(groups: readonly ComparisonGroup[]): (g: ComparisonGroup) => string {
  const several = new Set(groups.map((g) => serverKey(groupServer(g)))).size > 1;
  return (g) => (several ? ` · ${serverLabel(groupServer(g))}` : '');
}

/**
 * " · rows = 200,000" for each parameter whose value differs between the groups (the scale a
 * group ran at; the sweep point is `pointSuffix`'s): two groups of one class and server at two
 * scales get two names.
 */
function paramsSuffix(groups: readonly ComparisonGroup[]): (g: ComparisonGroup) => string {
  const names = [...new Set(groups.flatMap((g) => Object.keys(g.params)))]
    .filter((k) => !k.startsWith('published.') && groups.some((g) => g.point?.param !== k))
    .filter((k) => new Set(groups.map((g) => JSON.stringify(g.params[k] ?? null))).size > 1)
    .sort();
  const text = (v: string | number | boolean | undefined) =>
    v === undefined ? 'default' : typeof v === 'number' ? v.toLocaleString('en-US') : String(v);
  return (g) => names.map((k) => ` · ${k} = ${text(g.params[k])}`).join('');
}

/**
 * A name per group that tells it from the others on one page: the hardware class, its sweep
 * point, and the server, the parameters (scale) and the scenario version where the groups differ
 * in them.
 */
function groupNames(sc: Pick<ScenarioView, 'versions' | 'folder'>, groups: readonly ComparisonGroup[]) {
  // The article's groups are named by its machine: they record no server major nor parameters of ours.
  const measured = groups.filter((g) => g.source !== 'published');
  const server = serverSuffix(measured);
  const params = paramsSuffix(measured);
  const versions = new Set(measured.map((g) => g.scenario.version)).size > 1;
  return (g: ComparisonGroup) =>
    g.source === 'published'
      ? groupLabel(g)
      : `${groupLabel(g)}${server(g)}${params(g)}${versions ? ` — ${versionLabel(sc, g.scenario.version)}` : ''}`;
}

// The scenario page, its chart files (chart-files.ts) and its downloads show the same tables.
const tablesOf = new WeakMap<ScenarioView, MeasuredTable[]>();

/** One measured table per hardware class of a scenario, made once per build. */
export function measuredTables(sc: ScenarioView, data: SiteData): MeasuredTable[] {
  let out = tablesOf.get(sc);
  if (!out) tablesOf.set(sc, (out = makeMeasuredTables(sc, data)));
  return out;
}

function makeMeasuredTables(sc: ScenarioView, data: SiteData): MeasuredTable[] {
  const groups = sc.classGroups;
  const multipleVersions = new Set(groups.map((g) => g.scenario.version)).size > 1;
  const server = serverSuffix(groups);
  const params = paramsSuffix(groups);
  return groups.map((g) => {
    const format = measuredFormat(sc, g);
    return {
      id: groupAnchor(g),
      heading: `${classLabel(g.hardware.class)}${pointSuffix(g)}${server(g)}${params(g)}${multipleVersions ? ` — ${versionLabel(sc, g.scenario.version)}` : ''}`,
      group: g,
      format,
      rows: tableRows(g, groupValues(g, data.runDetail), sc, format),
      verdicts: g.comparisons.map((c) => ({
        baseline: c.baseline,
        candidate: c.candidate,
        sentence: c.verdict.sentence,
        kind: c.verdict.kind,
        // The p the verdict was decided by (Bonferroni-adjusted when the scenario makes several decisions).
        p: decidingP(c)?.p ?? null,
        improvement: c.improvement,
      })),
    };
  });
}

/** Comparison pairs of a scenario, with each group's estimate: the rows of the forest plots. */
export function differenceRows(sc: ScenarioView) {
  const pairs = new Map<
    string,
    {
      baseline: string;
      candidate: string;
      rows: (DifferenceRow & { level: string })[];
    }
  >();
  const groups = [...sc.publishedGroups, ...sc.classGroups];
  const name = groupNames(sc, groups);
  for (const g of groups) {
    for (const c of g.comparisons) {
      if (c.improvement === null) continue;
      const k = `${c.baseline}→${c.candidate}`;
      const entry = pairs.get(k) ?? { baseline: c.baseline, candidate: c.candidate, rows: [] };
      entry.rows.push({
        label: name(g),
        estimate: c.improvement,
        low: c.ci95?.low ?? null,
        high: c.ci95?.high ?? null,
        significant: c.verdict.significant,
        equivalent: isEquivalent(c.verdict),
        published: g.source === 'published',
        level: intervalLevelText(c),
      });
      pairs.set(k, entry);
    }
  }
  return [...pairs.values()];
}

/**
 * Server settings per group, and which of them differ between the groups: only the scenario's
 * `report.relevant_settings` when it declares them (else every setting but locale, paths,
 * logging and ports); a measured run that did not record a setting ran with the server default
 * (shown with its value); an article that did not report one says "not stated by the article",
 * which is never counted as a difference. Values are compared normalised (8GB = 8192MB).
 */
export function settingsDiff(sc: ScenarioView, data: SiteData) {
  const groups = [...sc.publishedGroups, ...sc.classGroups];
  const columns = groups.map((g) => {
    const values = new Map<string, Set<string>>();
    for (const ref of g.runs) {
      const run = data.runDetail.get(ref.id);
      for (const [k, v] of Object.entries(run?.databaseEnvironment.settings ?? {})) {
        const set = values.get(k) ?? new Set<string>();
        set.add(v);
        values.set(k, set);
      }
    }
    const engine = g.databaseVersions[0]?.engine ?? 'postgresql';
    return { label: groupLabel(g), anchor: groupAnchor(g), values, published: g.source === 'published', engine };
  });
  const relevant = sc.folder?.doc.report.relevant_settings ?? [];
  const names =
    relevant.length > 0
      ? relevant
      : [...new Set(columns.flatMap((c) => [...c.values.keys()]))].filter((n) => !isNoiseSetting(n)).sort();
  const rows = names
    .map((name) => {
      const cells = columns.map((c) => {
        const set = c.values.get(name);
        if (set) return { text: [...set].sort().join(' | '), compare: [...set].map(normalizeSetting).sort().join('|') };
        if (c.published) return { text: 'not stated by the article', compare: null };
        const d = engineDefault(c.engine, name);
        return d
          ? { text: `${d} (default)`, compare: normalizeSetting(d) }
          : { text: 'server default', compare: 'default' };
      });
      const known = new Set(cells.map((c) => c.compare).filter((x): x is string => x !== null));
      return { setting: name, values: cells.map((c) => c.text), differs: known.size > 1 };
    })
    .filter((r) => r.differs || relevant.length > 0)
    .map(({ setting, values, differs }) => ({ setting, values, differs }));
  return { columns: columns.map((c) => ({ label: c.label, anchor: c.anchor })), rows, relevant: relevant.length > 0 };
}

/**
 * The settings table with one column per distinct set of values: groups that ran with the same
 * settings (the points of a sweep, machines at the article's settings) share a column headed by
 * all their names, so the table stays as wide as the number of differences, not of groups.
 */
export function settingsColumns(settings: ReturnType<typeof settingsDiff>) {
  const columns: { labels: string[]; anchors: string[]; index: number }[] = [];
  const signature = (i: number) => JSON.stringify(settings.rows.map((r) => r.values[i]));
  const seen = new Map<string, (typeof columns)[number]>();
  settings.columns.forEach((c, i) => {
    const key = signature(i);
    const col = seen.get(key);
    if (col) {
      col.labels.push(c.label);
      col.anchors.push(c.anchor);
    } else {
      const created = { labels: [c.label], anchors: [c.anchor], index: i };
      seen.set(key, created);
      columns.push(created);
    }
  });
  return {
    columns: columns.map(({ labels, anchors }) => ({ labels, anchors })),
    rows: settings.rows.map((r) => ({ ...r, values: columns.map((c) => r.values[c.index] ?? '') })),
  };
}

/** The article's import is stored under published.json's hash, beside the scenario's own versions. */
export const isArticleVersion = (sc: Pick<ScenarioView, 'folder'>, version: string) =>
  sc.folder?.publishedVersion === version;

/** The scenario's own versions, oldest first (the article's import is none of them). */
export const scenarioVersions = (sc: Pick<ScenarioView, 'versions' | 'folder'>) =>
  sc.versions
    .filter((v) => !isArticleVersion(sc, v.version))
    .sort((a, b) => a.firstSeenAt.localeCompare(b.firstSeenAt));

/** "version 2 of 3 (first seen 2026-11-21)": a scenario version for people; the hash stays in the versions table. */
export function versionLabel(sc: Pick<ScenarioView, 'versions' | 'folder'>, version: string): string {
  if (isArticleVersion(sc, version)) return 'the article’s figures, as imported from its published.json';
  const sorted = scenarioVersions(sc);
  const i = sorted.findIndex((v) => v.version === version);
  if (i < 0) return `scenario version ${shortHash(version)}`;
  return `scenario version ${i + 1} of ${sorted.length} (first seen ${sorted[i]!.firstSeenAt.slice(0, 10)})`;
}

/** "2026-11-20 03:01 UTC": a run named by when it arrived. */
export const runLabel = (r: { receivedAt: string }) => `${r.receivedAt.slice(0, 10)} ${r.receivedAt.slice(11, 16)} UTC`;

/**
 * `tunelab run …` that repeats a run: same scenario, parameters (`params`) and run options
 * (`options`: repetitions, --until-stable, scale, and a managed server's `--server`/`--set`). Runs
 * without `options` (older runs, imported published figures) repeat with their repetition count.
 */
export function reproduceCommand(run: RunDetail, doc?: ScenarioDocument): string {
  const o = run.options;
  const params = Object.fromEntries(
    Object.entries(run.params)
      .filter(([k, v]) => !k.startsWith('published.') && v !== null)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, String(v)]),
  );
  // A scenario on a managed cluster of its own takes no target (the runner refuses one).
  const server =
    o?.server !== undefined
      ? { server: o.serverRelease ?? o.server, ...(o.serverSettings ? { settings: o.serverSettings } : {}) }
      : doc?.target
        ? undefined
        : serverForCommand(run.databaseEnvironment.engine, null);
  return runCommandLine({
    scenario: run.scenario.key,
    params,
    ...(server ? { server } : {}),
    ...designOf(run),
    publishedScale: o ? o.scale === 'published' : run.source === 'published',
  });
}

/**
 * The command that runs a scenario for the first time on the reader's machine: nothing to add for
 * a scenario on a managed cluster of its own, a throwaway server of the newest major the runner
 * installs for an engine it manages, else the engine's example target to replace.
 */
export function firstRunCommand(key: string, doc: ScenarioDocument | undefined): string {
  if (doc?.target) return runCommandLine({ scenario: key });
  const engine = doc?.engines[0] ?? ENGINES[0];
  return runCommandLine({
    scenario: key,
    server: serverForCommand(engine, ENGINE_FACTS[engine].managedMajors.at(-1) ?? null),
  });
}

/** The sentence under a run's command: what to replace in it, or where it runs without a change. */
export function reproduceNote(run: RunDetail, command: string): string {
  const engine = factsOf(run.databaseEnvironment.engine);
  if (engine && command.includes(` --target ${engine.exampleTarget}`))
    return `Replace ${engine.exampleTarget} with a ${engine.name} server you can spare; the runner builds its own databases on it and drops them at the end.`;
  if (run.options?.server !== undefined)
    return `The runner installs ${engine?.name ?? 'the server'} ${run.options.server} on first use (tunelab servers) and runs on a throwaway server it removes at the end.`;
  return 'The runner creates the throwaway server this scenario runs on and removes it at the end.';
}

/**
 * The design a run was made with, as options: the scenario's own rule (sequential or until-stable
 * from scenario.yaml) is what the plain command runs; a rule given as an option is repeated; a
 * fixed design (and a run from before options were stored) repeats its repetition count.
 */
function designOf(run: RunDetail): Pick<RunCommand, 'repetitions' | 'budgetSeconds' | 'untilStable'> {
  const o = run.options;
  if (!o) return { repetitions: Math.max(1, ...run.samples.map((s) => s.repetition)) };
  if (o.sequential) return o.sequential.source === 'scenario' ? {} : { budgetSeconds: o.sequential.budgetSeconds };
  if (o.untilStable?.source === 'scenario') return {};
  if (o.untilStable)
    return {
      repetitions: o.untilStable.startRepetitions,
      untilStable: {
        maxRepetitions: o.untilStable.maxRepetitions,
        cvThreshold: o.untilStable.cvThreshold,
        ...(o.untilStable.budgetSeconds !== undefined ? { budgetSeconds: o.untilStable.budgetSeconds } : {}),
      },
    };
  return { repetitions: o.repetitions };
}

/** CSV with OWASP formula neutralisation: the one writer in contracts. */
export { toCsv } from '@tunelab/contracts';

type ScenarioUnits = Map<string, { label: string; unit: DisplayUnit; better: string }>;
// The scenario page and two downloads ask for the same scenario's units (a pass over its samples).
const unitsOf = new WeakMap<ScenarioView, ScenarioUnits>();

/** One display unit per declared metric of a scenario, from all its measured values (units.ts). */
export function scenarioUnits(sc: ScenarioView, data: SiteData): ScenarioUnits {
  let out = unitsOf.get(sc);
  if (!out) unitsOf.set(sc, (out = computeUnits(sc, data)));
  return out;
}

function computeUnits(sc: ScenarioView, data: SiteData): ScenarioUnits {
  const values = new Map<string, number[]>();
  for (const g of sc.classGroups) {
    for (const ref of g.runs) {
      for (const s of data.runDetail.get(ref.id)?.samples ?? []) {
        const list = values.get(s.metric);
        if (list) list.push(s.value);
        else values.set(s.metric, [s.value]);
      }
    }
  }
  const out: ScenarioUnits = new Map();
  for (const m of sc.folder?.doc.metrics ?? []) {
    // A declared metric nobody measured yet has no column.
    if (!values.has(m.key)) continue;
    out.set(m.key, {
      label: metricName(m.key, m.label),
      unit: unitFor(m.unit, values.get(m.key) ?? []),
      // A metric that describes the conditions (a size before the step) is no goal: no "better".
      better: m.descriptive === true ? 'descriptive' : m.better,
    });
  }
  return out;
}

export type MetricSummaryTable = {
  id: string;
  heading: string;
  metrics: { key: string; label: string; unit: string; better: string }[];
  rows: { variant: string; label: string; cells: { text: string; spread: string; n: number }[] }[];
};

/** The every-metric tables of a scenario's groups, none when the scenario declares only its answer's metric. */
export function metricTables(sc: ScenarioView, data: SiteData): MetricSummaryTable[] {
  const summaries = metricSummaries(sc, data);
  return summaries.length > 0 && summaries[0]!.metrics.length > 1 ? summaries : [];
}

/** Each scenario's metric summaries, computed once per build: every group's page shows its own. */
const summariesOf = new WeakMap<ScenarioView, MetricSummaryTable[]>();

/** Per hardware class: every declared metric's mean per variant (± sd), in the metric's display unit. */
export function metricSummaries(sc: ScenarioView, data: SiteData): MetricSummaryTable[] {
  let summaries = summariesOf.get(sc);
  if (!summaries) summariesOf.set(sc, (summaries = computeMetricSummaries(sc, data)));
  return summaries;
}

function computeMetricSummaries(sc: ScenarioView, data: SiteData): MetricSummaryTable[] {
  const units = scenarioUnits(sc, data);
  const metrics = [...units.entries()];
  const multipleVersions = new Set(sc.classGroups.map((g) => g.scenario.version)).size > 1;
  const server = serverSuffix(sc.classGroups);
  const params = paramsSuffix(sc.classGroups);
  return sc.classGroups.map((g) => {
    const per = new Map<string, Map<string, number[]>>();
    for (const ref of g.runs) {
      for (const s of data.runDetail.get(ref.id)?.samples ?? []) {
        // The group's own sweep point only (none for a scenario without a sweep).
        if (s.point?.param !== g.point?.param || s.point?.value !== g.point?.value) continue;
        const byMetric = per.get(s.variant) ?? new Map<string, number[]>();
        const list = byMetric.get(s.metric);
        if (list) list.push(s.value);
        else byMetric.set(s.metric, [s.value]);
        per.set(s.variant, byMetric);
      }
    }
    // A variant with none of the declared metrics (the fixture's own timings) would be a column of dashes.
    const variants = [...per.keys()].filter((v) => metrics.some(([key]) => per.get(v)?.has(key))).sort();
    return {
      id: `metrics-${groupAnchor(g)}`,
      heading: `${classLabel(g.hardware.class)}${pointSuffix(g)}${server(g)}${params(g)}${multipleVersions ? ` — scenario version ${shortHash(g.scenario.version)}` : ''}`,
      metrics: metrics.map(([key, m]) => ({ key, label: m.label, unit: m.unit.label, better: m.better })),
      rows: variants.map((v) => ({
        variant: v,
        label: sc.variantLabels[v] ?? '',
        cells: metrics.map(([key, m]) => {
          const xs = per.get(v)?.get(key) ?? [];
          if (xs.length === 0) return { text: '—', spread: '', n: 0 };
          const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
          const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : 0;
          return { text: m.unit.format(mean), spread: sd > 0 ? `± ${m.unit.format(sd)}` : '', n: xs.length };
        }),
      })),
    };
  });
}
