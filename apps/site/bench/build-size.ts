/**
 * `npm run bench:site` — not a test. By default two parts (BENCH_PARTS, default weight,fleet):
 *
 * - weight: the site over the answers-first fixture, and the gzipped bytes of the home and
 *   scenario pages per answered group;
 * - fleet: through the site's own build script (scripts/build.ts), a full build over
 *   BENCH_FLEET_RUNS runs (2,000; the figures are at 10,000) on BENCH_FLEET_MACHINES
 *   machines (100), then BENCH_NEW_RUNS (100) new runs and an incremental rebuild of that output.
 *   It prints `incremental ÷ full = R` and the full build's marginal ms per run page: (full −
 *   incremental) ÷ (runs rendered by the full build − runs rendered by the incremental one), as
 *   both render the same aggregate pages.
 *
 * When named, sizes: the site over synthetic results databases with BENCH_SIZES (10, 100, 1,000)
 * hardware profiles (one measured run each, plus the published articles), the build time and the
 * time per page, which should stay flat as the data grows.
 *
 * A progress line on stderr every 5 s says which part and step is running; the last lines say
 * what was measured.
 */
import { readFileSync } from 'node:fs';
import { readdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { progressNotes } from '@tunelab/env/bench';
import { openResultsDb } from '@tunelab/results-db';
import { ingestDocument } from '@tunelab/results-db/testing';
import { buildSite } from '../test/build.ts';
import { buildSiteInto } from '../scripts/build.ts';
import { envWithoutDataSource } from '../src/lib/env.ts';
import { sampleRun, SCENARIOS_DIR, type MachineSpec } from '../test/seed.ts';
import { loadBenchEnv } from './env.ts';
import { pageWeights, printSubPages, printWeights, subPageWeights } from './page-weight.ts';
import { seedAnswersFixture } from '../test/answers-fixture.ts';
import { CORES, DISKS, ingestFleet, MEMORY, seedFleet } from './seed-fleet.ts';

const BENCH = loadBenchEnv();
const SIZES = BENCH.BENCH_SIZES;

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
/** The progress line, from a worker thread: the embedded database and the builds block this one for seconds. */
const progress = progressNotes('site');
const measured: string[] = [];
try {
  if (BENCH.BENCH_PARTS.has('weight')) await pageWeight();
  // BENCH_SIZES=0 leaves the sweep out (only the fleet figures).
  for (const size of BENCH.BENCH_PARTS.has('sizes') ? SIZES.filter((n) => n > 0) : []) {
    const dataDir = join(work, `db-${size}`);
    progress.set(`sizes: seeding ${size} hardware profiles`);
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
        await ingestDocument(db, submission, `bench-${size}-${i}`);
        if ((i + 1) % 250 === 0) process.stdout.write(`  seeded ${i + 1}/${size} runs\r`);
      }
    } finally {
      await db.close();
    }
    const seedS = (performance.now() - seedStart) / 1000;
    const out = join(work, `dist-${size}`);
    progress.set(`sizes: astro build over ${size} hardware profiles`);
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
  if (rows.length > 0) {
    console.log(
      '\nhardware profiles | runs | HTML pages | build (s) | of which data load (s) | ms per page | marginal ms per page',
    );
    console.log('---: | ---: | ---: | ---: | ---: | ---: | ---:');
  }
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    const marginal = prev ? (((r.buildS - prev.buildS) * 1000) / (r.pages - prev.pages)).toFixed(1) : '—';
    console.log(
      `${r.profiles} | ${r.runs} | ${r.pages} | ${r.buildS.toFixed(1)} | ${r.loadS.toFixed(1)} | ${r.msPerPage.toFixed(1)} | ${marginal}`,
    );
  });
  if (rows.length > 0)
    measured.push(
      `build time and ms per page over ${rows.map((r) => r.profiles).join(', ')} hardware profiles (sizes)`,
    );

  if (BENCH.BENCH_PARTS.has('fleet')) await fleetScale();
  console.log(`\nmeasured: ${measured.join('; ')}`);
} finally {
  progress.stop();
  await rm(work, { recursive: true, force: true });
}

/** Page weight over the answers-first fixture (every scenario's real run, three majors, two scales), and of an earlier build. */
async function pageWeight() {
  const dataDir = join(work, 'db-weight');
  progress.set('weight: seeding the answers fixture');
  const db = await openResultsDb(undefined, { dataDir });
  try {
    await seedAnswersFixture(db);
  } finally {
    await db.close();
  }
  const out = join(work, 'dist-weight');
  progress.set('weight: astro build over the answers fixture');
  const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
  if (build.code !== 0) throw new Error(`build over the page-weight fixture failed:\n${build.output.slice(-3000)}`);
  if (BENCH.BENCH_WEIGHT_BEFORE)
    printWeights(`page weight of ${BENCH.BENCH_WEIGHT_BEFORE} (before)`, await pageWeights(BENCH.BENCH_WEIGHT_BEFORE));
  printWeights('page weight over the answers-first fixture (this code)', await pageWeights(out));
  printSubPages('the pages one link below a scenario page (this code)', await subPageWeights(out));
  measured.push('gzipped bytes per answered group of the home and scenario pages over the answers fixture (weight)');
}

/**
 * CPU seconds (user + system) of this process's finished children, /proc/self/stat's cutime and
 * cstime in clock ticks (100 per second on Linux): a build's own CPU, whatever else the shared
 * machine runs, beside its wall time.
 */
function childCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

async function timedBuild(out: string, dataDir: string) {
  const cpuBefore = childCpuSeconds();
  const started = performance.now();
  const r = await buildSiteInto(out, {
    env: { ...envWithoutDataSource(), TUNELAB_DATA_DIR: dataDir, TUNELAB_SITE_URL: 'https://tunelab.example' },
    quiet: true,
  });
  if (r.code !== 0) throw new Error(`site build into ${out} failed (exit ${r.code})`);
  const loaded = r.notes.map((l) => /\] loaded .* in (\d+) ms \((.*)\)$/.exec(l)).find(Boolean);
  return {
    ...r,
    ms: performance.now() - started,
    cpuS: childCpuSeconds() - cpuBefore,
    loadMs: Number(loaded?.[1] ?? NaN),
    phases: loaded?.[2] ?? '',
  };
}

async function fleetScale() {
  const runs = BENCH.BENCH_FLEET_RUNS;
  const added = BENCH.BENCH_NEW_RUNS;
  const dataDir = join(work, 'db-fleet');
  const out = join(work, 'dist-fleet');
  const load = () =>
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`;
  console.log(
    `\nfleet scale: ${runs} runs on ${BENCH.BENCH_FLEET_MACHINES} machines, then ${added} new runs (${load()})`,
  );
  let t = performance.now();
  progress.set(`fleet: seeding ${runs} runs`);
  await seedFleet(dataDir, runs, BENCH.BENCH_FLEET_MACHINES);
  console.log(`seeded ${runs} runs in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  progress.set(`fleet: full build over ${runs} runs`);
  const full = await timedBuild(out, dataDir);
  const fullPages = await countPages(out);
  console.log(
    `full build: ${full.newRuns} run pages, ${fullPages} HTML pages in ${(full.ms / 1000).toFixed(1)} s, ${full.cpuS.toFixed(1)} s CPU (data load ${(full.loadMs / 1000).toFixed(1)} s: ${full.phases})`,
  );
  t = performance.now();
  const kept = BENCH.BENCH_FLEET_MACHINES * Math.ceil(runs / BENCH.BENCH_FLEET_MACHINES);
  progress.set(`fleet: ingesting ${added} new runs`);
  await ingestFleet(dataDir, kept, kept + added, BENCH.BENCH_FLEET_MACHINES);
  console.log(`seeded ${added} new runs in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  progress.set(`fleet: incremental build after ${added} new runs`);
  const inc = await timedBuild(out, dataDir);
  if (!inc.incremental) throw new Error('the rebuild was not incremental');
  console.log(
    `incremental build: ${inc.newRuns} new run pages rendered, ${inc.keptRuns} kept, in ${(inc.ms / 1000).toFixed(1)} s, ${inc.cpuS.toFixed(1)} s CPU (data load ${(inc.loadMs / 1000).toFixed(1)} s: ${inc.phases})`,
  );
  console.log(`(${load()})`);
  const marginal = (full.ms - inc.ms) / (full.newRuns - inc.newRuns);
  console.log(`\nfull build marginal ms per run page = ${marginal.toFixed(1)}  (aim ≤ 2)`);
  console.log(
    `(in CPU seconds of the builds themselves, less affected by the other work on a shared machine: ${(((full.cpuS - inc.cpuS) * 1000) / (full.newRuns - inc.newRuns)).toFixed(1)} ms per run page, incremental ÷ full = ${(inc.cpuS / full.cpuS).toFixed(3)})`,
  );
  console.log(
    `incremental ÷ full = ${(inc.ms / 1000).toFixed(1)} s ÷ ${(full.ms / 1000).toFixed(1)} s = ${(inc.ms / full.ms).toFixed(3)}  (aim ≤ 0.1)`,
  );
  measured.push(
    `a full build over ${runs} runs and an incremental one after ${added} new runs: wall and CPU time, ms per run page (fleet)`,
  );
}
