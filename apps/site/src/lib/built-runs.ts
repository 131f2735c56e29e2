/**
 * The record of an earlier build kept in its output directory, so that a rebuild renders only
 * what changed: runs are immutable, so a run's pages (`/runs/<id>/`, `run.json`, `samples.csv`),
 * once written, stay as they are. The manifest lists the runs whose pages the directory holds
 * and the fingerprint of everything that renders them (scripts/build.ts); a run's `run.json` is
 * its RunDetail, which aggregate pages read back instead of querying the data source again.
 */
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { RunDetail } from '@tunelab/contracts';
import { packInputs, unpackInputs, type ComparisonInputs } from '@tunelab/results-db';

export const MANIFEST_FILE = '.tunelab-build.json';

/**
 * The comparison inputs (samples) of the runs a build covered (results-db's comparison-inputs.ts):
 * the next build reads only new runs' from the database and computes every comparison and answer
 * from these and those, as a full build computes them from the database's.
 */
export const INPUTS_FILE = '.tunelab-inputs.json';

export const BuildManifest = z.strictObject({
  /** sha256 over the site's code, its dependencies, the scenario folders and the settings that shape a page. */
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  /** Ids of the runs whose pages are in the directory. */
  runs: z.array(z.string().regex(/^[0-9a-f-]{1,100}$/)),
});
export type BuildManifest = z.infer<typeof BuildManifest>;

/** The manifest of the build in `dir`, or null when there is none (or it is not one this code wrote). */
export async function readManifest(dir: string): Promise<BuildManifest | null> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = BuildManifest.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Built runs' details, as their `run.json` pages hold them (written from the validated records), in
 * the order asked. Read one after another with readFileSync: the build has nothing else to do
 * meanwhile, and for 10,000 small files it takes half the time of promise-based reads (0.5 against
 * 0.9–1.1 s, 16 or 64 at a time), which pay a thread-pool round trip for each open, stat, read
 * and close.
 */
export function readBuiltRuns(dir: string, ids: readonly string[]): RunDetail[] {
  return ids.map((id) => JSON.parse(readFileSync(join(dir, 'runs', id, 'run.json'), 'utf8')) as RunDetail);
}
/**
 * The comparison inputs an earlier build in `dir` kept, when they cover exactly `runs` (the runs
 * it built) and hold `metrics`; null otherwise (none kept, another set, a file this code did not
 * write): the caller then reads every run's from the database.
 */
export async function readKeptInputs(
  dir: string,
  runs: ReadonlySet<string>,
  metrics: readonly string[],
): Promise<ComparisonInputs | null> {
  let text: string;
  try {
    text = await readFile(join(dir, INPUTS_FILE), 'utf8');
  } catch {
    return null;
  }
  let kept;
  try {
    kept = unpackInputs(text);
  } catch {
    return null;
  }
  const held = [...kept.inputs.rows.keys()].sort();
  const wanted = [...new Set(metrics)].sort();
  if (held.length !== wanted.length || held.some((m, i) => m !== wanted[i])) return null;
  if (kept.covers.length !== runs.size || kept.covers.some((id) => !runs.has(id))) return null;
  return kept.inputs;
}

/** Leaves this build's comparison inputs in its output `dir`, covering `runs`. */
export async function writeInputs(dir: string, inputs: ComparisonInputs, runs: readonly string[]): Promise<void> {
  await writeFile(join(dir, INPUTS_FILE), packInputs(inputs, runs));
}
