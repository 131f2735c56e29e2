/**
 * Starts the API: opens the results database (embedded PGlite in .tunelab/results unless
 * DATABASE_URL is set), applies migrations, listens, and closes gracefully on SIGINT/SIGTERM.
 * `--quickstart` also mints a runner token and prints how to POST the sample submission.
 * Exit codes: 0 stopped by a signal, 1 failure (the embedded database's thread ending among them),
 * 2 bad environment, 3 cannot listen, 4 the embedded database is owned by another process (named
 * in the message).
 */
import { DatabaseOwnedError, openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { buildApp } from './app.ts';
import { loadEnv } from './config.ts';

const quickstart = process.argv.includes('--quickstart');
let env;
try {
  env = loadEnv();
} catch (e) {
  console.error(`tunelab-api: ${(e as Error).message}`);
  process.exit(2);
}

let db: ResultsDb;
try {
  db = await openResultsDb(env.DATABASE_URL, {
    dataDir: env.TUNELAB_DATA_DIR,
    timeouts: { statementMs: env.TUNELAB_DB_STATEMENT_TIMEOUT_MS, connectMs: env.TUNELAB_DB_CONNECT_TIMEOUT_MS },
    // Without its database a server answers every request with an error: stop, so that a supervisor restarts it.
    onThreadExit: (err) => {
      console.error(`tunelab-api: ${err.message}; stopping`);
      process.exit(1);
    },
  });
} catch (e) {
  if (!(e instanceof DatabaseOwnedError)) throw e;
  console.error(
    `tunelab-api: ${e.message}.\nOne process at a time owns an embedded database: use that API${e.owner?.url ? ` (${e.owner.url})` : ''}, ` +
      `stop it first (${e.owner ? `kill ${e.owner.pid}` : 'Ctrl-C in its terminal'}), or start this one on another TUNELAB_DATA_DIR or a PostgreSQL DATABASE_URL.`,
  );
  process.exit(4);
}
const migrations = await db.migrate();
const app = await buildApp({
  resultsDb: db,
  migrate: false,
  minRunnerVersion: env.TUNELAB_MIN_RUNNER_VERSION,
  rateLimitPerMinute: env.TUNELAB_RATE_LIMIT,
  readRateLimitPerMinute: env.TUNELAB_READ_RATE_LIMIT,
  readBudgetMs: env.TUNELAB_READ_BUDGET_MS,
  authFailuresPerMinute: env.TUNELAB_AUTH_FAILURE_LIMIT,
  bodyLimitBytes: env.TUNELAB_BODY_LIMIT_BYTES,
  logger: env.LOG_LEVEL === 'silent' ? false : { level: env.LOG_LEVEL },
  requestTimeoutMs: env.TUNELAB_REQUEST_TIMEOUT_MS,
  connectionTimeoutMs: env.TUNELAB_CONNECTION_TIMEOUT_MS,
  handlerTimeoutMs: env.TUNELAB_HANDLER_TIMEOUT_MS,
  fleet: { leaseSeconds: env.TUNELAB_JOB_LEASE_S, retryLimit: env.TUNELAB_JOB_RETRY_LIMIT },
});

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing');
    void app
      .close()
      .then(() => db.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}

try {
  await app.listen({ host: env.HOST, port: env.PORT });
} catch (e) {
  console.error(
    `tunelab-api: cannot listen on ${env.HOST}:${env.PORT}: ${(e as Error).message}\nSet PORT=… to use another port.`,
  );
  await db.close();
  process.exit(3);
}
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : env.PORT;
const url = env.TUNELAB_PUBLIC_URL ?? `http://${env.HOST}:${port}`;
// Next to the embedded database's lock, so the import, the demo and the site build can find us.
await db.advertise(`http://${env.HOST}:${port}`);

const lines = [
  '',
  `TuneLab API listening on ${url}`,
  `  results database: ${db.description} (migrations applied: ${migrations.applied.length}, already there: ${migrations.alreadyApplied.length})`,
  `  OpenAPI: ${url}/openapi.json   docs: ${url}/docs   readiness: ${url}/readyz`,
];
if (quickstart) {
  const name = `quickstart-${new Date()
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14)}-${Math.random().toString(36).slice(2, 6)}`;
  const runner = await db.createRunner(name);
  const operator = await db.createRunner(`${name}-operator`, { kind: 'operator' });
  lines.push(
    '',
    `Runner "${runner.name}" created. Its token is shown once:`,
    '',
    `  export TUNELAB_API_URL=${url}`,
    `  export TUNELAB_TOKEN=${runner.token}`,
    `  export TUNELAB_OPERATOR_TOKEN=${operator.token}   # requests fleet jobs (POST /v1/jobs)`,
    '',
    'Submit the sample run and read it back (in another terminal, from the repository root):',
    '',
    `  curl -sS -X POST "$TUNELAB_API_URL/v1/runs" -H "Authorization: Bearer $TUNELAB_TOKEN" \\`,
    `       -H 'Content-Type: application/json' -H 'Idempotency-Key: sample-1' \\`,
    `       --data-binary @tests/fixtures/sample-submission.json`,
    `  curl -sS "$TUNELAB_API_URL/v1/runs"`,
    '',
    'Ctrl-C stops the API; the data stays in the results database.',
  );
}
console.log(lines.join('\n'));
