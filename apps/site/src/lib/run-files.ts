/**
 * A run page's two downloads, `run.json` (its RunDetail) and `samples.csv`, made in one place for
 * the Astro routes and for the data layer. A build run by scripts/build.ts has the data layer write
 * them for every new run in bulk (a directory and two files per run, no page render each): the
 * routes then render none, and only `index.html` goes through Astro.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toCsv, type RunDetail } from '@tunelab/contracts';
import { FILES_AT_ONCE } from './built-runs.ts';

export const runJson = (run: RunDetail | undefined) => `${JSON.stringify(run, null, 2)}\n`;

export const runSamplesCsv = (run: RunDetail | undefined) =>
  toCsv(
    ['variant', 'repetition', 'metric', 'unit', 'value'],
    (run?.samples ?? []).map((s) => [s.variant, s.repetition, s.metric, s.unit, s.value]),
  );

/** Writes each run's `runs/<id>/run.json` and `samples.csv` under `dir`, a few runs at a time. */
export async function writeRunFiles(dir: string, runs: readonly RunDetail[]): Promise<void> {
  await FILES_AT_ONCE().map(runs, async (run) => {
    const at = join(dir, 'runs', run.id);
    await mkdir(at, { recursive: true });
    await Promise.all([
      writeFile(join(at, 'run.json'), runJson(run)),
      writeFile(join(at, 'samples.csv'), runSamplesCsv(run)),
    ]);
  });
}
