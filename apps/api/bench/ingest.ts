/**
 * Ingest benchmark (not a test): N concurrent clients POST realistic submissions to the API on a
 * fresh PostgreSQL database over loopback HTTP, then the same rows go through a plain multi-row
 * INSERT into identically shaped tables with the same concurrency. The figure of merit is
 * API rows/s ÷ plain-insert rows/s.
 *
 *   npm run bench:ingest -- [--clients 8] [--submissions 200] [--warmup 16] [--ingest prisma|unnest]
 *                           [--database-url postgresql://postgres@127.0.0.1:5432/postgres]
 *
 * `--ingest unnest` swaps the shipped ingestRun for the prototype in ./ingest-unnest.ts (same
 * transaction, samples and points written with INSERT … SELECT FROM unnest(...)), to measure it.
 * The database `tunelab_bench_<random>` is dropped at the end, also on failure and Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import * as hdr from 'hdr-histogram-js';
import { buildApp, type App } from '../src/index.ts';
import { makeSubmission, POINTS_PER_SUBMISSION, SAMPLES_PER_SUBMISSION, type Workload } from './workload.ts';
import { PLAIN_SCHEMA, plainInsert, plainStatements } from './plain-insert.ts';
import { ingestRunUnnest } from './ingest-unnest.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '8' },
    submissions: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '16' },
    ingest: { type: 'string', default: 'prisma' },
    'database-url': { type: 'string', default: process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

if (args.help) {
  console.log('usage: npm run bench:ingest -- [--clients 8] [--submissions 200] [--warmup 16] [--ingest prisma|unnest] [--database-url URL]');
  process.exit(0);
}

function positiveInt(name: string, v: string, min = 1): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer ≥ ${min}, got ${v}`);
    process.exit(2);
  }
  return n;
}
const CLIENTS = positiveInt('clients', args.clients);
const SUBMISSIONS = positiveInt('submissions', args.submissions);
const WARMUP = positiveInt('warmup', args.warmup, 0);
const INGEST = args.ingest;
if (INGEST !== 'prisma' && INGEST !== 'unnest') {
  console.error(`--ingest must be prisma or unnest, got ${INGEST}`);
  process.exit(2);
}

const adminUrl = new URL(args['database-url']);
const dbName = `tunelab_bench_${randomBytes(6).toString('hex')}`;
const benchUrl = new URL(adminUrl);
benchUrl.pathname = `/${dbName}`;

// ---------------------------------------------------------------------------------------------
// Lifecycle: whatever happens, close the app and drop the database.

let app: App | undefined;
let plainPool: pg.Pool | undefined;
let dbCreated = false;
let cleaning: Promise<void> | undefined;

const withTimeout = <T,>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    if (app) await withTimeout(app.close(), 10_000).catch(() => {});
    if (plainPool) await withTimeout(plainPool.end(), 5_000).catch(() => {});
    if (!dbCreated) return;
    const admin = new pg.Client({ connectionString: adminUrl.toString() });
    try {
      await admin.connect();
      // FORCE: a connection left behind by an interrupted run must not keep the database alive.
      await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    } catch (err) {
      console.error(`could not drop database ${dbName}: ${(err as Error).message}`);
    } finally {
      await admin.end().catch(() => {});
    }
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: dropping ${dbName} …`);
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers.

const newHistogram = () =>
  hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3, useWebAssembly: false });
type Histogram = ReturnType<typeof newHistogram>;

/** Runs `fn` over `items` with `clients` workers pulling the next item; returns the wall time in ms. */
async function runPool<T>(items: T[], clients: number, fn: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  let failed: unknown;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(clients, items.length) }, async () => {
      while (failed === undefined && next < items.length) {
        const item = items[next++]!;
        try {
          await fn(item);
        } catch (err) {
          failed ??= err;
        }
      }
    }),
  );
  if (failed !== undefined) throw failed;
  return performance.now() - start;
}

class HttpFailure extends Error {}

function submitter(baseUrl: string, token: string, latency?: Histogram) {
  return async (w: Workload) => {
    const t0 = performance.now();
    const res = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': w.idempotencyKey,
        'user-agent': 'tunelab-runner/0.1.0',
      },
      body: w.body,
    });
    const text = await res.text();
    latency?.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
    if (res.status < 200 || res.status > 299) {
      throw new HttpFailure(`POST /v1/runs (${w.idempotencyKey}) → ${res.status}: ${text.slice(0, 2000)}`);
    }
  };
}

const ms = (us: number) => (us / 1000).toFixed(1);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const rowsPer = SAMPLES_PER_SUBMISSION + POINTS_PER_SUBMISSION;
  console.log(
    `ingest bench: ${CLIENTS} clients, ${SUBMISSIONS} submissions (+${WARMUP} warm-up), ` +
      `${SAMPLES_PER_SUBMISSION} samples + ${POINTS_PER_SUBMISSION} time-series points each, ingest=${INGEST}`,
  );

  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  const { rows: [server] } = await admin.query<{ server_version: string }>('SHOW server_version');
  try {
    await admin.query(`CREATE DATABASE "${dbName}"`);
    dbCreated = true;
  } finally {
    await admin.end();
  }
  console.log(`database: ${dbName} on PostgreSQL ${server?.server_version} at ${adminUrl.host}`);

  app = await buildApp({ databaseUrl: benchUrl.toString(), logger: false, rateLimitPerMinute: 1e9 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('the API did not listen on a TCP port');
  const baseUrl = `http://127.0.0.1:${addr.port}`;
  const { token } = await app.resultsDb.createRunner(`bench-${randomBytes(3).toString('hex')}`);

  // Server-side time spent in resultsDb.ingestRun (the database work); the rest of a request's
  // latency is HTTP, JSON parsing, auth, zod validation and serialization (+ client overhead).
  const db = app.resultsDb;
  const shipped = db.ingestRun.bind(db);
  const ingestImpl: typeof db.ingestRun = INGEST === 'unnest' ? (input) => ingestRunUnnest(db, input) : shipped;
  let ingestHist: Histogram | undefined;
  db.ingestRun = async (input) => {
    const t0 = performance.now();
    try {
      return await ingestImpl(input);
    } finally {
      ingestHist?.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
    }
  };

  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const warm = Array.from({ length: WARMUP }, (_, i) => makeSubmission(i, `${prefix}-warm`));
  const measured = Array.from({ length: SUBMISSIONS }, (_, i) => makeSubmission(WARMUP + i, prefix));

  // --- API -------------------------------------------------------------------------------------
  if (warm.length > 0) await runPool(warm, CLIENTS, submitter(baseUrl, token));
  const apiLatency = newHistogram();
  ingestHist = newHistogram();
  const apiMs = await runPool(measured, CLIENTS, submitter(baseUrl, token, apiLatency));
  const apiIngest = ingestHist;
  ingestHist = undefined;

  const counts = await app.resultsDb.prisma.$queryRaw<{ runs: bigint; samples: bigint; points: bigint }[]>`
    SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM samples) AS samples, (SELECT count(*) FROM time_series_points) AS points`;
  const c = counts[0]!;
  const expectedRuns = WARMUP + SUBMISSIONS;
  if (Number(c.runs) !== expectedRuns || Number(c.samples) !== expectedRuns * SAMPLES_PER_SUBMISSION || Number(c.points) !== expectedRuns * POINTS_PER_SUBMISSION) {
    throw new Error(`stored ${c.runs} runs / ${c.samples} samples / ${c.points} points, expected ${expectedRuns} / ${expectedRuns * SAMPLES_PER_SUBMISSION} / ${expectedRuns * POINTS_PER_SUBMISSION}`);
  }

  // --- plain multi-row INSERT, same rows, same concurrency ------------------------------------
  plainPool = new pg.Pool({ connectionString: benchUrl.toString(), max: CLIENTS });
  plainPool.on('error', () => {});
  await plainPool.query(PLAIN_SCHEMA);
  const stmt = plainStatements(SAMPLES_PER_SUBMISSION, POINTS_PER_SUBMISSION);
  const pool = plainPool;
  if (warm.length > 0) await runPool(warm, CLIENTS, async (w) => void (await plainInsert(pool, w, stmt)));
  const plainLatency = newHistogram();
  const plainMs = await runPool(measured, CLIENTS, async (w) => {
    const t0 = performance.now();
    await plainInsert(pool, w, stmt);
    plainLatency.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
  });

  // --- report ----------------------------------------------------------------------------------
  const apiSubs = SUBMISSIONS / (apiMs / 1000);
  const plainSubs = SUBMISSIONS / (plainMs / 1000);
  const apiRows = apiSubs * rowsPer;
  const plainRows = plainSubs * rowsPer;
  const ratio = apiRows / plainRows;

  const table = [
    ['', 'submissions', 'wall s', 'submissions/s', 'rows/s', 'p50 ms', 'p99 ms', 'max ms'],
    ['API (HTTP POST /v1/runs)', fmt(SUBMISSIONS), (apiMs / 1000).toFixed(2), fmt(apiSubs, 1), fmt(apiRows), ms(apiLatency.getValueAtPercentile(50)), ms(apiLatency.getValueAtPercentile(99)), ms(apiLatency.maxValue)],
    ['  of which ingestRun (server)', '', '', '', '', ms(apiIngest.getValueAtPercentile(50)), ms(apiIngest.getValueAtPercentile(99)), ms(apiIngest.maxValue)],
    ['plain multi-row INSERT (pg)', fmt(SUBMISSIONS), (plainMs / 1000).toFixed(2), fmt(plainSubs, 1), fmt(plainRows), ms(plainLatency.getValueAtPercentile(50)), ms(plainLatency.getValueAtPercentile(99)), ms(plainLatency.maxValue)],
  ];
  const widths = table[0]!.map((_, col) => Math.max(...table.map((row) => row[col]!.length)));
  const line = (row: string[]) => row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!))).join('  ');
  console.log('');
  console.log(line(table[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of table.slice(1)) console.log(line(row));
  console.log('');
  const meanHttp = apiLatency.mean - apiIngest.mean;
  console.log(
    `mean latency ${ms(apiLatency.mean)} ms = ingestRun ${ms(apiIngest.mean)} ms (${((apiIngest.mean / apiLatency.mean) * 100).toFixed(0)}%)` +
      ` + HTTP/parse/auth/validation/serialization ${ms(meanHttp)} ms`,
  );
  console.log(`rows per submission: ${rowsPer} (${SAMPLES_PER_SUBMISSION} samples + ${POINTS_PER_SUBMISSION} time-series points)`);
  console.log('');
  console.log(`ratio  API rows/s ÷ plain-insert rows/s = ${fmt(apiRows)} ÷ ${fmt(plainRows)} = ${ratio.toFixed(2)}  (target ≥ 0.50${ratio >= 0.5 ? ', met' : ', NOT met'})`);
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(err instanceof HttpFailure ? `non-2xx response: ${err.message}` : err);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
