/**
 * Ingest benchmark (not a test): N concurrent clients POST realistic submissions to the API on a
 * fresh PostgreSQL database over loopback HTTP, then the same rows go through a plain multi-row
 * INSERT into identically shaped tables with the same concurrency, and once more through a raw
 * binary COPY (raw-copy.ts). The figures of merit are API rows/s ÷ plain-insert rows/s and
 * API rows/s ÷ raw-COPY rows/s, each the median of the rounds' ratios.
 *
 *   npm run bench:ingest -- [--clients 8] [--submissions 4000] [--warmup 100] [--rounds 10] [--api-processes 1]
 *                           [--in-process] [--cpu-prof DIR] [--database-url postgresql://postgres@127.0.0.1:5432/postgres]
 *
 * The submissions are split into rounds; in each round the API, the plain INSERT and the raw COPY
 * store the same submissions one after the other (A B C, then C B A, …), and the round's ratios are
 * plain time ÷ API time and COPY time ÷ API time. A progress line goes to stderr every 10 s. The median of the rounds is the headline: a checkpoint, autovacuum or someone else's
 * build landing in one phase moves one round, not the figure.
 * The API runs as its own process (`src/server.ts`, as in production) unless `--in-process`, which
 * builds it inside this process — then the HTTP clients share its event loop and CPU.
 * `--api-processes N` starts N API processes on the same database (as behind a load balancer) and
 * the clients take them in turn.
 * Besides throughput and latency it prints where the time goes: server time in ingestRun vs the
 * rest of the request, and CPU seconds per submission in this process and in PostgreSQL.
 * The database `tunelab_bench_<random>` is dropped at the end, also on failure and Ctrl-C (by a
 * supervising parent process, see supervise()).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import * as hdr from 'hdr-histogram-js';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { median } from '@tunelab/stats';
import { buildApp, type App } from '../src/index.ts';
import { makeSubmission, POINTS_PER_SUBMISSION, SAMPLES_PER_SUBMISSION, type Workload } from './workload.ts';
import { PLAIN_SCHEMA, plainInsert, plainStatements } from './plain-insert.ts';
import { COPY_SCHEMA, rawCopy } from './raw-copy.ts';
import { childEnv } from './env.ts';
import {
  databaseUrl,
  parseBenchArgs,
  positiveInt,
  postgresTicks,
  processSeconds,
  startApiProcess,
  stopProcess,
  TICKS_PER_SECOND,
} from './support.ts';

const { args, env, adminUrl } = parseBenchArgs(
  'npm run bench:ingest -- [--clients 8] [--submissions 4000] [--warmup 100] [--rounds 10] [--api-processes 1] [--in-process] [--cpu-prof DIR] [--database-url URL]',
  {
    clients: { type: 'string', default: '8' },
    submissions: { type: 'string', default: '4000' },
    warmup: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '10' },
    'api-processes': { type: 'string', default: '1' },
    'in-process': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
);

const CLIENTS = positiveInt('clients', args.clients);
const SUBMISSIONS = positiveInt('submissions', args.submissions);
const WARMUP = positiveInt('warmup', args.warmup, 0);
const ROUNDS = positiveInt('rounds', args.rounds);
const API_PROCESSES = positiveInt('api-processes', args['api-processes']);
if (API_PROCESSES > 1 && args['in-process']) {
  console.error('--api-processes and --in-process exclude each other');
  process.exit(2);
}

// The database's life belongs to a small supervisor process: this script re-runs itself as a child
// that does the measuring, and the parent creates the database, waits for the child and drops the
// database whatever became of it. tsx SIGKILLs a child whose event loop does not answer a Ctrl-C
// within 30 ms (a saturated API does not), so a handler in the measuring process alone cannot
// guarantee the drop; the supervisor's event loop is idle and always can.
const dbName = env.TUNELAB_BENCH_DATABASE ?? `${env.BENCH_DATABASE_PREFIX}${randomBytes(6).toString('hex')}`;
const benchUrl = databaseUrl(adminUrl, dbName);

async function adminQuery<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await admin.query<R>(sql);
  } finally {
    await admin.end().catch(() => {});
  }
}

async function supervise(): Promise<never> {
  await adminQuery(`CREATE DATABASE "${dbName}"`);
  let interrupted: NodeJS.Signals | undefined;
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: childEnv({ TUNELAB_BENCH_DATABASE: dbName }),
    },
  );
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = signal;
    console.error(`\n${signal}: stopping, dropping ${dbName} …`);
    child.kill(signal);
    setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await new Promise<number>((resolve) => {
    child.on('exit', (c) => resolve(c ?? 1));
    child.on('error', (err) => {
      console.error(err);
      resolve(1);
    });
  });
  try {
    // FORCE: connections an interrupted child left behind must not keep the database alive.
    await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  } catch (err) {
    console.error(`could not drop database ${dbName}: ${(err as Error).message}`);
    process.exit(1);
  }
  process.exit(interrupted ? (interrupted === 'SIGINT' ? 130 : 143) : code);
}

if (!env.TUNELAB_BENCH_DATABASE) await supervise();

// ---------------------------------------------------------------------------------------------
// The measuring process: close the app and pools on the way out (the supervisor drops the database).

let app: App | undefined;
/** The HTTP clients' keep-alive agents, one per API address. */
const agents = new Map<string, http.Agent>();
const apiProcesses: ChildProcess[] = [];
let benchDb: ResultsDb | undefined;
let plainPool: pg.Pool | undefined;
let progressTimer: NodeJS.Timeout | undefined;
let cleaning: Promise<void> | undefined;
let interrupted = false;

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

function cleanup(): Promise<void> {
  // Bounded: in-flight requests and keep-alive sockets must not hold the exit up for long.
  const closeWithin = interrupted ? 1_000 : 5_000;
  clearInterval(progressTimer);
  for (const agent of agents.values()) agent.destroy();
  cleaning ??= Promise.all([
    app ? withTimeout(app.close(), closeWithin).catch(() => {}) : undefined,
    ...apiProcesses.map((child) => stopProcess(child, closeWithin)),
    benchDb ? withTimeout(benchDb.close(), closeWithin).catch(() => {}) : undefined,
    plainPool ? withTimeout(plainPool.end(), closeWithin).catch(() => {}) : undefined,
  ]).then(() => {});
  return cleaning;
}

// `on`, not `once`: a Ctrl-C can arrive more than once (terminal, tsx, supervisor).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers.

const newHistogram = () =>
  hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
type Histogram = ReturnType<typeof newHistogram>;
/** Where the server's own `Server-Timing: ingest;dur=…` goes while the API side is measured. */
let ingestHist: Histogram | undefined;

/** What the progress line (every 10 s, on stderr) reports: the phase and its submissions done. */
const progress = { phase: 'starting', done: 0, total: 0, started: performance.now() };
function startProgress(): void {
  progressTimer = setInterval(() => {
    const s = ((performance.now() - progress.started) / 1000).toFixed(0);
    console.error(
      `… ${s} s: ${progress.phase}, ${fmt(progress.done)} of ${fmt(progress.total)} submissions stored` +
        ` (load average ${os.loadavg()[0]!.toFixed(1)})`,
    );
  }, 10_000);
  progressTimer.unref();
}

/** Runs `fn` over `items` with `clients` workers pulling the next item; returns the wall time in ms. */
async function runPool<T>(items: T[], clients: number, fn: (item: T) => Promise<void>): Promise<number> {
  progress.done = 0;
  progress.total = items.length;
  let next = 0;
  let failed: Error | undefined;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(clients, items.length) }, async () => {
      while (failed === undefined && next < items.length) {
        const item = items[next++]!;
        try {
          await fn(item);
          progress.done++;
        } catch (err) {
          failed ??= err instanceof Error ? err : new Error(String(err));
        }
      }
    }),
  );
  if (failed !== undefined) throw failed;
  return performance.now() - start;
}

class HttpFailure extends Error {}

/**
 * CPU seconds of this process and of the local PostgreSQL backends connected to the bench database
 * (Linux /proc; 0 elsewhere). Shared server processes (WAL writer, checkpointer) and other
 * databases' backends are left out: other people's work on the same server must not count.
 */
type CpuSnapshot = { node: NodeJS.CpuUsage; api: number; pg: Map<number, number> };
const cpuSnapshot = (): CpuSnapshot => ({
  node: process.cpuUsage(),
  api: apiSeconds(),
  pg: postgresTicks(dbName),
});
/** CPU since `start`: this process (clients, and the API when in-process), the API process, PostgreSQL. */
function cpuSince(start: CpuSnapshot): { node: number; api: number; pg: number } {
  const node = process.cpuUsage(start.node);
  let ticks = 0;
  for (const [pid, t] of postgresTicks(dbName)) ticks += t - (start.pg.get(pid) ?? 0);
  return {
    node: (node.user + node.system) / 1e6,
    api: apiSeconds() - start.api,
    pg: ticks / TICKS_PER_SECOND,
  };
}

/**
 * POSTs through node:http with a keep-alive agent per API address. The clients stand in for
 * runners on other machines but share this machine's two cores with the API and PostgreSQL:
 * fetch (undici in Node 20) cost about four times the CPU per request (0.46 against 0.11 ms for a
 * 36 kB body), CPU that would come out of the API's share here and not in production.
 */
function post(url: URL, agent: http.Agent, headers: http.OutgoingHttpHeaders, body: string) {
  return new Promise<{ status: number; timing: string | undefined; text: string }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        const timing = res.headers['server-timing'];
        resolve({ status: res.statusCode ?? 0, timing: Array.isArray(timing) ? timing[0] : timing, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const agentFor = (baseUrl: string) => {
  let agent = agents.get(baseUrl);
  if (!agent) agents.set(baseUrl, (agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS })));
  return agent;
};

function submitter(baseUrls: string[], token: string, latency?: Histogram, ids?: Map<string, string>) {
  let turn = 0;
  return async (w: Workload) => {
    const baseUrl = baseUrls[turn++ % baseUrls.length]!;
    const t0 = performance.now();
    const res = await post(
      new URL('/v1/runs', baseUrl),
      agentFor(baseUrl),
      {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(w.body),
        'idempotency-key': w.idempotencyKey,
        'user-agent': 'tunelab-runner/0.1.0',
      },
      w.body,
    );
    latency?.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
    const timing = /ingest;dur=([\d.]+)/.exec(res.timing ?? '');
    if (timing && ingestHist) ingestHist.recordValue(Math.max(1, Math.round(Number(timing[1]) * 1000)));
    if (res.status < 200 || res.status > 299) {
      throw new HttpFailure(`POST /v1/runs (${w.idempotencyKey}) → ${res.status}: ${res.text.slice(0, 2000)}`);
    }
    ids?.set(w.idempotencyKey, (JSON.parse(res.text) as { id: string }).id);
  };
}

/** Starts `src/server.ts` on the bench database as its own process; resolves with its URL. */
const startBenchApi = () =>
  startApiProcess(
    { DATABASE_URL: benchUrl, TUNELAB_RATE_LIMIT: '1000000000' },
    args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`] : [],
  );

/** CPU seconds of all API processes so far. */
const apiSeconds = () => apiProcesses.reduce((sum, child) => sum + processSeconds(child.pid), 0);

const ms = (us: number) => (us / 1000).toFixed(1);
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const loadBefore = os.loadavg();
  console.log(
    `ingest bench: ${CLIENTS} clients, ${SUBMISSIONS} submissions (+${WARMUP} warm-up), ` +
      `${SAMPLES_PER_SUBMISSION} samples + ${POINTS_PER_SUBMISSION} time-series points each, ` +
      `API, plain INSERT and raw binary COPY alternating in ${ROUNDS} rounds`,
  );

  const {
    rows: [server],
  } = await adminQuery<{ server_version: string }>('SHOW server_version');
  console.log(
    `database: ${dbName} on PostgreSQL ${server?.server_version} at ${new URL(adminUrl).host} (dropped at the end)`,
  );

  const baseUrls = await startApis();
  benchDb = await openResultsDb(benchUrl, { poolSize: 2 });
  const { token } = await benchDb.createRunner(`bench-${randomBytes(3).toString('hex')}`);

  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const warm = Array.from({ length: WARMUP }, (_, i) => makeSubmission(i, `${prefix}-warm`));
  // The measured submissions are made round by round (before the round's clock starts): all of
  // them at once would be ~0.1 MB of objects each in this process's heap.
  const measured = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => makeSubmission(WARMUP + from + i, prefix));

  const plainStmt = plainStatements(SAMPLES_PER_SUBMISSION, POINTS_PER_SUBMISSION);
  plainPool = new pg.Pool({ connectionString: benchUrl, max: CLIENTS });
  plainPool.on('error', () => {});
  await plainPool.query(PLAIN_SCHEMA);
  await plainPool.query(COPY_SCHEMA);
  const pool = plainPool;
  startProgress();

  // --- warm-up: every path (JIT, connection pools, parent rows, first index pages) -------------
  if (warm.length > 0) {
    progress.phase = 'warm-up';
    await runPool(warm, CLIENTS, submitter(baseUrls, token));
    await runPool(warm, CLIENTS, async (w) => void (await plainInsert(pool, w, plainStmt)));
    await runPool(warm, CLIENTS, async (w) => void (await rawCopy(pool, w)));
  }

  const m = await measureRounds({ baseUrls, token, pool, plainStmt, measured });
  clearInterval(progressTimer);
  await checkStored(baseUrls, m.runIds, measured, pool);
  report(m, loadBefore);
  return 0;
}

/** Starts the API (in this process, or its own processes) and returns the address of each. */
async function startApis(): Promise<string[]> {
  const baseUrls: string[] = [];
  if (args['in-process']) {
    app = await buildApp({ databaseUrl: benchUrl, logger: false, rateLimitPerMinute: 1e9 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('the API did not listen on a TCP port');
    baseUrls.push(`http://127.0.0.1:${addr.port}`);
  } else {
    // One after the other: the first applies the migrations.
    for (let i = 0; i < API_PROCESSES; i++) {
      const started = await startBenchApi();
      apiProcesses.push(started.child);
      baseUrls.push(started.url);
    }
  }
  console.log(
    `API: ${args['in-process'] ? 'in this process (clients share its event loop)' : `${API_PROCESSES === 1 ? 'its own process' : `${API_PROCESSES} processes`} (pid ${apiProcesses.map((c) => c.pid).join(', ')})`} at ${baseUrls.join(', ')}`,
  );
  return baseUrls;
}

type Cpu = { node: number; api: number; pg: number };
type Measured = {
  rounds: { submissions: number; apiMs: number; plainMs: number; copyMs: number }[];
  apiLatency: Histogram;
  plainLatency: Histogram;
  copyLatency: Histogram;
  apiIngest: Histogram;
  runIds: Map<string, string>;
  apiCpu: Cpu;
  plainCpu: Cpu;
  copyCpu: Cpu;
};

/**
 * The measured rounds: API, plain INSERT and raw COPY alternate (A B C, C B A, …), so that load
 * from other processes on the machine drifting during the run hits every path alike.
 */
async function measureRounds(ctx: {
  baseUrls: string[];
  token: string;
  pool: pg.Pool;
  plainStmt: ReturnType<typeof plainStatements>;
  measured: (from: number, to: number) => Workload[];
}): Promise<Measured> {
  const { baseUrls, token, pool, plainStmt, measured } = ctx;
  const apiLatency = newHistogram();
  const plainLatency = newHistogram();
  const copyLatency = newHistogram();
  const apiIngest = newHistogram();
  const runIds = new Map<string, string>();
  const apiCpu = { node: 0, api: 0, pg: 0 };
  const plainCpu = { node: 0, api: 0, pg: 0 };
  const copyCpu = { node: 0, api: 0, pg: 0 };
  const add = (into: typeof apiCpu, d: typeof apiCpu) => {
    into.node += d.node;
    into.api += d.api;
    into.pg += d.pg;
  };
  const rounds: { submissions: number; apiMs: number; plainMs: number; copyMs: number }[] = [];
  const roundCount = Math.min(ROUNDS, SUBMISSIONS);
  for (let r = 0; r < roundCount; r++) {
    const chunk = measured(
      Math.floor((r * SUBMISSIONS) / roundCount),
      Math.floor(((r + 1) * SUBMISSIONS) / roundCount),
    );
    const round = { submissions: chunk.length, apiMs: 0, plainMs: 0, copyMs: 0 };
    const phase = `round ${r + 1} of ${roundCount}`;
    const api = async () => {
      progress.phase = `${phase}, API`;
      ingestHist = apiIngest;
      const cpu0 = cpuSnapshot();
      round.apiMs = await runPool(chunk, CLIENTS, submitter(baseUrls, token, apiLatency, runIds));
      add(apiCpu, cpuSince(cpu0));
      ingestHist = undefined;
    };
    const plain = async () => {
      progress.phase = `${phase}, plain INSERT`;
      const cpu0 = cpuSnapshot();
      round.plainMs = await runPool(chunk, CLIENTS, async (w) => {
        const t0 = performance.now();
        await plainInsert(pool, w, plainStmt);
        plainLatency.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
      });
      add(plainCpu, cpuSince(cpu0));
    };
    const copy = async () => {
      progress.phase = `${phase}, raw COPY`;
      const cpu0 = cpuSnapshot();
      round.copyMs = await runPool(chunk, CLIENTS, async (w) => {
        const t0 = performance.now();
        await rawCopy(pool, w);
        copyLatency.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
      });
      add(copyCpu, cpuSince(cpu0));
    };
    for (const step of r % 2 === 0 ? [api, plain, copy] : [copy, plain, api]) await step();
    rounds.push(round);
    console.log(
      `round ${String(r + 1).padStart(String(roundCount).length)}: ${chunk.length} submissions, API ${(round.apiMs / 1000).toFixed(2)} s, ` +
        `plain INSERT ${(round.plainMs / 1000).toFixed(2)} s, raw COPY ${(round.copyMs / 1000).toFixed(2)} s, ` +
        `ratios ÷ INSERT ${(round.plainMs / round.apiMs).toFixed(2)}, ÷ COPY ${(round.copyMs / round.apiMs).toFixed(2)}`,
    );
  }
  return { rounds, apiLatency, plainLatency, copyLatency, apiIngest, runIds, apiCpu, plainCpu, copyCpu };
}

/** Everything stored, and stored as sent: counts on every path, and three runs read back through the API. */
async function checkStored(
  baseUrls: string[],
  runIds: Map<string, string>,
  measured: (from: number, to: number) => Workload[],
  pool: pg.Pool,
): Promise<void> {
  const [c] = (
    await pool.query<{ runs: string; samples: string; points: string }>(
      'SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM samples) AS samples, (SELECT count(*) FROM time_series_points) AS points',
    )
  ).rows;
  if (!c) throw new Error('no counts');
  const expectedRuns = WARMUP + SUBMISSIONS;
  if (
    Number(c.runs) !== expectedRuns ||
    Number(c.samples) !== expectedRuns * SAMPLES_PER_SUBMISSION ||
    Number(c.points) !== expectedRuns * POINTS_PER_SUBMISSION
  ) {
    throw new Error(
      `stored ${c.runs} runs / ${c.samples} samples / ${c.points} points, expected ${expectedRuns} / ${expectedRuns * SAMPLES_PER_SUBMISSION} / ${expectedRuns * POINTS_PER_SUBMISSION}`,
    );
  }
  for (const i of [0, SUBMISSIONS >> 1, SUBMISSIONS - 1]) {
    const w = measured(i, i + 1)[0]!;
    const res = await fetch(`${baseUrls[0]}/v1/runs/${runIds.get(w.idempotencyKey)}`);
    if (res.status !== 200)
      throw new HttpFailure(
        `GET /v1/runs/${runIds.get(w.idempotencyKey)} → ${res.status}: ${(await res.text()).slice(0, 2000)}`,
      );
    const got = (await res.json()) as { samples: Record<string, unknown>[]; timeSeries: Record<string, unknown>[] };
    const key = (o: Record<string, unknown>, cols: string[]) => cols.map((col) => JSON.stringify(o[col])).join('|');
    const same = (a: Record<string, unknown>[], b: Record<string, unknown>[], cols: string[]) =>
      a.length === b.length &&
      JSON.stringify(a.map((o) => key(o, cols)).sort()) === JSON.stringify(b.map((o) => key(o, cols)).sort());
    const sc = ['variant', 'repetition', 'metric', 'unit', 'value'];
    const tc = ['variant', 'repetition', 'metric', 'x', 'value'];
    if (!same(got.samples, w.submission.samples, sc) || !same(got.timeSeries, w.submission.timeSeries ?? [], tc)) {
      throw new Error(`run ${runIds.get(w.idempotencyKey)} (${w.idempotencyKey}) does not read back as submitted`);
    }
  }
  const [plainCount] = (await pool.query<{ n: string }>('SELECT count(*) AS n FROM plain_samples')).rows;
  if (Number(plainCount?.n) !== expectedRuns * SAMPLES_PER_SUBMISSION)
    throw new Error(`plain_samples has ${plainCount?.n} rows`);
  const [copyCount] = (
    await pool.query<{ s: string; p: string }>(
      'SELECT (SELECT count(*) FROM copy_samples) AS s, (SELECT count(*) FROM copy_time_series_points) AS p',
    )
  ).rows;
  if (
    Number(copyCount?.s) !== expectedRuns * SAMPLES_PER_SUBMISSION ||
    Number(copyCount?.p) !== expectedRuns * POINTS_PER_SUBMISSION
  )
    throw new Error(`raw COPY stored ${copyCount?.s} samples and ${copyCount?.p} points`);
}

/** A table with its first column left-aligned and the others right-aligned, a blank line either side. */
function printTable(table: string[][]): void {
  const widths = table[0]!.map((_, col) => Math.max(...table.map((row) => row[col]!.length)));
  const line = (row: string[]) =>
    row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!))).join('  ');
  console.log('');
  console.log(line(table[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of table.slice(1)) console.log(line(row));
  console.log('');
}

/** The table of the three paths, CPU per submission and the two ratios with their aims. */
function report(m: Measured, loadBefore: number[]): void {
  const { rounds, apiLatency, plainLatency, copyLatency, apiIngest, apiCpu, plainCpu, copyCpu } = m;
  const rowsPer = SAMPLES_PER_SUBMISSION + POINTS_PER_SUBMISSION;
  const apiMs = rounds.reduce((sum, r) => sum + r.apiMs, 0);
  const plainMs = rounds.reduce((sum, r) => sum + r.plainMs, 0);
  const copyMs = rounds.reduce((sum, r) => sum + r.copyMs, 0);
  const apiSubs = SUBMISSIONS / (apiMs / 1000);
  const plainSubs = SUBMISSIONS / (plainMs / 1000);
  const apiRows = apiSubs * rowsPer;
  const plainRows = plainSubs * rowsPer;
  const copySubs = SUBMISSIONS / (copyMs / 1000);
  const copyRows = copySubs * rowsPer;
  // Per round the paths stored the same submissions: rows/s ÷ rows/s is time ÷ time.
  const roundRatios = rounds.map((r) => r.plainMs / r.apiMs).sort((a, b) => a - b);
  const ratio = median(roundRatios);
  const copyRatios = rounds.map((r) => r.copyMs / r.apiMs).sort((a, b) => a - b);
  const copyRatio = median(copyRatios);

  /** A path's row: its wall time, rates and latency percentiles (a blank rate for a part of a path). */
  const row = (label: string, h: Histogram, wallMs: number | null, subs = 0, rows = 0) => [
    label,
    ...(wallMs === null ? ['', '', '', ''] : [fmt(SUBMISSIONS), (wallMs / 1000).toFixed(2), fmt(subs, 1), fmt(rows)]),
    ms(h.getValueAtPercentile(50)),
    ms(h.getValueAtPercentile(99)),
    ms(h.maxValue),
  ];
  const table = [
    ['', 'submissions', 'wall s', 'submissions/s', 'rows/s', 'p50 ms', 'p99 ms', 'max ms'],
    row('API (HTTP POST /v1/runs)', apiLatency, apiMs, apiSubs, apiRows),
    row('  of which ingestRun (server)', apiIngest, null),
    row('plain multi-row INSERT (pg)', plainLatency, plainMs, plainSubs, plainRows),
    row('raw binary COPY (pg-copy-streams)', copyLatency, copyMs, copySubs, copyRows),
  ];
  printTable(table);
  const meanHttp = apiLatency.mean - apiIngest.mean;
  console.log(
    `mean latency ${ms(apiLatency.mean)} ms = ingestRun ${ms(apiIngest.mean)} ms (${((apiIngest.mean / apiLatency.mean) * 100).toFixed(0)}%)` +
      ` + HTTP/parse/auth/validation/serialization ${ms(meanHttp)} ms`,
  );
  const perSub = (sec: number) => ((sec * 1000) / SUBMISSIONS).toFixed(2);
  console.log(
    `CPU per submission: API path ${args['in-process'] ? `node (API + clients) ${perSub(apiCpu.node)}` : `API ${API_PROCESSES === 1 ? 'process' : `${API_PROCESSES} processes`} ${perSub(apiCpu.api)} ms + clients ${perSub(apiCpu.node)}`} ms + postgres ${perSub(apiCpu.pg)} ms;` +
      ` plain INSERT node ${perSub(plainCpu.node)} ms + postgres ${perSub(plainCpu.pg)} ms;` +
      ` raw COPY node ${perSub(copyCpu.node)} ms + postgres ${perSub(copyCpu.pg)} ms` +
      `  (${os.availableParallelism()} CPUs, load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} → ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
  );
  console.log(
    `rows per submission: ${rowsPer} (${SAMPLES_PER_SUBMISSION} samples + ${POINTS_PER_SUBMISSION} time-series points)`,
  );
  console.log('');
  const apiSide = args['in-process']
    ? 'API in-process'
    : `${API_PROCESSES} API process${API_PROCESSES === 1 ? '' : 'es'}`;
  const ratioLine = (label: string, r: number, all: number[], base: number, aim: number) =>
    `ratio  API rows/s ÷ ${label} rows/s = ${r.toFixed(2)}  (median of ${rounds.length} rounds, ` +
    `${all[0]!.toFixed(2)}–${all[all.length - 1]!.toFixed(2)}; all rounds together ` +
    `${fmt(apiRows)} ÷ ${fmt(base)} = ${(apiRows / base).toFixed(2)}; ${apiSide}; ` +
    `aim ≥ ${aim.toFixed(2)}${r >= aim ? ', met' : ', NOT met'})`;
  console.log(ratioLine('plain-insert', ratio, roundRatios, plainRows, 1));
  console.log(ratioLine('raw-COPY', copyRatio, copyRatios, copyRows, 0.5));
  console.log(
    `load average (1/5/15 min): ${loadBefore.map((l) => l.toFixed(2)).join(' ')} at the start → ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end`,
  );
}

let code: number;
try {
  code = await main();
} catch (err) {
  if (!interrupted) console.error(err instanceof HttpFailure ? `non-2xx response: ${err.message}` : err);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
