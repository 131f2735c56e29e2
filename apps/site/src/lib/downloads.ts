/** The JSON and CSV files behind the tables, computed once per build from the same views. */
import type { ComparisonGroup, CsvCell, LeftOut, PairAnswer, PairComparison } from '@tunelab/contracts';
import type { ScenarioView, SiteData } from './load.ts';
import { sampleExportCsv, sampleExports } from './run-files.ts';
import {
  differenceRows,
  measuredTables,
  metricSummaries,
  publishedTables,
  scenarioUnits,
  settingsDiff,
  toCsv,
} from './views.ts';

/** `body` is null for a file the data layer wrote already (run-files.ts): its route renders none. */
export type DownloadFile = { path: string; title: string; body: string | null; bytes: number; type: string };

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8';

/** The columns that name a comparison group in the site-wide CSVs, and its cells. */
const GROUP_COLUMNS = ['group', 'scenario', 'scenario_version', 'source', 'hardware_class'];
/** What names a group: a comparison group's, or an answer's group's (the same fields). */
type NamedGroup = Pick<ComparisonGroup, 'key' | 'scenario' | 'source' | 'hardware'>;
const groupCells = (g: NamedGroup) => [g.key, g.scenario.key, g.scenario.version, g.source, g.hardware.class];

/** Adds one file to the list. */
type Add = (path: string, title: string, body: string, type: string) => void;

function build(data: SiteData): DownloadFile[] {
  const files: DownloadFile[] = [];
  const add: Add = (path, title, body, type) => files.push({ path, title, body, bytes: Buffer.byteLength(body), type });
  addGroupFiles(data, add);
  addRunFiles(data, add, files);
  for (const sc of data.scenarios) {
    addScenarioTables(sc, data, add);
    addScenarioDerived(sc, data, add);
  }
  addHardwareFiles(data, add);
  return files;
}

/** Per machine: its profile, its similar hardware and its runs. */
function addHardwareFiles(data: SiteData, add: Add): void {
  for (const h of data.hardware) {
    add(
      `hardware/${h.fingerprint}.json`,
      `hardware ${h.fingerprint}`,
      json({
        hardware: data.hardwareDetail.get(h.fingerprint),
        similar: data.similar.get(h.fingerprint) ?? null,
        runs: (data.runsByHardware.get(h.fingerprint) ?? []).map((r) => r.id),
      }),
      JSON_TYPE,
    );
  }
}

/** Site-wide: the scenarios, every comparison group, its variants' summaries and its verdicts. */
function addGroupFiles(data: SiteData, add: Add): void {
  const scenarioRows = data.scenarios.map((s) => ({
    key: s.key,
    title: s.title,
    metric: s.metric.key,
    unit: s.metric.unit,
    measuredRuns: s.measuredRuns,
    machines: s.machines,
    newestAt: s.newestAt,
  }));
  add('scenarios.json', 'Scenarios with run and machine counts', json(scenarioRows), JSON_TYPE);
  add(
    'scenarios.csv',
    'Scenarios with run and machine counts',
    toCsv(
      ['key', 'title', 'metric', 'unit', 'measured_runs', 'machines', 'newest_at'],
      scenarioRows.map((s) => [s.key, s.title, s.metric, s.unit, s.measuredRuns, s.machines, s.newestAt]),
    ),
    CSV_TYPE,
  );

  const groups = data.scenarios.flatMap((s) => [...s.publishedGroups, ...s.classGroups]);
  add(
    'comparisons.json',
    'Every comparison group (published per article machine, measured per hardware class)',
    json(groups),
    JSON_TYPE,
  );
  add(
    'variant-summaries.csv',
    'Per group and variant: n, mean, median, sd, 95% CI',
    toCsv(
      [
        ...GROUP_COLUMNS,
        'metric',
        'unit',
        'variant',
        'n',
        'mean',
        'median',
        'sd',
        'ci95_low',
        'ci95_high',
        'min',
        'max',
      ],
      groups.flatMap((g) =>
        g.variants.map((v) => [
          ...groupCells(g),
          g.metric,
          g.unit,
          v.variant,
          v.n,
          v.mean,
          v.median,
          v.sd,
          v.ci95?.low,
          v.ci95?.high,
          v.min,
          v.max,
        ]),
      ),
    ),
    CSV_TYPE,
  );
  addVerdicts(data.scenarios, add);
}

/** The verdicts.csv cells of one pair: its comparison's figures, then the answer's word on it (none for the article's groups). */
function verdictRow(
  g: NamedGroup,
  c: PairComparison,
  a: { pair: PairAnswer; leftOut: LeftOut | undefined } | null,
): CsvCell[] {
  return [
    ...groupCells(g),
    c.baseline,
    c.candidate,
    c.difference,
    c.improvement,
    c.ci95?.low,
    c.ci95?.high,
    c.welch?.p,
    c.adjusted?.p,
    c.adjusted?.family,
    c.mannWhitney?.p,
    c.verdict.kind,
    c.verdict.sentence,
    a?.pair.agreement,
    a?.pair.sentence,
    a?.pair.reasons.join('; '),
    a?.pair.notes.join('; '),
    a?.pair.advice,
    a?.leftOut ? `${a.leftOut.label}: ${a.leftOut.why}` : '',
  ];
}

/**
 * Per group and declared pair: the improvement, its interval, the p-values, the verdict and the
 * answer's agreement. The measured rows are the answers' (@tunelab/answers, as GET /v1/answers and
 * the answer cards give them: noisy runs left out of a group are a left-out group of their own);
 * the article's rows are its imported figures' comparisons, which the answers hold against.
 */
function addVerdicts(scenarios: SiteData['scenarios'], add: Add): void {
  const published = scenarios.flatMap((s) =>
    s.publishedGroups.flatMap((g) => g.comparisons.map((c) => verdictRow(g, c, null))),
  );
  const measured = scenarios.flatMap((s) =>
    [...(s.answers?.groups ?? []), ...(s.answers?.leftOut ?? [])].flatMap((a) =>
      a.pairs.flatMap((pair) =>
        pair.measured ? [verdictRow(a.group, pair.measured, { pair, leftOut: a.leftOut })] : [],
      ),
    ),
  );
  add(
    'verdicts.csv',
    'Per group and comparison pair: improvement, 95% CI, p-values, verdict, agreement with the article and its reasons',
    toCsv(
      [
        ...GROUP_COLUMNS,
        'baseline',
        'candidate',
        'difference',
        'improvement',
        'ci95_low',
        'ci95_high',
        'welch_p',
        // The p the verdict was decided by, Bonferroni-adjusted over `adjusted_family` decisions
        // (the scenario's declared pairs × points; 1 for an article's figures).
        'adjusted_p',
        'adjusted_family',
        'mann_whitney_p',
        'verdict',
        'sentence',
        // From the answers (empty for the article's own groups, which are what the answers hold against).
        'agreement',
        'agreement_sentence',
        'reasons',
        'notes',
        'advice',
        'left_out',
      ],
      [...published, ...measured],
    ),
    CSV_TYPE,
  );
}

/** Site-wide: findings, hardware profiles, runs and the samples (written by the build, or already on disk). */
function addRunFiles(data: SiteData, add: Add, files: DownloadFile[]): void {
  add('findings.json', 'Measured findings, newest first', json(data.findings), JSON_TYPE);
  add('hardware.json', 'Hardware profiles', json(data.hardware), JSON_TYPE);
  add(
    'hardware.csv',
    'Hardware profiles',
    toCsv(
      [
        'fingerprint',
        'class',
        'cpu_model',
        'physical_cores',
        'logical_cpus',
        'memory_bytes',
        'storage_kind',
        'storage_model',
        'runs',
        'first_seen_at',
        'last_seen_at',
      ],
      data.hardware.map((h) => [
        h.fingerprint,
        h.class,
        h.cpuModel,
        h.physicalCores,
        h.logicalCpus,
        h.memoryBytes,
        h.storageKind,
        h.storageModel,
        h.runs,
        h.firstSeenAt,
        h.lastSeenAt,
      ]),
    ),
    CSV_TYPE,
  );
  add('runs.json', 'Runs (summaries)', json(data.runs), JSON_TYPE);
  add(
    'runs.csv',
    'Runs (summaries)',
    toCsv(
      [
        'id',
        'source',
        'scenario',
        'scenario_version',
        'hardware',
        'hardware_class',
        'engine',
        'db_version',
        'runner',
        'runner_version',
        'started_at',
        'finished_at',
        'received_at',
        'samples',
      ],
      data.runs.map((r) => [
        r.id,
        r.source,
        r.scenario.key,
        r.scenario.version,
        r.hardware.fingerprint,
        r.hardware.class,
        r.database.engine,
        r.database.version,
        r.runner,
        r.runnerVersion,
        r.startedAt,
        r.finishedAt,
        r.receivedAt,
        r.samples,
      ]),
    ),
    CSV_TYPE,
  );
  addSampleFiles(data, add, files);
}

/**
 * Every sample of every run, and each scenario's, oldest run first (new runs are appended): files
 * the build wrote already (run-files.ts), or made here for their routes by a plain `astro build`.
 */
function addSampleFiles(data: SiteData, add: Add, files: DownloadFile[]): void {
  for (const e of sampleExports(data.runs)) {
    const title = `${e.scenario === null ? 'Every sample of every run' : `${e.scenario}: every sample of its runs`}, oldest run first (new runs are appended)`;
    const bytes = data.sampleSizes?.get(e.path);
    if (bytes === undefined) add(e.path, title, sampleExportCsv(e, data.runDetail), CSV_TYPE);
    else files.push({ path: e.path, title, body: null, bytes, type: CSV_TYPE });
  }
}

/** A scenario's tables: the article's and the measured ones per hardware class. */
function addScenarioTables(sc: ScenarioView, data: SiteData, add: Add): void {
  const base = `scenarios/${sc.key}`;
  const pub = publishedTables(sc).map(({ group, ...t }) => ({ ...t, groupKey: group?.key ?? null }));
  add(`${base}/published.json`, `${sc.key}: the article's table`, json(pub), JSON_TYPE);
  add(
    `${base}/published.csv`,
    `${sc.key}: the article's table`,
    toCsv(
      ['machine', 'label', 'variant', 'repetition', 'seconds', 'avg_as_printed', 'pct_faster'],
      pub.flatMap((t) =>
        t.rows.flatMap((r) => r.values.map((v, i) => [t.machine, t.label, r.variant, i + 1, v, r.avgText, r.pctText])),
      ),
    ),
    CSV_TYPE,
  );
  const measured = measuredTables(sc, data).map(({ group, ...t }) => ({
    ...t,
    groupKey: group.key,
    runCount: group.runCount,
    runs: group.runs.map((r) => r.id),
  }));
  add(`${base}/measured.json`, `${sc.key}: measured tables per hardware class`, json(measured), JSON_TYPE);
  // Numbers in the metric's display unit (the same as the pages), the unit in the header.
  const primary = scenarioUnits(sc, data).get(sc.metric.key)?.unit;
  const inUnit = (v: number) => (primary ? Number(primary.scale(v).toFixed(primary.decimals + 2)) : v);
  const unitTag = primary?.label ?? sc.metric.unit;
  add(
    `${base}/measured.csv`,
    `${sc.key}: measured tables per hardware class`,
    toCsv(
      [
        'group',
        'hardware_class',
        'variant',
        'n',
        `mean (${unitTag})`,
        'avg_as_printed',
        'ci95_of_mean',
        'pct_faster',
        `values (${unitTag})`,
      ],
      measured.flatMap((t) =>
        t.rows.map((r) => [
          t.groupKey,
          t.heading,
          r.variant,
          r.n,
          inUnit(r.mean),
          r.avgText,
          r.ciText,
          r.pctText,
          r.values.map(inUnit).join(' '),
        ]),
      ),
    ),
    CSV_TYPE,
  );
}

/** A scenario's derived tables: every metric per class, the differences with CIs, the settings that differ. */
function addScenarioDerived(sc: ScenarioView, data: SiteData, add: Add): void {
  const base = `scenarios/${sc.key}`;
  const summaries = metricSummaries(sc, data);
  if (summaries.length > 0) {
    const metrics = summaries[0]?.metrics ?? [];
    add(
      `${base}/metrics.csv`,
      `${sc.key}: every metric per hardware class (mean ± sd)`,
      toCsv(
        [
          'hardware_class',
          'variant',
          ...metrics.flatMap((m) => [`${m.key} mean (${m.unit})`, `${m.key} sd (${m.unit})`]),
        ],
        summaries.flatMap((t) =>
          t.rows.map((r) => [
            t.heading,
            r.variant,
            ...r.cells.flatMap((c) => [
              c.text === '—' ? '' : c.text.replace(/,/g, ''),
              c.spread.replace(/^± /, '').replace(/,/g, ''),
            ]),
          ]),
        ),
      ),
      CSV_TYPE,
    );
  }
  const diffs = differenceRows(sc);
  add(`${base}/differences.json`, `${sc.key}: differences with CIs`, json(diffs), JSON_TYPE);
  add(
    `${base}/differences.csv`,
    `${sc.key}: differences with CIs`,
    toCsv(
      ['baseline', 'candidate', 'group', 'improvement', 'ci95_low', 'ci95_high', 'significant'],
      diffs.flatMap((d) =>
        d.rows.map((r) => [d.baseline, d.candidate, r.label, r.estimate, r.low, r.high, r.significant]),
      ),
    ),
    CSV_TYPE,
  );
  const settings = settingsDiff(sc, data);
  add(`${base}/settings.json`, `${sc.key}: settings that differ between groups`, json(settings), JSON_TYPE);
  add(
    `${base}/settings.csv`,
    `${sc.key}: settings that differ between groups`,
    toCsv(
      ['setting', ...settings.columns.map((c) => c.label)],
      settings.rows.map((r) => [r.setting, ...r.values]),
    ),
    CSV_TYPE,
  );
}

const cache = new WeakMap<SiteData, DownloadFile[]>();
export function downloadFiles(data: SiteData): DownloadFile[] {
  let files = cache.get(data);
  if (!files) cache.set(data, (files = build(data)));
  return files;
}
