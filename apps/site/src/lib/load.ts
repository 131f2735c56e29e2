/**
 * Loads everything the site shows, once per build: a handful of list/compare queries and the
 * details of the runs this build renders, read in batches, then joined in memory (hash maps, no
 * scan per record). No page queries the database.
 */
import {
  type AnswersQuery,
  ComparisonQuery,
  HardwareDetail as HardwareDetailSchema,
  SimilarHardwareQuery,
  type ComparisonGroup,
  type Coverage,
  type Finding,
  type ReleaseEvent,
  type HardwareDetail,
  type HardwareSummary,
  type MetricDirection,
  type RunDetail,
  runPath,
  type RunSummary,
  type ScenarioAnswers,
  type SimilarHardware,
  storageTierOf,
  HARDWARE_MEASUREMENTS_SHOWN,
} from '@tunelab/contracts';
import { findingsOf, mergeInputs } from '@tunelab/results-db';
import { metricDirection, primaryMetric as primaryMetricKey } from '@tunelab/answers';
import { readSiteConfig, type SiteConfig } from './env.ts';
import { openSiteSource, SiteDataError, validate, type SiteSource } from './source.ts';
import { readScenarioFolders, type ScenarioFolder } from './scenarios.ts';
import { readBuiltRuns, readKeptInputs, readManifest, writeInputs } from './built-runs.ts';
import { writeRunFiles, writeSampleExports } from './run-files.ts';
import { metricName, type DurationFormat } from './format.ts';

export type Metric = { key: string; unit: string; direction: MetricDirection; label: string };

export type ScenarioView = {
  key: string;
  title: string;
  folder: ScenarioFolder | null;
  metric: Metric;
  format: DurationFormat;
  variantLabels: Record<string, string>;
  versions: { version: string; firstSeenAt: string; runs: number }[];
  measuredRuns: number;
  machines: number;
  newestAt: string | null;
  /** Measured, one group per hardware class (× scenario version). */
  classGroups: ComparisonGroup[];
  /** Published figures, one group per article machine. */
  publishedGroups: ComparisonGroup[];
  /** The scenario's answers (@tunelab/answers, as GET /v1/answers gives them); null without a folder. */
  answers: ScenarioAnswers | null;
  /** The article's own groups answered the same way (their fits, e.g. µs per table); null without a folder. */
  articleAnswers: ScenarioAnswers | null;
};

export type SiteData = {
  config: SiteConfig;
  sourceDescription: string;
  generatedAt: string;
  scenarios: ScenarioView[];
  hardware: HardwareSummary[];
  hardwareDetail: Map<string, HardwareDetail>;
  runs: RunSummary[];
  runDetail: Map<string, RunDetail>;
  /** Runs whose pages an earlier build wrote and this build keeps (empty for a full build). */
  builtRuns: ReadonlySet<string>;
  /** This build's runs' run.json and samples.csv are written already (run-files.ts); their routes render none. */
  runFilesWritten: boolean;
  /** The sample exports' sizes by path under downloads/ when the data layer wrote them (run-files.ts), else null: their routes make them. */
  sampleSizes: ReadonlyMap<string, number> | null;
  runsByHardware: Map<string, RunSummary[]>;
  /** Measured groups per machine (groupBy hardware), by fingerprint. */
  machineGroups: Map<string, ComparisonGroup[]>;
  similar: Map<string, SimilarHardware>;
  hardwareByClass: Map<string, HardwareSummary[]>;
  findings: Finding[];
  /** Runs and open fleet jobs per scenario × hardware class × server major (the coverage page). */
  coverage: Coverage;
  /** Changes between PostgreSQL releases, each an event with its state (the findings feed carries them). */
  releaseEvents: ReleaseEvent[];
  /** How long each phase of the load took (wall time), e.g. `lists 812 ms, run details 4 s, …`. */
  loadPhases: string;
};

const DEFAULT_METRIC: Metric = { key: 'duration', unit: 's', direction: 'lower-is-better', label: 'duration' };

function primaryMetric(folder: ScenarioFolder | null): Metric {
  if (!folder) return DEFAULT_METRIC;
  const wanted = primaryMetricKey(folder.doc);
  const m = folder.doc.metrics.find((x) => x.key === wanted);
  if (!m) return DEFAULT_METRIC;
  const { direction } = metricDirection(folder.doc, m.key);
  return {
    key: m.key,
    unit: m.unit,
    direction: direction === 'higher-is-better' ? 'higher-is-better' : 'lower-is-better',
    label: metricName(m.key, m.label),
  };
}

/**
 * The site's data, in steps: the lists, the runs' references checked, every run's detail (its
 * samples.csv written meanwhile), the hardware, the comparisons, the answers, the scenario views,
 * the machines' groups, similar hardware, coverage and release events, and the findings.
 */
async function loadFrom(source: SiteSource, config: SiteConfig): Promise<SiteData> {
  const phases = new Phases();
  const [folders, scenarioList, hardware, runs] = await Promise.all([
    readScenarioFolders(config.scenariosDir),
    source.scenarios(),
    source.hardware(),
    source.runs(),
  ]);
  phases.mark('lists');
  const folderByKey = new Map(folders.map((f) => [f.key, f]));
  const keys = [...new Set([...folders.map((f) => f.key), ...scenarioList.items.map((s) => s.key)])].sort();
  checkRunsHaveHardware(source, hardware, runs);

  const { builtRuns, runDetail, runFilesWritten } = await readRunDetails(source, config, runs, phases);
  const samplesWritten = startSampleExports(config, { runs, runDetail, builtRuns });

  const { runsByHardware, detailList } = await hardwareDetails(source, hardware, runs, runDetail);
  phases.mark('hardware');
  const hardwareDetail = new Map(detailList.map((h) => [h.fingerprint, h]));

  const { classGroups, machineGroupList, publishedGroups, answers, releaseEvents } = await loadComparisons(
    source,
    config,
    {
      keys,
      folderByKey,
      runs,
      runDetail,
      builtRuns,
      phases,
    },
  );
  phases.mark('comparisons');
  const answersOf = await scenarioAnswers(keys, folderByKey, answers, config);
  phases.mark('answers');
  const scenarios = scenarioViews(keys, folderByKey, scenarioList.items, runs, {
    classGroups,
    publishedGroups,
    answersOf,
  });

  const machineGroups = groupsByMachine(machineGroupList);
  const { hardwareByClass, similar } = await similarByClass(source, hardware);
  phases.mark('similar hardware');
  // Read with the rest (an embedded database is opened once per build).
  const coverage = await source.coverage();
  phases.mark('coverage');
  const events = (await releaseEvents()).items;
  phases.mark('release events');
  const findings = siteFindings(classGroups, config);

  // Written while the rest loads (disk time, mostly); no page reads it.
  const sampleSizes = await samplesWritten;
  phases.mark('samples.csv (rest)');

  return {
    config,
    sourceDescription: source.description,
    generatedAt: new Date().toISOString(),
    scenarios,
    hardware,
    hardwareDetail,
    runs,
    runDetail,
    builtRuns,
    runFilesWritten,
    sampleSizes,
    runsByHardware,
    machineGroups,
    similar,
    hardwareByClass,
    findings,
    coverage,
    releaseEvents: events,
    loadPhases: phases.toString(),
  };
}

/** Referential checks: a page must never link to a record that is not there. */
function checkRunsHaveHardware(
  source: SiteSource,
  hardware: readonly HardwareSummary[],
  runs: readonly RunSummary[],
): void {
  const hardwareByFp = new Map(hardware.map((h) => [h.fingerprint, h]));
  for (const r of runs) {
    if (!hardwareByFp.has(r.hardware.fingerprint))
      throw new SiteDataError(
        `run ${r.id} refers to hardware profile ${r.hardware.fingerprint}, which ${source.description} does not list`,
      );
  }
}

/**
 * The sample exports (every sample, and per scenario), the new runs' rows appended to the earlier
 * build's files, written while the rest loads; their sizes, or null without a build output.
 * Awaited by the caller.
 */
function startSampleExports(
  config: SiteConfig,
  o: { runs: RunSummary[]; runDetail: Map<string, RunDetail>; builtRuns: ReadonlySet<string> },
) {
  const written = config.buildOut ? writeSampleExports(config.buildOut, { ...o, config }) : Promise.resolve(null);
  // Awaited later; a failure must not go unhandled in between.
  written.catch(() => undefined);
  return written;
}

/** Per scenario with a folder, its measured answers (noisy runs as the config says) and the article's. */
async function scenarioAnswers(
  keys: readonly string[],
  folderByKey: ReadonlyMap<string, ScenarioFolder>,
  answers: (q: AnswersQuery) => Promise<ScenarioAnswers | null>,
  config: SiteConfig,
) {
  const answersOf = new Map<string, { answers: ScenarioAnswers | null; articleAnswers: ScenarioAnswers | null }>();
  for (const key of keys) {
    if (!folderByKey.has(key)) continue;
    const [measured, article] = await Promise.all([
      answers({ scenario: key, source: 'measured', noisy: config.noisy ?? 'exclude' }),
      answers({ scenario: key, source: 'published' }),
    ]);
    answersOf.set(key, { answers: measured, articleAnswers: article });
  }
  return answersOf;
}

/** The per-machine groups by the machine's fingerprint. */
function groupsByMachine(machineGroupList: readonly ComparisonGroup[]): Map<string, ComparisonGroup[]> {
  const machineGroups = new Map<string, ComparisonGroup[]>();
  for (const g of machineGroupList) {
    if (!g.hardware.fingerprint) continue;
    const list = machineGroups.get(g.hardware.fingerprint) ?? [];
    list.push(g);
    machineGroups.set(g.hardware.fingerprint, list);
  }
  return machineGroups;
}

/**
 * Findings as the API's listFindings shapes them, from the class groups (which carry the
 * scenario's declared pairs), newest data first.
 */
function siteFindings(classGroups: readonly ComparisonGroup[], config: SiteConfig): Finding[] {
  return findingsOf(classGroups, (g) => `/scenarios/${g.scenario.key}/`, config.noisy ?? 'exclude')
    .slice(0, 200)
    .map(({ runIds, comparison, ...f }) => ({ ...f, runs: runIds.map(runPath), links: { comparison } }));
}

/**
 * Every run's detail: an incremental build reads the runs it keeps from their run.json pages (runs
 * are immutable) and asks the source only for the new ones; a scripts/build.ts build writes the new
 * runs' run.json and samples.csv (run-files.ts).
 */
async function readRunDetails(source: SiteSource, config: SiteConfig, runs: readonly RunSummary[], phases: Phases) {
  const builtSite = config.builtSite;
  let builtRuns = new Set(builtSite ? ((await readManifest(builtSite))?.runs ?? []) : []);
  const runIds = new Set(runs.map((r) => r.id));
  const gone = [...builtRuns].filter((id) => !runIds.has(id)).length;
  if (gone > 0) {
    // Another or a reset database: nothing of the earlier build can be trusted, so every page is
    // rendered (scripts/build.ts sees kept runs rendered again and replaces the whole output).
    console.warn(
      `[tunelab] ${gone} runs of the earlier build are not in ${source.description}: building every page again`,
    );
    builtRuns = new Set();
  }
  const kept = builtSite ? runs.filter((r) => builtRuns.has(r.id)) : [];
  const read = new Map<string, RunDetail>();
  for (const d of await source.runDetails(runs.filter((r) => !builtRuns.has(r.id)).map((r) => r.id))) read.set(d.id, d);
  if (builtSite)
    for (const d of readBuiltRuns(
      builtSite,
      kept.map((r) => r.id),
    ))
      read.set(d.id, d);
  phases.mark('run details');
  const runFilesWritten = config.buildOut !== undefined;
  if (config.buildOut) {
    await writeRunFiles(
      config.buildOut,
      runs.flatMap((r) => (builtRuns.has(r.id) ? [] : [read.get(r.id) as RunDetail])),
    );
    phases.mark('run files');
  }
  const runDetail = new Map(runs.flatMap((r) => (read.has(r.id) ? [[r.id, read.get(r.id) as RunDetail]] : [])));
  return { builtRuns, runDetail, runFilesWritten };
}

/**
 * Per machine its runs and its page's detail. A run's detail already carries its machine's stored
 * spec (getRun reads the profile's), so a machine page needs its own read only when no run lists it.
 */
async function hardwareDetails(
  source: SiteSource,
  hardware: readonly HardwareSummary[],
  runs: readonly RunSummary[],
  runDetail: ReadonlyMap<string, RunDetail>,
): Promise<{ runsByHardware: Map<string, RunSummary[]>; detailList: HardwareDetail[] }> {
  const runsByHardware = new Map<string, RunSummary[]>();
  for (const r of runs) {
    const list = runsByHardware.get(r.hardware.fingerprint);
    if (list) list.push(r);
    else runsByHardware.set(r.hardware.fingerprint, [r]);
  }
  const detailList: HardwareDetail[] = [];
  for (const h of hardware) {
    const mine = runsByHardware.get(h.fingerprint) ?? [];
    const first = mine[0] ? runDetail.get(mine[0].id) : undefined;
    if (!first || mine.length !== h.runs) {
      detailList.push(await source.hardwareDetail(h.fingerprint));
      continue;
    }
    const perScenario = new Map<string, number>();
    for (const r of mine) perScenario.set(r.scenario.key, (perScenario.get(r.scenario.key) ?? 0) + 1);
    const scenarios = [...perScenario.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, n]) => ({ key, runs: n }));
    // Each run's detail carries its own probe: the machine's newest, as getHardware lists them.
    const measurements = mine
      .flatMap((r) => {
        const m = runDetail.get(r.id)?.hardwareSpec.measured;
        if (!m) return [];
        const { notes: _notes, ...figures } = m;
        return [{ ...figures, runId: r.id, storageTier: storageTierOf(m) }];
      })
      .sort((a, b) => (a.measuredAt < b.measuredAt ? 1 : a.measuredAt > b.measuredAt ? -1 : 0))
      .slice(0, HARDWARE_MEASUREMENTS_SHOWN);
    detailList.push(
      validate(
        HardwareDetailSchema,
        { ...h, spec: first.hardwareSpec, scenarios, measurements },
        `hardware profile ${h.fingerprint}`,
        source.description,
      ),
    );
  }
  return { runsByHardware, detailList };
}

/**
 * Every comparison group (by class, by machine, the articles') of each scenario's primary metric,
 * and the answers function. From a database, every comparison and answer is computed from one
 * read of the samples, of which an incremental build reads only the new runs' (the kept runs' are
 * in the earlier build).
 */
async function loadComparisons(
  source: SiteSource,
  config: SiteConfig,
  o: {
    keys: readonly string[];
    folderByKey: ReadonlyMap<string, ScenarioFolder>;
    runs: readonly RunSummary[];
    runDetail: ReadonlyMap<string, RunDetail>;
    builtRuns: ReadonlySet<string>;
    phases: Phases;
  },
) {
  const { keys, folderByKey, runs, runDetail, builtRuns, phases } = o;
  // One comparison per metric × grouping for all scenarios at once.
  const metrics = new Map<string, Metric>();
  for (const key of keys) {
    const m = primaryMetric(folderByKey.get(key) ?? null);
    metrics.set(`${m.key}|${m.direction}`, m);
  }
  const classGroups: ComparisonGroup[] = [];
  const machineGroupList: ComparisonGroup[] = [];
  const publishedGroups: ComparisonGroup[] = [];
  let compare = (q: ComparisonQuery) => source.compare(q);
  let answers = (q: AnswersQuery) => source.answers(q);
  let releaseEvents = () => source.releaseEvents();
  if (source.inputs) {
    const api = source.inputs;
    const metricKeys = [...new Set([...metrics.values()].map((m) => m.key))];
    const kept =
      config.builtSite && builtRuns.size > 0 ? await readKeptInputs(config.builtSite, builtRuns, metricKeys) : null;
    const inputs = kept
      ? mergeInputs(
          kept,
          await api.load(
            metricKeys,
            runs.filter((r) => !builtRuns.has(r.id)).map((r) => r.id),
          ),
        )
      : await api.load(metricKeys);
    phases.mark(kept ? 'samples (new runs)' : 'samples');
    if (config.buildOut)
      await writeInputs(
        config.buildOut,
        inputs,
        runs.map((r) => r.id),
      );
    compare = (q) => api.compare(inputs, q);
    answers = (q) => api.answers(inputs, q);
    releaseEvents = () => api.releaseEvents(inputs);
  }
  for (const m of metrics.values()) {
    const base = { metric: m.key, direction: m.direction };
    const [byClass, byMachine, published] = await Promise.all([
      compare(ComparisonQuery.parse({ ...base, source: 'measured', groupBy: 'class' })),
      compare(ComparisonQuery.parse({ ...base, source: 'measured', groupBy: 'hardware' })),
      compare(ComparisonQuery.parse({ ...base, source: 'published', groupBy: 'hardware' })),
    ]);
    const forKey = (g: ComparisonGroup) => primaryMetric(folderByKey.get(g.scenario.key) ?? null).key === m.key;
    classGroups.push(...byClass.groups.filter(forKey));
    machineGroupList.push(...byMachine.groups.filter(forKey));
    publishedGroups.push(...published.groups.filter(forKey));
  }
  for (const g of [...classGroups, ...machineGroupList, ...publishedGroups]) {
    for (const r of g.runs)
      if (!runDetail.has(r.id))
        throw new SiteDataError(
          `comparison group ${g.key} refers to run ${r.id}, which ${source.description} does not list`,
        );
  }

  return { classGroups, machineGroupList, publishedGroups, answers, releaseEvents };
}

/** One view per scenario key: its folder, metric, run counts, groups and answers. */
function scenarioViews(
  keys: readonly string[],
  folderByKey: ReadonlyMap<string, ScenarioFolder>,
  listed: readonly { key: string; title: string | null; versions: ScenarioView['versions'] }[],
  runs: readonly RunSummary[],
  o: {
    classGroups: readonly ComparisonGroup[];
    publishedGroups: readonly ComparisonGroup[];
    answersOf: ReadonlyMap<string, { answers: ScenarioAnswers | null; articleAnswers: ScenarioAnswers | null }>;
  },
): ScenarioView[] {
  const { classGroups, publishedGroups, answersOf } = o;
  const measuredOf = new Map<string, RunSummary[]>();
  for (const r of runs) {
    if (r.source !== 'measured') continue;
    const list = measuredOf.get(r.scenario.key);
    if (list) list.push(r);
    else measuredOf.set(r.scenario.key, [r]);
  }
  return keys.map((key) => {
    const folder = folderByKey.get(key) ?? null;
    const db = listed.find((s) => s.key === key);
    const mine = measuredOf.get(key) ?? [];
    const variantLabels = labelsOf(folder?.doc.variants ?? []);
    return {
      key,
      title: folder?.doc.title ?? db?.title ?? key,
      folder,
      metric: primaryMetric(folder),
      format: folder?.published?.format ?? 's',
      variantLabels,
      versions: db?.versions ?? [],
      measuredRuns: mine.length,
      machines: new Set(mine.map((r) => r.hardware.fingerprint)).size,
      // When the newest run was measured (its finish), not when it was received or imported.
      newestAt: mine.reduce<string | null>((a, r) => (a === null || r.finishedAt > a ? r.finishedAt : a), null),
      classGroups: classGroups.filter((g) => g.scenario.key === key),
      publishedGroups: publishedGroups.filter((g) => g.scenario.key === key),
      answers: answersOf.get(key)?.answers ?? null,
      articleAnswers: answersOf.get(key)?.articleAnswers ?? null,
    };
  });
}

/**
 * Machines by the hardware class the answers are grouped by (contracts' hardwareClassOf, stored
 * with each profile; an article's undescribed machine has the placeholder class), and each
 * machine's similar hardware: it depends on the machine only through its class, so one machine
 * per class is ranked, all of them from one aggregate.
 */
async function similarByClass(source: SiteSource, hardware: readonly HardwareSummary[]) {
  const hardwareByClass = new Map<string, HardwareSummary[]>();
  for (const h of hardware) {
    const list = hardwareByClass.get(h.class);
    if (list) list.push(h);
    else hardwareByClass.set(h.class, [h]);
  }
  const firstOfClass = [...hardwareByClass.values()].map((list) => (list[0] as HardwareSummary).fingerprint);
  const byFirst = await source.similarMany(firstOfClass, SimilarHardwareQuery.parse({ limit: 8 }));
  const similar = new Map<string, SimilarHardware>();
  for (const h of hardware) {
    const s = byFirst.get((hardwareByClass.get(h.class)?.[0] as HardwareSummary).fingerprint) as SimilarHardware;
    similar.set(h.fingerprint, { ...s, machine: { ...s.machine, fingerprint: h.fingerprint, class: h.class } });
  }
  return { hardwareByClass, similar };
}

/** Wall time per phase of the load, for the `[tunelab] loaded …` line (the benchmark reads it). */
class Phases {
  #last = performance.now();
  #parts: string[] = [];
  mark(name: string) {
    const now = performance.now();
    this.#parts.push(`${name} ${Math.round(now - this.#last)} ms`);
    this.#last = now;
  }
  toString() {
    return this.#parts.join(', ');
  }
}

/**
 * The key of `hardwareByClass`: the hardware class itself (a similar-hardware item's `class`, a
 * machine's `class`), the one the answers engine groups by.
 */
export const classKeyOf = (s: { class: string }) => s.class;
export const classKeyOfHardware = (h: { class: string }) => h.class;

export async function loadSiteData(config: SiteConfig = readSiteConfig()): Promise<SiteData> {
  const source = await openSiteSource(config);
  try {
    return await loadFrom(source, config);
  } finally {
    await source.close();
  }
}

// Every page's getStaticPaths asks for the data; the build loads it once. This is a per-process
// memo of an immutable snapshot, not a database handle (the database is closed after loading).
let snapshot: Promise<SiteData> | undefined;
export function siteData(): Promise<SiteData> {
  const started = performance.now();
  snapshot ??= loadSiteData()
    .then((data) => {
      if (!data.config.siteUrlSet) {
        console.warn(
          `[tunelab] warning: TUNELAB_SITE_URL is not set; the feed and the sitemap link to ${data.config.siteUrl}. Set it to the address the site is published at.`,
        );
      }
      console.log(
        `[tunelab] loaded ${data.runs.length} runs on ${data.hardware.length} machines, ${data.scenarios.length} scenarios from ${data.sourceDescription} in ${Math.round(performance.now() - started)} ms (${data.loadPhases})`,
      );
      return data;
    })
    .catch((err: unknown) => {
      if (err instanceof SiteDataError) {
        // Astro prints the stack of whatever a page throws; the sentence is what matters.
        console.error(`\n✖ TuneLab site build stopped: ${err.message}\n`);
      }
      throw err;
    });
  return snapshot;
}

/**
 * Variant key → label, without a prototype: pages look labels up by the variant names runs
 * carry, and a variant called `hasOwnProperty` must find nothing (it found Object.prototype's
 * function, which Astro called while rendering, and the site build failed).
 */
export function labelsOf(variants: readonly { key: string; label: string }[]): Record<string, string> {
  const labels = Object.create(null) as Record<string, string>;
  for (const v of variants) labels[v.key] = v.label;
  return labels;
}

/**
 * The route params of this build's `run.json` and `samples.csv`: none when the data layer wrote
 * them already (run-files.ts), else every run whose pages no earlier build wrote (scripts/build.ts).
 */
export async function runFilePaths() {
  const data = await siteData();
  if (data.runFilesWritten) return [];
  return data.runs.filter((r) => !data.builtRuns.has(r.id)).map((r) => ({ params: { id: r.id } }));
}
