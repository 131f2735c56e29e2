/**
 * `npm run bench:site` — not a test. Builds the site over synthetic results databases with 10,
 * 100 and 1,000 hardware profiles (one measured run each, plus the published articles) and
 * prints the build time and the time per page. The data is loaded once per build, so the time
 * per page should stay flat as the data grows.
 */
import { readdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openResultsDb } from '@tunelab/results-db';
import { buildSite } from '../test/build.ts';
import { sampleRun, SCENARIOS_DIR, type MachineSpec } from '../test/seed.ts';
import { loadBenchEnv } from './env.ts';

const SIZES = loadBenchEnv().BENCH_SIZES;
const CORES = [2, 4, 8, 16, 32];
const MEMORY = [8, 16, 32, 64, 128];
const DISKS = ['ssd', 'nvme', 'hdd'] as const;

async function countPages(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && e.name === 'index.html') n++;
  return n;
}

const work = await mkdtemp(join(tmpdir(), 'tunelab-site-bench-'));
const rows: {
  profiles: number;
  runs: number;
  pages: number;
  seedS: number;
  buildS: number;
  loadS: number;
  msPerPage: number;
}[] = [];
try {
  for (const size of SIZES) {
    const dataDir = join(work, `db-${size}`);
    const seedStart = performance.now();
    const db = await openResultsDb(undefined, { dataDir });
    try {
      await db.migrate();
      await db.importPublished(SCENARIOS_DIR);
      for (let i = 0; i < size; i++) {
        const machine: MachineSpec = {
          id: String(i),
          cores: CORES[i % CORES.length]!,
          memoryGb: MEMORY[Math.floor(i / CORES.length) % MEMORY.length]!,
          disk: DISKS[Math.floor(i / (CORES.length * MEMORY.length)) % DISKS.length]!,
        };
        const submission = sampleRun(machine, 0);
        await db.ingestRun({ submission, document: submission, idempotencyKey: `bench-${size}-${i}`, runnerId: null });
        if ((i + 1) % 250 === 0) process.stdout.write(`  seeded ${i + 1}/${size} runs\r`);
      }
    } finally {
      await db.close();
    }
    const seedS = (performance.now() - seedStart) / 1000;
    const out = join(work, `dist-${size}`);
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    if (build.code !== 0) throw new Error(`build over ${size} profiles failed:\n${build.output.slice(-3000)}`);
    const pages = await countPages(out);
    const loadMs = Number(/\[tunelab\] loaded .* in (\d+) ms/.exec(build.output)?.[1] ?? NaN);
    rows.push({
      profiles: size,
      runs: size + 4,
      pages,
      seedS,
      buildS: build.ms / 1000,
      loadS: loadMs / 1000,
      msPerPage: build.ms / pages,
    });
    console.log(
      `${size} profiles: ${pages} pages in ${(build.ms / 1000).toFixed(1)} s (data load ${(loadMs / 1000).toFixed(1)} s) = ${(build.ms / pages).toFixed(1)} ms/page (seeding took ${seedS.toFixed(1)} s)`,
    );
  }
  // Astro's start-up is a fixed cost; the marginal time per page (between sizes) shows whether
  // rendering a page gets slower as the data grows.
  console.log(
    '\nhardware profiles | runs | HTML pages | build (s) | of which data load (s) | ms per page | marginal ms per page',
  );
  console.log('---: | ---: | ---: | ---: | ---: | ---: | ---:');
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    const marginal = prev ? (((r.buildS - prev.buildS) * 1000) / (r.pages - prev.pages)).toFixed(1) : '—';
    console.log(
      `${r.profiles} | ${r.runs} | ${r.pages} | ${r.buildS.toFixed(1)} | ${r.loadS.toFixed(1)} | ${r.msPerPage.toFixed(1)} | ${marginal}`,
    );
  });
} finally {
  await rm(work, { recursive: true, force: true });
}
