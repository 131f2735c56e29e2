/**
 * Files a build writes in bulk rather than through a page render each. A run page's two downloads,
 * `run.json` (its RunDetail) and `samples.csv`, are made in one place for the Astro routes and for
 * the data layer: a build run by scripts/build.ts has the data layer write them for every new run
 * (a directory and two files per run), the routes then render none, and only `index.html` goes
 * through Astro. The all-samples download, `downloads/samples.csv`, is streamed to its file the
 * same way: it holds every sample of every run (a million rows at 10,000 runs), which through a
 * route would be made as one string, copied into a response and encoded again.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import { toCsv, type RunDetail, type RunSummary } from '@tunelab/contracts';
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

/** What the samples' file is written from (the site data's runs, their details, the runs kept, the config). */
type SamplesData = {
  runs: RunSummary[];
  runDetail: Map<string, RunDetail>;
  builtRuns: ReadonlySet<string>;
  config: SiteConfig;
};

const SAMPLE_HEADER = ['run', 'source', 'scenario', 'hardware', 'variant', 'repetition', 'metric', 'unit', 'value'];
const SAMPLES_HEAD = toCsv(SAMPLE_HEADER, []);
const samplesCsvPath = (dir: string) => join(dir, 'downloads', 'samples.csv');

const sampleRows = (data: SamplesData, runs: readonly RunSummary[]) =>
  runs.flatMap((r) =>
    (data.runDetail.get(r.id)?.samples ?? []).map((s) => [
      r.id,
      r.source,
      r.scenario.key,
      r.hardware.fingerprint,
      s.variant,
      s.repetition,
      s.metric,
      s.unit,
      s.value,
    ]),
  );

/**
 * The runs whose rows the all-samples file must make, newest run first, and the earlier build's
 * file whose rows follow them. Runs are immutable: when an incremental build's new runs are the
 * newest (as they are unless a run arrived late), their rows go before the rows of the earlier
 * build's file, which are not made again; otherwise the whole file is made.
 */
async function samplesPlan(data: SamplesData): Promise<{ runs: readonly RunSummary[]; earlier: string | null }> {
  const fresh = data.runs.length - data.builtRuns.size;
  const built = data.config.builtSite;
  if (built && data.builtRuns.size > 0 && data.runs.slice(fresh).every((r) => data.builtRuns.has(r.id))) {
    const head = Buffer.from(SAMPLES_HEAD);
    const start = Buffer.alloc(head.length);
    const file = await open(samplesCsvPath(built)).catch(() => null);
    if (file) {
      try {
        const { bytesRead } = await file.read(start, 0, head.length, 0);
        if (bytesRead === head.length && start.equals(head))
          return { runs: data.runs.slice(0, fresh), earlier: samplesCsvPath(built) };
      } finally {
        await file.close();
      }
    }
  }
  return { runs: data.runs, earlier: null };
}

/** Every sample of every run, newest run first, as one string (a plain `astro build`: the download's route). */
export const samplesCsv = (data: SamplesData): string => toCsv(SAMPLE_HEADER, sampleRows(data, data.runs));

/** Large chunks: the copy goes on between the build's other (synchronous) work, a chunk per turn. */
const COPY_CHUNK = 4 * 1024 * 1024;

/** Streams the same file to `dir`/downloads/samples.csv, 250 runs at a time; returns its size in bytes. */
export async function writeSamplesCsv(dir: string, data: SamplesData): Promise<number> {
  const { runs, earlier } = await samplesPlan(data);
  await mkdir(join(dir, 'downloads'), { recursive: true });
  const out = createWriteStream(samplesCsvPath(dir), { highWaterMark: COPY_CHUNK });
  let bytes = 0;
  const write = async (chunk: string | Buffer) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  };
  try {
    await write(SAMPLES_HEAD);
    for (let i = 0; i < runs.length; i += 250)
      await write(toCsv(SAMPLE_HEADER, sampleRows(data, runs.slice(i, i + 250))).slice(SAMPLES_HEAD.length));
    if (earlier)
      for await (const c of createReadStream(earlier, {
        start: Buffer.byteLength(SAMPLES_HEAD),
        highWaterMark: COPY_CHUNK,
      }))
        await write(c as Buffer);
  } finally {
    out.end();
  }
  await finished(out);
  return bytes;
}
