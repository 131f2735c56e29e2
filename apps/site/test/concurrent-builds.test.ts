/**
 * Two `astro build`s of this site at the same time — a site test's (test/build.ts) and an
 * e2e test's (`npm run build`, scripts/build.ts), each into its own temporary outDir — give two
 * complete, equal sites. Astro keeps a build's prerender chunks under `.astro/.prerender/` of its
 * working directory when the outDir lies outside it and deletes them when it is done; builds that
 * shared apps/site as working directory wrote, read and deleted each other's chunks, which is why
 * turbo ran the e2e tests only after the site's.
 */
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestResultsDb } from './fresh-db.ts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { buildSiteInto } from '../scripts/build.ts';
import { envWithoutDataSource } from '../src/lib/env.ts';
import { INPUTS_FILE, MANIFEST_FILE } from '../src/lib/built-runs.ts';
import { buildSite } from './build.ts';
import { sampleRun, type MachineSpec } from './seed.ts';

const MACHINES: MachineSpec[] = [
  { id: 'a', cores: 4, memoryGb: 16, disk: 'ssd' },
  { id: 'b', cores: 8, memoryGb: 32, disk: 'nvme' },
];

let work: string;
let dataDir: string;
let copyDir: string;
let runIds: string[];
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tunelab-site-concurrent-'));
  dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    runIds = [];
    for (const m of MACHINES)
      for (const n of [0, 1]) runIds.push((await ingestDocument(db, sampleRun(m, n), `conc-${m.id}-${n}`)).run.id);
  } finally {
    await db.close();
  }
  // A build holds its embedded database for itself: the second reads a copy of the same data (same run ids).
  copyDir = join(work, 'db-copy');
  await cp(dataDir, copyDir, { recursive: true });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function files(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** Only the build time differs between two builds of the same data. */
const withoutBuildTime = (text: string) =>
  text.replace(/Built \d{4}-\d\d-\d\d \d\d:\d\d UTC/g, 'Built <time> UTC').replace(/<lastmod>[^<]*</g, '<lastmod><');

it('two builds at once, into two temporary outDirs, both give the whole site', async () => {
  const siteUrl = { TUNELAB_SITE_URL: 'https://tunelab.example' };
  const plain = join(work, 'plain');
  const script = join(work, 'script');
  const [a, b] = await Promise.all([
    buildSite(plain, { ...siteUrl, TUNELAB_DATA_DIR: dataDir }),
    buildSiteInto(script, {
      env: { ...envWithoutDataSource(), ...siteUrl, TUNELAB_DATA_DIR: copyDir },
      full: true,
      quiet: true,
    }),
  ]);
  expect(a.code, a.output.slice(-3000)).toBe(0);
  expect(b.code).toBe(0);

  const got = await files(plain);
  // scripts/build.ts adds its manifest and the kept comparison inputs; every page is the same.
  expect((await files(script)).filter((f) => f !== MANIFEST_FILE && f !== INPUTS_FILE)).toEqual(got);
  // Complete: every run's page and every page the sitemap lists are there.
  expect(await readdir(join(plain, 'runs'))).toEqual(expect.arrayContaining(runIds));
  const sitemap = await readFile(join(plain, 'sitemap.xml'), 'utf8');
  const listed = [...sitemap.matchAll(/<loc>https:\/\/tunelab\.example\/([^<]*)<\/loc>/g)].map((m) => m[1]!);
  expect(listed.length).toBeGreaterThan(runIds.length);
  for (const path of listed) expect(got, path).toContain(join(path, 'index.html'));
  const pages = got.filter((f) => f.endsWith('.html'));
  for (const f of got) {
    const [x, y] = await Promise.all([readFile(join(plain, f), 'utf8'), readFile(join(script, f), 'utf8')]);
    expect(withoutBuildTime(x), f).toBe(withoutBuildTime(y));
    if (pages.includes(f)) expect(x.trimEnd(), f).toMatch(/^<!DOCTYPE html>[\s\S]*<\/html>$/i);
  }
}, 600_000);
