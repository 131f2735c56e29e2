/**
 * Reads against writes (not a test): does a flood of public comparison reads starve a runner's
 * submissions?
 *
 *   npm run bench:reads -- [--readers 50] [--submissions 40] [--interval-ms 100] [--rounds 2] [--cpu-prof DIR]
 *
 * Starts the API as its own process (`src/server.ts`, as `npm run api` does) on a fresh embedded
 * results database in a temp dir (removed at the end; with DATABASE_URL set, on that database
 * instead), imports the published figures and seeds `--seed` runs through the API. Then, in `--rounds` alternating phases, one runner submits
 * `--submissions` realistic runs one after another (`--interval-ms` apart) and the benchmark
 * records each submission's latency:
 *   - idle: nothing else happens;
 *   - flooded: `--readers` clients (a separate process, so their work does not delay the runner's
 *     clock) GET `/v1/comparisons` in a loop over four queries, without If-None-Match, as fast as
 *     the API answers. Every stored run changes the data version, so the cached answers are
 *     recomputed after each submission — the worst case for the cache.
 * The per-client read limit is lifted for the API under test (all readers share 127.0.0.1): this
 * measures the cache, not the limiter. Prints p50/p99/max per phase and the figure
 * **flooded p99 ÷ idle p99** (aim ≤ 3), the readers' throughput and latency (aim: p99 ≤ 1 s),
 * and their status counts. A progress line on stderr every 5 s says which step it is at. Exits 1 if a submission
 * is not acknowledged with 201.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { childEnv } from './env.ts';
import { processSeconds, progressLines } from './support.ts';
import { makeSubmission } from './workload.ts';

const { values: args } = parseArgs({
  options: {
    readers: { type: 'string', default: '50' },
    submissions: { type: 'string', default: '40' },
    'interval-ms': { type: 'string', default: '100' },
    rounds: { type: 'string', default: '2' },
    seed: { type: 'string', default: '40' },
    'reader-child': { type: 'string' },
    'cpu-prof': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

const QUERIES = [
  '/v1/comparisons?scenario=vacuum-index-cleanup',
  '/v1/comparisons?scenario=vacuum-index-cleanup&source=all&groupBy=hardware',
  '/v1/comparisons?scenario=vacuum-full-variants',
  '/v1/comparisons?scenario=vacuum-full-variants&metric=wal_bytes',
];

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};

if (args['reader-child']) await readers(args['reader-child'], Number(args.readers));
else await main();

/** The readers' process: GETs until stdin closes, then prints a JSON summary. */
async function readers(url: string, n: number): Promise<void> {
  let stop = false;
  process.stdin.resume();
  process.stdin.on('end', () => (stop = true));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, c) => {
      for (let i = c; !stop; i++) {
        const t0 = performance.now();
        try {
          const res = await fetch(`${url}${QUERIES[i % QUERIES.length]}`);
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        } catch {
          statuses.error = (statuses.error ?? 0) + 1;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    JSON.stringify({
      reads: latencies.length,
      perSecond: latencies.length / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      statuses,
    }),
  );
}

/** The command line's sizes, each a whole number ≥ 0 (else a sentence and exit 2). */
function options() {
  const o = {
    readerCount: Number(args.readers),
    submissions: Number(args.submissions),
    intervalMs: Number(args['interval-ms']),
    rounds: Number(args.rounds),
    seedRuns: Number(args.seed),
  };
  for (const [name, v] of Object.entries(o)) {
    if (!Number.isInteger(v) || v < 0) {
      console.error(`bench:reads: ${name} must be a whole number ≥ 0`);
      process.exit(2);
    }
  }
  return o;
}

async function main(): Promise<void> {
  if (args.help) {
    console.log(
      'usage: npm run bench:reads -- [--readers 50] [--submissions 40] [--interval-ms 100] [--rounds 2] [--seed 40] [--cpu-prof DIR]',
    );
    return;
  }
  const { readerCount, submissions, intervalMs, rounds, seedRuns } = options();
  let step = 'importing the published figures';
  let done = 0;
  const lines = progressLines('reads', () => (step.includes('submissions') ? `${step}: ${done} done` : step));
  const self = fileURLToPath(import.meta.url);
  const work = await mkdtemp(join(tmpdir(), 'tl_owner_bench_'));
  const dataDir = join(work, 'results');
  let api: ChildProcess | undefined;
  const cleanup = async () => {
    lines.stop();
    api?.kill('SIGTERM');
    if (api && api.exitCode === null) await new Promise((r) => api!.once('exit', r));
    await rm(work, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    const env = childEnv({ TUNELAB_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const importer = fileURLToPath(
      new URL('../../../packages/results-db/scripts/import-published.ts', import.meta.url),
    );
    await new Promise((resolve) =>
      spawn(process.execPath, ['--import', 'tsx', importer], { env, stdio: 'ignore' }).once('exit', resolve),
    );
    step = 'starting the API';
    const started = await startQuickstartApi(env, (child) => (api = child));
    let next = 0;
    const submit = async (): Promise<number> => {
      const w = makeSubmission(next++, 'bench-reads');
      const t0 = performance.now();
      const res = await fetch(`${started.url}/v1/runs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${started.token}`,
          'content-type': 'application/json',
          'idempotency-key': w.idempotencyKey,
        },
        body: w.body,
      });
      await res.arrayBuffer();
      const ms = performance.now() - t0;
      done += 1;
      if (res.status !== 201) throw new Error(`submission ${next - 1} answered ${res.status}`);
      return ms;
    };
    [step, done] = [`seeding ${seedRuns} submissions`, 0];
    for (let i = 0; i < seedRuns; i++) await submit();
    step = 'one uncached computation of each query';
    // One computation of each query, alone: what a submission may wait for when it arrives mid-computation.
    const cold: string[] = [];
    for (const q of QUERIES) {
      const t0 = performance.now();
      const res = await fetch(`${started.url}${q}`);
      const bytes = (await res.arrayBuffer()).byteLength;
      cold.push(`${(performance.now() - t0).toFixed(0)} ms (${(bytes / 1024).toFixed(0)} KiB)`);
    }
    const phase = async (): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < submissions; i++) {
        out.push(await submit());
        await new Promise((r) => setTimeout(r, intervalMs));
      }
      return out;
    };
    const idle: number[] = [];
    const flooded: number[] = [];
    const readerStats: ReaderStats[] = [];
    // The API process's CPU seconds in each kind of phase: on a shared machine the latencies move
    // with other processes' load, its CPU per submission and per read much less.
    const cpu = { idle: 0, flooded: 0 };
    const cpuOf = async (kind: keyof typeof cpu, work: () => Promise<void>) => {
      const before = processSeconds(api?.pid);
      await work();
      cpu[kind] += processSeconds(api?.pid) - before;
    };
    for (let round = 0; round < rounds; round++) {
      [step, done] = [`round ${round + 1} of ${rounds}, idle: ${submissions} submissions`, 0];
      await cpuOf('idle', async () => void idle.push(...(await phase())));
      const readers = await startReaders(self, started.url, readerCount);
      [step, done] = [`round ${round + 1} of ${rounds}, ${readerCount} readers: ${submissions} submissions`, 0];
      await cpuOf('flooded', async () => {
        flooded.push(...(await phase()));
        readerStats.push(await readers.stop());
      });
    }
    report({ readerCount, submissions, rounds, seedRuns, cold, idle, flooded, readerStats, cpu });
  } finally {
    await cleanup();
  }
}

/** The readers' process (this script with --reader-child), reading once started; `stop` ends it and answers its figures. */
async function startReaders(self: string, url: string, readerCount: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', self, '--reader-child', url, '--readers', String(readerCount)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((r) => setTimeout(r, 1000)); // the readers are up and reading
  return {
    stop: async (): Promise<ReaderStats> => {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
      return JSON.parse(out) as ReaderStats;
    },
  };
}

/** The API over the embedded results database, started with --quickstart: its address and the token it printed. */
function startQuickstartApi(
  env: NodeJS.ProcessEnv,
  onChild: (child: ChildProcess) => void,
): Promise<{ url: string; token: string }> {
  const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));
  // `--cpu-prof DIR`: the API runs under node --cpu-prof and leaves its .cpuprofile in DIR.
  const profile = args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : [];
  return new Promise((resolve, reject) => {
    const api = spawn(process.execPath, [...profile, '--import', 'tsx', server, '--quickstart'], {
      env: { ...env, PORT: '0', HOST: '127.0.0.1', TUNELAB_READ_RATE_LIMIT: '1000000000' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onChild(api);
    let out = '';
    api.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /TuneLab API listening on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /TUNELAB_TOKEN=(tlr_\S+)/.exec(out)?.[1];
      if (url && token) resolve({ url, token });
    });
    api.once('exit', (code) => reject(new Error(`the API exited ${code}: ${out}`)));
  });
}

type ReaderStats = { reads: number; perSecond: number; p50: number; p99: number; statuses: object };

/** The submissions' latency alone and under readers, their ratio against its aim, and the readers' own figures. */
function report(r: {
  readerCount: number;
  submissions: number;
  rounds: number;
  seedRuns: number;
  cold: string[];
  idle: number[];
  flooded: number[];
  readerStats: ReaderStats[];
  cpu: { idle: number; flooded: number };
}): void {
  const { readerCount, submissions, rounds, seedRuns, cold, idle, flooded, readerStats, cpu } = r;
  const fmt = (x: number) => x.toFixed(1).padStart(8);
  const row = (name: string, xs: number[]) =>
    console.log(
      `${name.padEnd(30)} n=${String(xs.length).padStart(4)}  p50 ${fmt(percentile(xs, 50))} ms  p99 ${fmt(percentile(xs, 99))} ms  max ${fmt(Math.max(...xs))} ms`,
    );
  console.log(
    `\nbench:reads — ${new Date().toISOString()}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(`${resultsDatabase()}, ${seedRuns} seeded runs + published; ${readerCount} readers; ${rounds} rounds\n`);
  console.log(`one uncached computation of each query: ${cold.join(', ')}`);
  row('submission, idle', idle);
  row(`submission, ${readerCount} readers`, flooded);
  const ratio = percentile(flooded, 99) / percentile(idle, 99);
  console.log(
    `\nmeasured: the latency of one runner's POST /v1/runs alone and while ${readerCount} readers GET /v1/comparisons, ${submissions} submissions per phase × ${rounds} rounds`,
  );
  console.log(`submission p99 flooded ÷ idle: ${ratio.toFixed(2)}× (aim ≤ 3)`);
  const reads = readerStats.reduce((n, stats) => n + stats.reads, 0);
  const perSubmission = (cpu.idle / Math.max(1, idle.length)) * 1000;
  // The flooded phases' CPU less what their submissions cost alone: reads served and answers recomputed.
  const perRead = ((cpu.flooded - (perSubmission / 1000) * flooded.length) / Math.max(1, reads)) * 1000;
  console.log(
    `API process CPU: ${perSubmission.toFixed(2)} ms per submission alone; ${perRead.toFixed(2)} ms per read while flooded (${cpu.flooded.toFixed(1)} s over ${reads} reads and ${flooded.length} submissions, their recomputations included)`,
  );
  for (const [i, stats] of readerStats.entries())
    console.log(
      `readers round ${i + 1}: ${stats.reads} reads, ${stats.perSecond.toFixed(0)}/s, p50 ${stats.p50.toFixed(1)} ms, p99 ${stats.p99.toFixed(1)} ms (aim ≤ 1000 ms), statuses ${JSON.stringify(stats.statuses)}`,
    );
}

/** Which results database the API under test used: its own embedded one, or the DATABASE_URL it inherited (no password shown). */
function resultsDatabase(): string {
  const url = process.env.DATABASE_URL;
  if (!url) return 'embedded results database';
  try {
    const u = new URL(url);
    return `results database at ${u.hostname}:${u.port || '5432'}${u.pathname} (DATABASE_URL)`;
  } catch {
    return 'results database named by DATABASE_URL';
  }
}
