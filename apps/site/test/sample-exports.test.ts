/**
 * The sample exports (`downloads/samples.csv` and `downloads/samples/<scenario>.csv`, run-files.ts)
 * as the data layer writes them for a scripts/build.ts build, over the embedded results database:
 * oldest run first, so a later build copies the earlier build's file and appends the new runs'
 * rows; a run received before a run the earlier build holds makes the whole file again. Each
 * "build" here is the data load alone (loadSiteData with TUNELAB_BUILD_OUT and TUNELAB_BUILT_SITE,
 * the manifest written as scripts/build.ts writes it), into temporary directories.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ingestDocument } from '@tunelab/results-db/testing';
import type { RunSubmission } from '@tunelab/contracts';
import { openTestResultsDb } from './fresh-db.ts';
import { receiveFirst } from './late-run.ts';
import { envWithoutDataSource, readSiteConfig } from '../src/lib/env.ts';
import { MANIFEST_FILE } from '../src/lib/built-runs.ts';
import { loadSiteData, type SiteData } from '../src/lib/load.ts';
import { sampleRun, sweepAndSeriesRuns, type MachineSpec } from './seed.ts';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tunelab-site-sample-exports-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const A: MachineSpec = { id: 'a', cores: 4, memoryGb: 16, disk: 'ssd' };
const B: MachineSpec = { id: 'b', cores: 8, memoryGb: 32, disk: 'nvme' };

async function ingest(dataDir: string, runs: [RunSubmission, string][]) {
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    for (const [submission, key] of runs) await ingestDocument(db, submission, key);
  } finally {
    await db.close();
  }
}

/** The data layer's part of a build into `out`, over the build in `built` when given (its manifest written here). */
async function load(dataDir: string, out: string, built?: string): Promise<SiteData> {
  const env = { ...envWithoutDataSource(), TUNELAB_DATA_DIR: dataDir, TUNELAB_BUILD_OUT: out };
  const data = await loadSiteData(readSiteConfig(built ? { ...env, TUNELAB_BUILT_SITE: built } : env));
  const manifest = { fingerprint: '0'.repeat(64), runs: data.runs.map((r) => r.id).sort() };
  await writeFile(join(out, MANIFEST_FILE), `${JSON.stringify(manifest)}\n`);
  return data;
}

/** Every sample export's bytes by its path under downloads/. */
async function exports(out: string): Promise<Map<string, Buffer>> {
  const dir = join(out, 'downloads');
  const files = new Map<string, Buffer>([['samples.csv', await readFile(join(dir, 'samples.csv'))]]);
  for (const f of (await readdir(join(dir, 'samples'))).sort())
    files.set(`samples/${f}`, await readFile(join(dir, 'samples', f)));
  return files;
}

const rowsOf = (csv: Buffer | string) => csv.toString().split('\r\n').slice(1, -1);
const runOf = (row: string) => row.slice(0, row.indexOf(','));

it('a build with a new run appends exactly its rows to each file that has them, the earlier bytes unchanged', async () => {
  const dataDir = join(work, 'db-append');
  await ingest(dataDir, [
    [sampleRun(A, 0), 'append-a-0'],
    [sampleRun(B, 0), 'append-b-0'],
    ...sweepAndSeriesRuns(A).map((r, i): [RunSubmission, string] => [r, `append-sweep-${i}`]),
  ]);
  const first = join(work, 'append-1');
  const data1 = await load(dataDir, first);
  const before = await exports(first);
  const scenarios = [...new Set(data1.runs.map((r) => r.scenario.key))].sort();
  expect([...before.keys()]).toEqual(['samples.csv', ...scenarios.map((k) => `samples/${k}.csv`)]);
  expect(scenarios.length).toBeGreaterThanOrEqual(3);
  // Oldest run first: received order, ties by id.
  const order = [...data1.runs]
    .sort((a, b) => Date.parse(a.receivedAt) - Date.parse(b.receivedAt) || (a.id < b.id ? -1 : 1))
    .map((r) => r.id);
  expect([...new Set(rowsOf(before.get('samples.csv') ?? '').map(runOf))]).toEqual(order);
  // The sizes the downloads page lists are the files'.
  for (const [path, bytes] of before) expect(data1.sampleSizes?.get(path), path).toBe(bytes.length);

  await ingest(dataDir, [[sampleRun(A, 1), 'append-a-1']]);
  const second = join(work, 'append-2');
  const data2 = await load(dataDir, second, first);
  const added = data2.runs.find((r) => !data1.runs.some((x) => x.id === r.id));
  expect(added).toBeDefined();
  const after = await exports(second);
  expect([...after.keys()]).toEqual([...before.keys()]);
  for (const [path, was] of before) {
    const now = after.get(path) ?? Buffer.alloc(0);
    expect(now.subarray(0, was.length).equals(was), `${path}: the earlier bytes come first`).toBe(true);
    const appended = rowsOf(`\r\n${now.subarray(was.length).toString()}`);
    const expected = path === 'samples.csv' || path === `samples/${added?.scenario.key}.csv` ? added?.samples : 0;
    expect(appended, path).toHaveLength(expected ?? -1);
    expect(new Set(appended.map(runOf)), path).toEqual(new Set(expected ? [added?.id] : []));
    expect(data2.sampleSizes?.get(path), path).toBe(now.length);
  }
  // A full build of the same data writes the same bytes.
  const full = join(work, 'append-full');
  await load(dataDir, full);
  expect(await exports(full)).toEqual(after);

  // The earlier file's rows are copied, not made again: what the earlier build's file holds stays.
  const marked = Buffer.concat([before.get('samples.csv') ?? Buffer.alloc(0), Buffer.from('marker\r\n')]);
  await writeFile(join(first, 'downloads', 'samples.csv'), marked);
  const third = join(work, 'append-3');
  await load(dataDir, third, first);
  const copied = await readFile(join(third, 'downloads', 'samples.csv'));
  expect(copied.subarray(0, marked.length).equals(marked)).toBe(true);
}, 300_000);

it('a run received before a run the earlier build holds, or another header, makes the whole file again', async () => {
  const dataDir = join(work, 'db-late');
  await ingest(dataDir, [
    [sampleRun(A, 10), 'late-a-10'],
    [sampleRun(B, 10), 'late-b-10'],
  ]);
  const first = join(work, 'late-1');
  await load(dataDir, first);
  // Marked files: a file made again loses the marker, a file appended to keeps it.
  const files = await exports(first);
  for (const [path, bytes] of files)
    await writeFile(join(first, 'downloads', path), Buffer.concat([bytes, Buffer.from('marker\r\n')]));

  await ingest(dataDir, [[sampleRun(A, 11), 'late-a-11']]);
  await receiveFirst(dataDir, 'late-a-11');
  const second = join(work, 'late-2');
  const data = await load(dataDir, second, first);
  const late = data.runs.find((r) => r.receivedAt === data.runs.map((x) => x.receivedAt).sort()[0]);
  const after = await exports(second);
  for (const [path, bytes] of after) expect(bytes.toString(), path).not.toContain('marker');
  expect(runOf(rowsOf(after.get('samples.csv') ?? '')[0] ?? ''), 'the late run’s rows come first').toBe(late?.id);
  const full = join(work, 'late-full');
  await load(dataDir, full);
  expect(await exports(full)).toEqual(after);

  // An earlier file with another header (an older column set) is made again too.
  await ingest(dataDir, [[sampleRun(B, 11), 'late-b-11']]);
  const old = await readFile(join(full, 'downloads', 'samples.csv'));
  const header = Buffer.from('run,scenario,value\r\n');
  await writeFile(
    join(full, 'downloads', 'samples.csv'),
    Buffer.concat([header, old.subarray(old.indexOf('\r\n') + 2)]),
  );
  const third = join(work, 'late-3');
  await load(dataDir, third, full);
  const fullAgain = join(work, 'late-full-2');
  await load(dataDir, fullAgain);
  expect(await exports(third)).toEqual(await exports(fullAgain));
}, 300_000);
