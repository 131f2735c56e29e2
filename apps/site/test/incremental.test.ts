/**
 * Incremental builds (scripts/build.ts): after new runs arrive, a rebuild over the earlier
 * output keeps the pages of the runs it already holds, reads only the new runs' samples (the kept
 * runs' comparison inputs are in the earlier output) and gives the same site as a full build of
 * the same data — every new run page, every aggregate page and the kept inputs alike; the sample
 * exports grow by appending the new runs' rows (oldest run first), unless a run arrived late.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestResultsDb } from './fresh-db.ts';
import { receiveFirst } from './late-run.ts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { buildSiteInto } from '../scripts/build.ts';
import { envWithoutDataSource } from '../src/lib/env.ts';
import { INPUTS_FILE, MANIFEST_FILE } from '../src/lib/built-runs.ts';
import type { RunSummary } from '@tunelab/contracts';
import { buildSite } from './build.ts';
import { sampleRun, SCENARIOS_DIR, type MachineSpec } from './seed.ts';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tunelab-site-incremental-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const MACHINES: MachineSpec[] = [
  { id: 'a', cores: 4, memoryGb: 16, disk: 'ssd' },
  { id: 'b', cores: 8, memoryGb: 32, disk: 'nvme' },
  { id: 'c', cores: 2, memoryGb: 8, disk: 'hdd' },
];

async function ingest(dataDir: string, runs: [MachineSpec, number][]) {
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    for (const [machine, n] of runs) {
      const submission = sampleRun(machine, n);
      await ingestDocument(db, submission, `inc-${machine.id}-${n}`);
    }
  } finally {
    await db.close();
  }
}

async function files(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The sample exports under downloads/ (samples.csv, samples/<scenario>.csv), bytes by path. */
async function sampleFiles(site: string): Promise<Map<string, Buffer>> {
  const paths = (await files(join(site, 'downloads'))).filter((f) => f === 'samples.csv' || f.startsWith('samples/'));
  expect(paths.length).toBeGreaterThanOrEqual(2);
  return new Map(await Promise.all(paths.map(async (f) => [f, await readFile(join(site, 'downloads', f))] as const)));
}

/** Only the build time differs between two builds of the same data. */
const withoutBuildTime = (text: string) =>
  text.replace(/Built \d{4}-\d\d-\d\d \d\d:\d\d UTC/g, 'Built <time> UTC').replace(/<lastmod>[^<]*</g, '<lastmod><');

it('keeps built run pages, renders the new ones and the aggregate pages, and equals a full build', async () => {
  const dataDir = join(work, 'db');
  const env = { ...envWithoutDataSource(), TUNELAB_DATA_DIR: dataDir, TUNELAB_SITE_URL: 'https://tunelab.example' };
  const db = await openTestResultsDb(dataDir);
  await db.migrate();
  await db.importPublished(SCENARIOS_DIR);
  await db.close();
  await ingest(dataDir, [
    [MACHINES[0]!, 0],
    [MACHINES[1]!, 0],
  ]);

  const site = join(work, 'site');
  const first = await buildSiteInto(site, { env, quiet: true });
  expect(first).toMatchObject({ code: 0, incremental: false });
  const keptRuns = (await readdir(join(site, 'runs'))).sort();
  expect(keptRuns.length).toBeGreaterThanOrEqual(2);
  const keptPages = new Map<string, string>();
  for (const id of keptRuns) keptPages.set(id, await readFile(join(site, 'runs', id, 'index.html'), 'utf8'));
  const samplesBefore = await sampleFiles(site);

  // A new run on a known machine and one on a new machine.
  await ingest(dataDir, [
    [MACHINES[0]!, 1],
    [MACHINES[2]!, 0],
  ]);
  const second = await buildSiteInto(site, { env, quiet: true });
  expect(second).toMatchObject({ code: 0, incremental: true, newRuns: 2, keptRuns: keptRuns.length });
  // The comparisons and answers came from the kept runs' inputs and the new runs' samples only.
  expect(second.notes.join('\n')).toMatch(/samples \(new runs\) \d+ ms/);
  // Kept pages were not rendered again: byte for byte what the first build wrote.
  for (const [id, html] of keptPages) expect(await readFile(join(site, 'runs', id, 'index.html'), 'utf8')).toBe(html);
  // The sample exports grew by appending: each starts with the earlier build's bytes.
  const samplesAfter = await sampleFiles(site);
  expect([...samplesAfter.keys()]).toEqual(expect.arrayContaining([...samplesBefore.keys()]));
  for (const [path, was] of samplesBefore)
    expect(samplesAfter.get(path)?.subarray(0, was.length).equals(was), path).toBe(true);

  const full = join(work, 'full');
  expect(await buildSiteInto(full, { env, full: true, quiet: true })).toMatchObject({ code: 0, incremental: false });
  const got = await files(site);
  expect(got).toEqual(await files(full));
  expect(got.filter((f) => f.startsWith('runs/') && f.endsWith('/index.html'))).toHaveLength(keptRuns.length + 2);
  for (const f of got) {
    const [a, b] = await Promise.all([readFile(join(site, f), 'utf8'), readFile(join(full, f), 'utf8')]);
    expect(withoutBuildTime(a), f).toBe(withoutBuildTime(b));
  }
  // A plain `astro build` (no build script: every run's run.json and samples.csv rendered by
  // their routes, nothing kept) gives the same files.
  const plain = join(work, 'plain');
  const built = await buildSite(plain, env);
  expect(built.code, built.output.slice(-2000)).toBe(0);
  expect(await files(plain)).toEqual(got.filter((f) => f !== MANIFEST_FILE && f !== INPUTS_FILE));
  for (const f of await files(plain)) {
    const [a, b] = await Promise.all([readFile(join(site, f), 'utf8'), readFile(join(plain, f), 'utf8')]);
    expect(withoutBuildTime(a), f).toBe(withoutBuildTime(b));
  }
  const manifest = JSON.parse(await readFile(join(site, MANIFEST_FILE), 'utf8')) as { runs: string[] };
  expect(manifest.runs).toEqual((await readdir(join(full, 'runs'))).sort());
  // Four site builds: on a busy machine that exceeds the site tests' default timeout.
}, 600_000);

it('over the output of another (or a reset) database, rebuilds every page and keeps no stale run page', async () => {
  const before = join(work, 'db-before');
  const after = join(work, 'db-after');
  await ingest(before, [[MACHINES[0]!, 10]]);
  await ingest(after, [[MACHINES[1]!, 11]]);
  const site = join(work, 'site-reset');
  const env = (dataDir: string) => ({ ...envWithoutDataSource(), TUNELAB_DATA_DIR: dataDir });
  expect(await buildSiteInto(site, { env: env(before), quiet: true })).toMatchObject({ code: 0, incremental: false });
  const old = await readdir(join(site, 'runs'));
  expect(old).toHaveLength(1);
  const again = await buildSiteInto(site, { env: env(after), quiet: true });
  expect(again).toMatchObject({ code: 0, incremental: false, newRuns: 1 });
  const now = await readdir(join(site, 'runs'));
  expect(now).toHaveLength(1);
  expect(now).not.toEqual(old);
}, 400_000);

it('a run that arrives late (received before runs the earlier build holds) still gives the full build’s files', async () => {
  const dataDir = join(work, 'db-late');
  const env = { ...envWithoutDataSource(), TUNELAB_DATA_DIR: dataDir, TUNELAB_SITE_URL: 'https://tunelab.example' };
  await ingest(dataDir, [
    [MACHINES[0]!, 20],
    [MACHINES[1]!, 20],
  ]);
  const site = join(work, 'site-late');
  expect(await buildSiteInto(site, { env, quiet: true })).toMatchObject({ code: 0, incremental: false });
  await ingest(dataDir, [[MACHINES[2]!, 20]]);
  // Received before every run of the first build: its rows belong before theirs in samples.csv.
  await receiveFirst(dataDir, 'inc-c-20');
  expect(await buildSiteInto(site, { env, quiet: true })).toMatchObject({ code: 0, incremental: true, newRuns: 1 });
  const full = join(work, 'full-late');
  expect(await buildSiteInto(full, { env, full: true, quiet: true })).toMatchObject({ code: 0, incremental: false });
  const got = await files(site);
  expect(got).toEqual(await files(full));
  for (const f of got) {
    const [a, b] = await Promise.all([readFile(join(site, f), 'utf8'), readFile(join(full, f), 'utf8')]);
    expect(withoutBuildTime(a), f).toBe(withoutBuildTime(b));
  }
  const csv = (await readFile(join(site, 'downloads', 'samples.csv'), 'utf8')).trimEnd().split('\r\n');
  const runs = JSON.parse(await readFile(join(site, 'downloads', 'runs.json'), 'utf8')) as RunSummary[];
  const late = runs.reduce((a, b) => (Date.parse(b.receivedAt) < Date.parse(a.receivedAt) ? b : a));
  expect(csv[1]?.split(',')[0], 'the late run’s rows come first').toBe(late.id);
}, 400_000);
