/**
 * The one-command demo (`npm start`): start the API on the embedded results database, mint a
 * runner token, run both VACUUM scenarios at default scale against a local PostgreSQL through the
 * real `tunelab` CLI (which submits over HTTP), import the published results, build the report
 * site, and print where to open it and the headline verdicts.
 *
 *   npm start [-- --target postgres://user@host:port/db] [--scenarios a,b] [--repetitions N] [--param k=v]… [--site-dir DIR]
 *
 * Exit codes: 0 ok, 1 a step failed, 2 usage error, 3 the target PostgreSQL is unreachable.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '@tunelab/api';
import { openResultsDb, type PublishedImportResult, type ResultsDb } from '@tunelab/results-db';
import { childEnv, loadDemoEnv } from './env.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNNER_BIN = join(REPO_ROOT, 'apps/runner/bin/tunelab.mjs');
const SCENARIOS_DIR = join(REPO_ROOT, 'scenarios');
const DEFAULT_SCENARIOS = ['vacuum-index-cleanup', 'vacuum-full-rewrite'];

const USAGE = `usage: npm start [-- options]

Runs the TuneLab demo end to end on this machine and builds the report site.

options:
  --target URL        PostgreSQL to benchmark (default $TUNELAB_TARGET or
                      postgres://postgres@127.0.0.1:5432/postgres); the runner creates and drops
                      its own databases there
  --scenarios LIST    comma-separated scenario keys (default ${DEFAULT_SCENARIOS.join(',')})
  --repetitions N     repetitions per variant (default: each scenario's own)
  --param k=v         scenario parameter passed to every run (repeatable), e.g. --param rows=50000
  --no-site           skip the site build
  --site-dir DIR      where the site is built (default apps/site/dist)
  -h, --help          this text

environment: TUNELAB_DATA_DIR (embedded results database, default .tunelab/results),
DATABASE_URL (use a PostgreSQL results database instead), PORT (API port, default 8787; 0 = any).
exit codes: 0 ok, 1 a step failed, 2 usage error, 3 the target PostgreSQL is unreachable`;

const STEP = (n: number, total: number, text: string) => console.log(`\n\x1b[1m[${n}/${total}] ${text}\x1b[0m`);

function fail(code: number, message: string): never {
  console.error(`\ntunelab demo: ${message}`);
  process.exit(code);
}

let args;
try {
  args = parseArgs({
    options: {
      target: { type: 'string' },
      scenarios: { type: 'string' },
      repetitions: { type: 'string' },
      param: { type: 'string', multiple: true, default: [] },
      'no-site': { type: 'boolean', default: false },
      'site-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }).values;
} catch (e) {
  fail(2, `${(e as Error).message}\n\n${USAGE}`);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
let env;
try {
  env = loadDemoEnv();
} catch (e) {
  fail(2, (e as Error).message);
}
const target = args.target ?? env.TUNELAB_TARGET;
const scenarios = (args.scenarios ?? DEFAULT_SCENARIOS.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const key of scenarios) {
  if (!existsSync(join(SCENARIOS_DIR, key, 'scenario.yaml')))
    fail(2, `no scenario ${JSON.stringify(key)} in ${relative(process.cwd(), SCENARIOS_DIR) || '.'}`);
}
if (args.repetitions !== undefined && !/^[1-9]\d{0,2}$/.test(args.repetitions))
  fail(2, `--repetitions must be a whole number from 1 to 999, got ${JSON.stringify(args.repetitions)}`);
for (const p of args.param) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=.+$/.test(p)) fail(2, `--param must look like name=value, got ${JSON.stringify(p)}`);
}

const dataDir = resolve(REPO_ROOT, env.TUNELAB_DATA_DIR);
const siteDir = resolve(env.INIT_CWD ?? process.cwd(), args['site-dir'] ?? join(REPO_ROOT, 'apps/site/dist'));
const total = args['no-site'] ? 4 : 5;
const started = performance.now();

// 1. Is there a PostgreSQL to benchmark? Say so plainly before anything else happens.
STEP(1, total, `Checking the PostgreSQL to benchmark: ${redact(target)}`);
try {
  const c = new pg.Client({ connectionString: target, connectionTimeoutMillis: 5000 });
  await c.connect();
  const v = await c.query<{ server_version: string }>('SHOW server_version');
  await c.end();
  console.log(`  PostgreSQL ${v.rows[0]?.server_version} is reachable.`);
} catch (e) {
  fail(
    3,
    `cannot reach PostgreSQL at ${redact(target)}: ${(e as Error).message}\n` +
      `Start a local server, or point the demo at one you may create databases on:\n` +
      `  npm start -- --target postgres://USER:PASSWORD@HOST:5432/postgres`,
  );
}

// 2. API on the results database, a fresh runner token, the published figures.
STEP(2, total, 'Starting the API on the results database');
const db: ResultsDb = await openResultsDb(env.DATABASE_URL, { dataDir });
await db.migrate();
const published = await db.importPublished(SCENARIOS_DIR);
const app = await buildApp({
  resultsDb: db,
  migrate: false,
  logger: false,
  minRunnerVersion: env.TUNELAB_MIN_RUNNER_VERSION,
});
try {
  await app.listen({ host: env.HOST, port: env.PORT });
} catch {
  await app.listen({ host: env.HOST, port: 0 }); // the default port is taken: any free one will do
}
const address = app.server.address();
const apiUrl = `http://${env.HOST}:${typeof address === 'object' && address ? address.port : env.PORT}`;
const runnerName = `demo-${new Date()
  .toISOString()
  .replace(/[-:TZ.]/g, '')
  .slice(0, 14)}`;
const { token } = await db.createRunner(runnerName);
console.log(`  API: ${apiUrl}   results database: ${db.description}`);
console.log(`  runner "${runnerName}" minted; published figures: ${describeImport(published)}`);

let interrupted = false;
process.on('SIGINT', () => {
  // The runner child gets the same SIGINT from the terminal and drops its databases; we wait for it.
  interrupted = true;
});

// 3. Run each scenario through the real CLI: progress bars, article-style table, HTTP submit.
STEP(3, total, `Running ${scenarios.join(' and ')} at default scale (the runner shows its own progress)`);
const outcomes: { key: string; code: number | null; seconds: number }[] = [];
for (const key of scenarios) {
  if (interrupted) break;
  const t0 = performance.now();
  const argv = [RUNNER_BIN, 'run', key, '--target', target, '--api', apiUrl, '--token', token];
  const extra = [
    ...(args.repetitions ? ['--repetitions', args.repetitions] : []),
    ...args.param.flatMap((p) => ['--param', p]),
  ];
  argv.push(...extra);
  console.log(`\n  $ tunelab run ${key} --target ${redact(target)} --api ${apiUrl} --token … ${extra.join(' ')}`);
  const code = await new Promise<number | null>((done) => {
    const child = spawn(process.execPath, argv, {
      stdio: 'inherit',
      cwd: REPO_ROOT,
      env: childEnv({ TUNELAB_SCENARIOS_DIR: SCENARIOS_DIR }),
    });
    child.on('close', (c) => done(c));
  });
  outcomes.push({ key, code, seconds: (performance.now() - t0) / 1000 });
}

// 4. Headline verdicts, from the same comparison code as the API and the site.
STEP(4, total, 'Headline verdicts');
const headlines: string[] = [];
for (const key of scenarios) {
  const { items } = await db.listFindings({
    scenario: key,
    metric: 'duration',
    source: 'all',
    groupBy: 'class',
    direction: 'lower-is-better',
    limit: 50,
  });
  for (const f of items)
    headlines.push(
      `  ${key} · ${f.source === 'published' ? 'published' : 'measured'} · ${f.hardwareClass}: ${f.sentence}`,
    );
}
console.log(headlines.length > 0 ? headlines.join('\n') : '  (no comparisons yet)');
await app.close();
await db.close();

const failed = outcomes.filter((o) => o.code !== 0);
if (interrupted)
  fail(130, 'interrupted; the runner dropped the databases it created, and what was stored stays stored.');

// 5. The static site, built from the results database (the API is closed: PGlite has one owner).
if (!args['no-site']) {
  STEP(5, total, 'Building the report site');
  const code = await new Promise<number | null>((done) => {
    const child = spawn('npm', ['run', 'build', '-w', '@tunelab/site', '--', '--outDir', siteDir], {
      stdio: 'inherit',
      cwd: REPO_ROOT,
      env: childEnv({ TUNELAB_DATA_DIR: dataDir, ASTRO_TELEMETRY_DISABLED: '1' }),
    });
    child.on('close', (c) => done(c));
  });
  if (code !== 0)
    fail(
      1,
      'the site build failed (see its message above); the runs are stored, `npm run build -w @tunelab/site` retries it.',
    );
}

const minutes = (performance.now() - started) / 60_000;
console.log(`\n\x1b[1mTuneLab demo finished in ${minutes.toFixed(1)} min\x1b[0m`);
for (const o of outcomes)
  console.log(
    `  ${o.key}: ${o.code === 0 ? 'measured and stored' : `runner exited ${o.code}`} (${o.seconds.toFixed(0)} s)`,
  );
if (!args['no-site']) {
  console.log(`  site: ${relative(process.cwd(), siteDir) || siteDir}/index.html`);
  console.log(
    `  open it: npm run preview -w @tunelab/site${args['site-dir'] ? ` -- --outDir ${siteDir}` : ''}   → http://localhost:4321/`,
  );
}
console.log(
  `  the API again, on the same data: npm run api   (results database: ${relative(process.cwd(), dataDir) || dataDir})`,
);
if (failed.length > 0)
  fail(1, `${failed.map((o) => o.key).join(', ')} did not finish; see the runner's message above.`);

function redact(url: string) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

function describeImport(r: PublishedImportResult) {
  const created = r.imported.filter((i) => i.outcome === 'created').length;
  return `${created} runs imported, ${r.imported.length - created} already there`;
}
