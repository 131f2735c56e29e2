/**
 * Comparison benchmark (not a test): how do a filtered `GET /v1/comparisons` and a scenario's
 * `GET /v1/answers` scale with the size of the results database?
 *
 *   npm run bench:compare -- [--iterations 200] [--sizes 10000,100000,1000000]
 *                            [--database-url postgresql://postgres@127.0.0.1:5432/postgres]
 *
 * A fresh database `<BENCH_DATABASE_PREFIX>cmp_<random>` (dropped at the end, also on failure and
 * Ctrl-C) is bulk-loaded with SQL generate_series — not through the API — to 10^4, 10^5 and 10^6
 * samples (`--sizes`, ascending, `10^7` or 10000000 also; the smallest is 400, the samples of the
 * answer itself): thousands of hardware profiles over 75 storage × cores × memory combinations,
 * four scenarios, three PostgreSQL majors, 40 samples per run (4 variants × 5 repetitions × 2
 * metrics).
 *
 * The query asks what an engineer asks: one scenario and metric on one hardware class
 * (NVMe, 16 cores, 64 GB, PostgreSQL 16). Its answer — 10 runs on 5 machines, 200 samples — is the
 * same at every size; what grows is everything around it, including other-scenario runs on the
 * very same hardware class. So latency(10^6) ÷ latency(10^4) measures whether the query's cost
 * follows its answer (index lookups) or the table (a scan); the aim is ≤ 2. The benchmark also
 * counts sequential scans of `samples` during the timed queries, which must be 0.
 *
 * The answers part: one of the four scenarios is vacuum-full-rewrite of the scenario folders (its
 * four variants, its primary metric `duration`), holding a quarter of the runs, so its answers are
 * computed over every one of its samples. At each size its kept answer is recomputed (as the job
 * after an ingest does, timed once), then `--iterations` reads of its default query
 * `GET /v1/answers?scenario=vacuum-full-rewrite` are timed, each past the in-memory read cache (a
 * new data version before each), so each asks the database for the kept answer (the body is read
 * from it once per recomputation, then only the row's stamp): p50 and p99,
 * aim p99 ≤ 100 ms at the largest size; beside each, the kept answer's read from the database
 * alone (`keptAnswer`), to tell the database's part from the HTTP layers'. A progress line on stderr every 5 s (from a worker
 * thread, so also while a recomputation holds this thread) says which size is loading or timed.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { progressNotes } from '@tunelab/env/bench';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { buildApp, type App } from '../src/index.ts';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { parseBenchArgs, positiveInt } from './support.ts';
import { loadBenchEnv } from './env.ts';

const { args } = parseBenchArgs(
  'npm run bench:compare -- [--iterations 200] [--sizes 10000,100000,1000000] [--database-url URL]',
  {
    iterations: { type: 'string', default: '200' },
    sizes: { type: 'string', default: '10000,100000,1000000' },
  },
);
const ITERATIONS = positiveInt('iterations', args.iterations, 10);
/** Sample counts to grow the database to, ascending (`10^7` for 10000000); the answer's own 10 runs hold 400. */
const SIZES = args.sizes
  .split(',')
  .map((v) => v.trim().replace(/^10\^(\d{1,2})$/, (_, e: string) => `1${'0'.repeat(Number(e))}`))
  .map((v) => positiveInt('sizes', v, 400));
if (SIZES.some((n, i) => i > 0 && n <= SIZES[i - 1]!)) {
  console.error(`--sizes must be ascending, got ${args.sizes}`);
  process.exit(2);
}
/** 10^4 for 10_000, else the count itself: how the summary names a size. */
const sizeName = (n: number) => (/^10*$/.test(String(n)) ? `10^${String(n).length - 1}` : n.toLocaleString('en-US'));
const SAMPLES_PER_RUN = 40;
const RUNS_PER_PROFILE = 4;
/** The second is a scenario of the folders, so that its answers are computed as for any run. */
const SCENARIOS = ['bench-vacuum', 'vacuum-full-rewrite', 'bench-recovery', 'bench-compression'];
const ANSWERS_QUERY = '/v1/answers?scenario=vacuum-full-rewrite';
const QUERY =
  '/v1/comparisons?scenario=bench-vacuum&metric=duration&storage=nvme&minCores=16&maxCores=16&minMemoryGb=64&maxMemoryGb=64&engine=postgresql&major=16&groupBy=class';

const GIB = 1024 ** 3;
const CLASS_SQL = (cores: string, mem: string, storage: string) =>
  `${cores} || ' cores / ' || ${mem} || ' GB / ' || upper(${storage})`;

/** Fixed rows: scenarios, versions, database servers, and the 5 target machines with 10 runs. */
function setupSql(): string {
  const scenarios = SCENARIOS.map((key, i) => `(bench_uuid('sc${i}'), '${key}', '${key}')`).join(',');
  const versions = SCENARIOS.map(
    (_, i) => `(bench_uuid('sv${i}'), bench_uuid('sc${i}'), encode(sha256('v${i}'::bytea), 'hex'))`,
  ).join(',');
  const envs = [14, 15, 16]
    .map((m, i) => `(bench_uuid('de${i}'), 'postgresql', 'PostgreSQL ${m}.4', ${m}, 4, repeat('0', 64), '{}'::jsonb)`)
    .join(',');
  return `
    -- A deterministic id with the version-4 bits set, so it reads as a UUID the API's schema accepts.
    CREATE FUNCTION bench_uuid(t text) RETURNS uuid IMMUTABLE LANGUAGE sql
      AS $$ SELECT overlay(overlay(md5(t) PLACING '4' FROM 13) PLACING '8' FROM 17)::uuid $$;
    INSERT INTO scenarios (id, key, title) VALUES ${scenarios};
    INSERT INTO scenario_versions (id, scenario_id, version_hash) VALUES ${versions};
    INSERT INTO database_environments (id, engine, version, major, minor, settings_hash, settings) VALUES ${envs};
    INSERT INTO hardware_profiles (id, fingerprint, hardware_class, cpu_model, physical_cores, logical_cpus, memory_bytes,
                                   storage_kind, os, kernel, spec, source)
    SELECT bench_uuid('target' || p), encode(sha256(('target' || p)::bytea), 'hex'), '16 cores / 64 GB / NVME', 'Target CPU ' || p,
           16, 32, 64::bigint * ${GIB}, 'nvme', 'Linux', '6.1', '{}'::jsonb, 'measured'
    FROM generate_series(0, 4) p;
    WITH ins AS (
      INSERT INTO runs (id, idempotency_key, request_hash, source, scenario_version_id, hardware_profile_id, database_environment_id,
                        params, runner_version, started_at, finished_at, sample_count, time_series_count, document)
      SELECT bench_uuid('target-run' || r), 'target-' || r, repeat('0', 64), 'measured', bench_uuid('sv0'), bench_uuid('target' || (r % 5)),
             bench_uuid('de2'), '{}'::jsonb, '0.1.0', now(), now(), ${SAMPLES_PER_RUN}, 0, '{}'::json
      FROM generate_series(0, 9) r
      RETURNING id, scenario_version_id, hardware_profile_id
    )
    ${samplesFrom('ins')};`;
}

/** 4 variants × 5 repetitions × 2 metrics for every run in `source`. */
function samplesFrom(source: string): string {
  return `
    INSERT INTO samples (run_id, scenario_version_id, hardware_profile_id, variant, repetition, metric, unit, value)
    SELECT i.id, i.scenario_version_id, i.hardware_profile_id, v.name, rep, m.name, m.unit,
           v.base * m.scale * (0.95 + 0.1 * random())
    FROM ${source} i
    CROSS JOIN (VALUES ('full-rewrite', 100.0), ('vacuum', 80.0), ('vacuum-reindex', 120.0), ('cluster', 101.0)) v(name, base)
    CROSS JOIN generate_series(1, 5) rep
    CROSS JOIN (VALUES ('duration', 's', 1.0), ('wal_bytes', 'bytes', 1e6)) m(name, unit, scale)`;
}

/**
 * Background machines p0..p1-1 over every storage × cores × memory combination (one of the 75 is
 * the target class), and their runs. Runs of the benchmarked scenario never land on the target
 * class, so the answer stays the same; other scenarios' runs do.
 */
function noiseSql(p0: number, p1: number): string {
  const attrs = `(ARRAY['ssd','hdd','nvme'])[1 + p % 3] AS storage, (ARRAY[2,4,8,16,32])[1 + (p / 3) % 5] AS cores, (ARRAY[8,16,32,64,128])[1 + (p / 15) % 5] AS mem`;
  return `
    INSERT INTO hardware_profiles (id, fingerprint, hardware_class, cpu_model, physical_cores, logical_cpus, memory_bytes,
                                   storage_kind, os, kernel, spec, source)
    SELECT bench_uuid('hw' || p), encode(sha256(('hw' || p)::bytea), 'hex'), ${CLASS_SQL('a.cores', 'a.mem', 'a.storage')}, 'Bench CPU ' || p,
           a.cores, a.cores * 2, a.mem::bigint * ${GIB}, a.storage, 'Linux', '6.1', '{}'::jsonb, 'measured'
    FROM generate_series(${p0}, ${p1 - 1}) p, LATERAL (SELECT ${attrs}) a;
    WITH ins AS (
      INSERT INTO runs (id, idempotency_key, request_hash, source, scenario_version_id, hardware_profile_id, database_environment_id,
                        params, runner_version, started_at, finished_at, sample_count, time_series_count, document)
      SELECT bench_uuid('run' || r), 'bench-' || r, repeat('0', 64), 'measured',
             bench_uuid('sv' || (CASE WHEN a.storage = 'nvme' AND a.cores = 16 AND a.mem = 64 AND r % 4 = 0 THEN 1 ELSE r % 4 END)),
             bench_uuid('hw' || p), bench_uuid('de' || (r % 3)), '{}'::jsonb, '0.1.0', now(), now(), ${SAMPLES_PER_RUN}, 0, '{}'::json
      FROM generate_series(${p0}, ${p1 - 1}) p, LATERAL (SELECT ${attrs}) a,
           LATERAL (SELECT p * ${RUNS_PER_PROFILE} + k AS r FROM generate_series(0, ${RUNS_PER_PROFILE - 1}) k) rr
      RETURNING id, scenario_version_id, hardware_profile_id
    )
    ${samplesFrom('ins')};`;
}

const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;

type Row = { size: number; samples: number; p50: number; p95: number; loadS: number; seqScans: number };
/** The kept answers' figures at one size: its recomputation, its body and the timed reads. */
type AnswersRow = { recomputeS: number; bytes: number; p50: number; p99: number; keptP50: number; keptP99: number };
/** What the progress line shows: the size at hand and how far its load or its timed queries are. */
const progress = { size: 0, step: 'setup', done: 0, total: 0 };
const notes = progressNotes('compare', 'migrating and loading the answer');
const noteOf = () =>
  progress.step === 'recomputing the kept answers'
    ? `${sizeName(progress.size)} samples, ${progress.step}`
    : `${sizeName(progress.size)} samples, ${progress.step}: ${progress.done.toLocaleString('en-US')} of ${progress.total.toLocaleString('en-US')} ${progress.step === 'load' ? 'machines' : 'queries'}`;
/** Moves the progress on (the worker thread prints it). */
function advance(patch: Partial<typeof progress>): void {
  Object.assign(progress, patch);
  notes.set(noteOf());
}

/** Grows the database to `size` samples from `profiles` background machines; returns the new count. */
async function load(admin: pg.Client, size: number, profiles: number): Promise<number> {
  const {
    rows: [have],
  } = await admin.query<{ n: string }>('SELECT count(*) AS n FROM samples');
  const runsNeeded = Math.max(0, Math.round((size - Number(have?.n ?? 0)) / SAMPLES_PER_RUN));
  const newProfiles = Math.ceil(runsNeeded / RUNS_PER_PROFILE);
  advance({ size, step: 'load', done: 0, total: newProfiles });
  // Load in slices so each statement stays moderate in memory and progress is visible.
  const slice = 2_500;
  for (let p = profiles; p < profiles + newProfiles; p += slice) {
    await admin.query(noiseSql(p, Math.min(p + slice, profiles + newProfiles)));
    advance({ done: Math.min(p + slice, profiles + newProfiles) - profiles });
  }
  await admin.query('ANALYZE');
  return profiles + newProfiles;
}

/** Checks the answer at this size, warms up, then times `ITERATIONS` computed queries. */
async function time(api: App, admin: pg.Client, size: number, loadS: number): Promise<Row> {
  const {
    rows: [count],
  } = await admin.query<{ n: string }>('SELECT count(*) AS n FROM samples');
  const check = await api.inject({ method: 'GET', url: QUERY });
  const body = check.json<{ groups: { runCount: number; variants: { n: number }[] }[] }>();
  if (check.statusCode !== 200 || body.groups.length !== 1 || body.groups[0]?.runCount !== 10) {
    throw new Error(`unexpected answer (${check.statusCode}): ${check.body.slice(0, 300)}`);
  }
  // Every timed query is computed: a new data version makes the answer cache miss (it would
  // otherwise answer all but the first from memory and time nothing of the query).
  const computed = () => {
    api.markDataChanged();
    return api.inject({ method: 'GET', url: QUERY });
  };
  advance({ step: 'warm-up', done: 0, total: 20 });
  for (; progress.done < 20; advance({ done: progress.done + 1 })) await computed();
  // The statistics collector reports with a delay: let this connection's count(*) above land
  // before the baseline, or it shows as a sequential scan of the timed queries.
  await new Promise((r) => setTimeout(r, 1200));
  const seqBefore = await seqScans(admin);
  const latencies: number[] = [];
  advance({ step: 'timed queries', done: 0, total: ITERATIONS });
  for (; progress.done < ITERATIONS; advance({ done: progress.done + 1 })) {
    const start = performance.now();
    const res = await computed();
    latencies.push(performance.now() - start);
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
  }
  // The statistics collector reports with a delay; give it a moment before reading.
  await new Promise((r) => setTimeout(r, 1200));
  const seqDuring = (await seqScans(admin)) - seqBefore;
  latencies.sort((x, y) => x - y);
  const p50 = percentile(latencies, 0.5);
  return { size, samples: Number(count?.n), p50, p95: percentile(latencies, 0.95), loadS, seqScans: seqDuring };
}

/**
 * Recomputes the answered scenario's kept answers (what the job queued by an ingest runs), then
 * times `ITERATIONS` reads of its default query, each past the in-memory read cache.
 */
async function timeAnswers(api: App, size: number): Promise<AnswersRow> {
  advance({ size, step: 'recomputing the kept answers', done: 0, total: 1 });
  const started = performance.now();
  await api.keptAnswers.refresh('vacuum-full-rewrite');
  const recomputeS = (performance.now() - started) / 1000;
  const read = () => {
    api.markDataChanged();
    return api.inject({ method: 'GET', url: ANSWERS_QUERY });
  };
  // What the timed reads get: the kept answer, current (the read cache in front may drop its headers).
  const kept = await api.resultsDb.keptAnswer({ scenario: 'vacuum-full-rewrite', source: 'measured' });
  const check = await read();
  if (check.statusCode !== 200 || kept?.state !== 'current' || check.body !== kept.body)
    throw new Error(`unexpected answers (${check.statusCode}, kept ${kept?.state}): ${check.body.slice(0, 300)}`);
  advance({ step: 'timed answers', done: 0, total: ITERATIONS });
  // Side by side, each iteration: the whole GET, and the kept answer's read from the database alone.
  const latencies: number[] = [];
  const keptLatencies: number[] = [];
  for (; progress.done < ITERATIONS; advance({ done: progress.done + 1 })) {
    const start = performance.now();
    const res = await read();
    latencies.push(performance.now() - start);
    if (res.statusCode !== 200) throw new Error(`answers status ${res.statusCode}`);
    const keptStart = performance.now();
    await api.resultsDb.keptAnswer({ scenario: 'vacuum-full-rewrite', source: 'measured' });
    keptLatencies.push(performance.now() - keptStart);
  }
  latencies.sort((x, y) => x - y);
  keptLatencies.sort((x, y) => x - y);
  return {
    recomputeS,
    bytes: Buffer.byteLength(check.body),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    keptP50: percentile(keptLatencies, 0.5),
    keptP99: percentile(keptLatencies, 0.99),
  };
}

function summarize(rows: Row[], answers: AnswersRow[], started: number): void {
  const first = rows[0]!;
  const last = rows.at(-1)!;
  console.log('\n| samples | p50 ms | p95 ms | seq scans of samples |\n| ---: | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.samples} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.seqScans} |`);
  console.log(
    `\nmeasured: GET /v1/comparisons on one hardware class (10 runs, 200 samples), ${ITERATIONS} computed queries per size, as the samples table grows from ${first.samples.toLocaleString('en-US')} to ${last.samples.toLocaleString('en-US')}`,
  );
  console.log(
    `latency(${sizeName(last.size)}) ÷ latency(${sizeName(first.size)}): p50 ${(last.p50 / first.p50).toFixed(2)}, p95 ${(last.p95 / first.p95).toFixed(2)} (aim ≤ 2); seq scans of samples: ${rows.reduce((n, r) => n + r.seqScans, 0)} (aim 0)`,
  );
  console.log(
    '\n| samples | answers recomputed in s | body bytes | GET /v1/answers p50 ms | p99 ms | kept row read p50 ms | p99 ms |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const [i, a] of answers.entries())
    console.log(
      `| ${rows[i]!.samples} | ${a.recomputeS.toFixed(1)} | ${a.bytes} | ${a.p50.toFixed(2)} | ${a.p99.toFixed(2)} | ${a.keptP50.toFixed(2)} | ${a.keptP99.toFixed(2)} |`,
    );
  const lastAnswers = answers.at(-1)!;
  console.log(
    `GET /v1/answers p99 at the largest size (${last.samples.toLocaleString('en-US')} samples): ${lastAnswers.p99.toFixed(2)} ms (aim ≤ 100), p50 ${lastAnswers.p50.toFixed(2)} ms; its kept answer was recomputed in ${lastAnswers.recomputeS.toFixed(1)} s`,
  );
  console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

async function main() {
  const database = await createTestDatabase(`${loadBenchEnv().BENCH_DATABASE_PREFIX}cmp`, args['database-url']);
  let db: ResultsDb | undefined;
  let app: App | undefined;
  const admin = new pg.Client({ connectionString: database.url });
  const cleanup = async () => {
    await app?.close().catch(() => {});
    await db?.close().catch(() => {});
    await admin.end().catch(() => {});
    await database.drop();
  };
  const onSignal = () => {
    console.error('\ninterrupted; dropping the benchmark database');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    db = await openResultsDb(database.url);
    await db.migrate();
    // The timed queries are one client far past the per-address read limit (600/min): lift it.
    app = await buildApp({ resultsDb: db, migrate: false, readRateLimitPerMinute: 1_000_000_000 });
    await admin.connect();
    console.log(`database ${database.name}; sizes ${SIZES.join(', ')} samples; query: GET ${QUERY}`);
    const t0 = performance.now();
    await admin.query(setupSql());
    let profiles = 0;
    const rows: Row[] = [];
    const answers: AnswersRow[] = [];
    for (const size of SIZES) {
      const loadStart = performance.now();
      profiles = await load(admin, size, profiles);
      const row = await time(app, admin, size, (performance.now() - loadStart) / 1000);
      rows.push(row);
      console.log(
        `${String(row.samples).padStart(9)} samples (${profiles + 5} machines, loaded in ${row.loadS.toFixed(1)} s): p50 ${row.p50.toFixed(2)} ms  p95 ${row.p95.toFixed(2)} ms  seq scans of samples: ${row.seqScans}`,
      );
      const a = await timeAnswers(app, size);
      answers.push(a);
      console.log(
        `${' '.repeat(9)} answers: recomputed in ${a.recomputeS.toFixed(1)} s (${a.bytes} bytes); GET /v1/answers p50 ${a.p50.toFixed(2)} ms  p99 ${a.p99.toFixed(2)} ms; the kept row alone p50 ${a.keptP50.toFixed(2)} ms  p99 ${a.keptP99.toFixed(2)} ms`,
      );
    }
    summarize(rows, answers, t0);
  } finally {
    notes.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
}

async function seqScans(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    `SELECT coalesce(seq_scan, 0) AS n FROM pg_stat_user_tables WHERE relname = 'samples'`,
  );
  return Number(rows[0]?.n ?? 0);
}

await main();
