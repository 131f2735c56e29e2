/**
 * Files a build writes in bulk rather than through a page render each. A run page's two downloads,
 * `run.json` (its RunDetail) and `samples.csv`, are made in one place for the Astro routes and for
 * the data layer: a build run by scripts/build.ts has the data layer write them for every new run
 * (a directory and two files per run), the routes then render none, and only `index.html` goes
 * through Astro. The sample exports, `downloads/samples.csv` (every sample of every run, a million
 * rows at 10,000 runs) and `downloads/samples/<scenario>.csv`, are streamed to their files the
 * same way, which through a route would be made as one string, copied into a response and encoded
 * again; they list the oldest run first, so a later build appends the new runs' rows.
 */
import { constants, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { toCsv, type CsvCell, type RunDetail, type RunSummary } from '@tunelab/contracts';
import pLimit from 'p-limit';
import type { SiteConfig } from './env.ts';

export const runJson = (run: RunDetail | undefined) => `${JSON.stringify(run, null, 2)}\n`;

export const runSamplesCsv = (run: RunDetail | undefined) =>
  toCsv(
    ['variant', 'repetition', 'metric', 'unit', 'value'],
    (run?.samples ?? []).map((s) => [s.variant, s.repetition, s.metric, s.unit, s.value]),
  );

/**
 * Writes each run's `runs/<id>/run.json` and `samples.csv` under `dir`, a few runs at a time:
 * enough to keep the disk busy, few enough not to run out of descriptors.
 */
export async function writeRunFiles(dir: string, runs: readonly RunDetail[]): Promise<void> {
  await pLimit(16).map(runs, async (run) => {
    const at = join(dir, 'runs', run.id);
    await mkdir(at, { recursive: true });
    await Promise.all([
      writeFile(join(at, 'run.json'), runJson(run)),
      writeFile(join(at, 'samples.csv'), runSamplesCsv(run)),
    ]);
  });
}

/** What the sample exports are written from (the site data's runs, their details, the runs kept, the config). */
type SamplesData = {
  runs: RunSummary[];
  runDetail: Map<string, RunDetail>;
  builtRuns: ReadonlySet<string>;
  config: SiteConfig;
};

/**
 * One sample export under `downloads/`: the all-samples file, or one scenario's. Its rows are its
 * runs' samples, oldest run first (received order, ties by id), so a build with new runs appends
 * their rows to the earlier build's file instead of making it again.
 */
type SampleExport = {
  /** Relative to `downloads/`: `samples.csv`, `samples/<scenario>.csv`. */
  path: string;
  /** The scenario of a per-scenario file, else null. */
  scenario: string | null;
  header: string[];
  runs: RunSummary[];
  cells: (r: RunSummary, s: RunDetail['samples'][number]) => CsvCell[];
};

const ALL_HEADER = ['run', 'source', 'scenario', 'hardware', 'variant', 'repetition', 'metric', 'unit', 'value'];
const SCENARIO_HEADER = ['run', 'source', 'hardware', 'variant', 'repetition', 'metric', 'unit', 'value'];

/** Received order, ties by id: a new run sorts after every run an earlier build held, unless it arrived late. */
const oldestFirst = (runs: readonly RunSummary[]) =>
  runs
    .map((r) => ({ r, at: Date.parse(r.receivedAt) }))
    .sort((a, b) => a.at - b.at || (a.r.id < b.r.id ? -1 : a.r.id > b.r.id ? 1 : 0))
    .map((x) => x.r);

/** The all-samples export, then one per scenario (by key), each listing its runs oldest first. */
export function sampleExports(runs: readonly RunSummary[]): SampleExport[] {
  const ordered = oldestFirst(runs);
  const byScenario = new Map<string, RunSummary[]>();
  for (const r of ordered) {
    const list = byScenario.get(r.scenario.key);
    if (list) list.push(r);
    else byScenario.set(r.scenario.key, [r]);
  }
  return [
    {
      path: 'samples.csv',
      scenario: null,
      header: ALL_HEADER,
      runs: ordered,
      cells: (r, s) => [
        r.id,
        r.source,
        r.scenario.key,
        r.hardware.fingerprint,
        s.variant,
        s.repetition,
        s.metric,
        s.unit,
        s.value,
      ],
    },
    ...[...byScenario.keys()].sort().map((key): SampleExport => ({
      path: `samples/${key}.csv`,
      scenario: key,
      header: SCENARIO_HEADER,
      runs: byScenario.get(key) ?? [],
      cells: (r, s) => [r.id, r.source, r.hardware.fingerprint, s.variant, s.repetition, s.metric, s.unit, s.value],
    })),
  ];
}

const rowsOf = (e: SampleExport, runDetail: Map<string, RunDetail>, runs: readonly RunSummary[]) =>
  runs.flatMap((r) => (runDetail.get(r.id)?.samples ?? []).map((s) => e.cells(r, s)));

/** An export as one string (a plain `astro build`: the download's route). */
export const sampleExportCsv = (e: SampleExport, runDetail: Map<string, RunDetail>): string =>
  toCsv(e.header, rowsOf(e, runDetail, e.runs));

/**
 * How many of the export's runs the earlier build's file holds, when its rows can be appended to:
 * the runs an earlier build wrote are the export's first runs (no new run sorts before one of them)
 * and its file starts with the same header. Otherwise 0: the whole file is made.
 */
async function keptPrefix(e: SampleExport, earlier: string, builtRuns: ReadonlySet<string>): Promise<number> {
  let kept = e.runs.findIndex((r) => !builtRuns.has(r.id));
  if (kept === -1) kept = e.runs.length;
  if (kept === 0 || e.runs.slice(kept).some((r) => builtRuns.has(r.id))) return 0;
  const head = Buffer.from(toCsv(e.header, []));
  const start = Buffer.alloc(head.length);
  const file = await open(earlier).catch(() => null);
  if (!file) return 0;
  try {
    const { bytesRead } = await file.read(start, 0, head.length, 0);
    return bytesRead === head.length && start.equals(head) ? kept : 0;
  } finally {
    await file.close();
  }
}

/** Large writes: the file goes out between the build's other (synchronous) work, a chunk per turn. */
const CHUNK = 4 * 1024 * 1024;

/**
 * Writes one export to `dir`/downloads/<path>: the earlier build's file copied (a reflink where the
 * file system has them) and the new runs' rows appended, or the whole file; 250 runs' rows at a
 * time. Returns its size in bytes.
 */
async function writeExport(dir: string, e: SampleExport, data: SamplesData): Promise<number> {
  const path = join(dir, 'downloads', e.path);
  const earlier = data.config.builtSite ? join(data.config.builtSite, 'downloads', e.path) : null;
  const kept = earlier && data.builtRuns.size > 0 ? await keptPrefix(e, earlier, data.builtRuns) : 0;
  await mkdir(dirname(path), { recursive: true });
  const head = toCsv(e.header, []);
  let bytes = 0;
  if (earlier && kept > 0) {
    await copyFile(earlier, path, constants.COPYFILE_FICLONE);
    bytes = (await stat(path)).size;
  }
  const out = createWriteStream(path, { flags: kept > 0 ? 'a' : 'w', highWaterMark: CHUNK });
  const write = async (chunk: string) => {
    bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  };
  try {
    if (kept === 0) await write(head);
    for (let i = kept; i < e.runs.length; i += 250)
      await write(toCsv(e.header, rowsOf(e, data.runDetail, e.runs.slice(i, i + 250))).slice(head.length));
  } finally {
    out.end();
  }
  await finished(out);
  return bytes;
}

/** Writes every sample export (sampleExports) under `dir`/downloads; their sizes in bytes by path. */
export async function writeSampleExports(dir: string, data: SamplesData): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const e of sampleExports(data.runs)) sizes.set(e.path, await writeExport(dir, e, data));
  return sizes;
}
