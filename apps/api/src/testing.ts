/**
 * A real API for tests (`@tunelab/api/testing`): on a fresh PostgreSQL database of its own,
 * listening on a free loopback port, with rate limits no test reaches. Used by the API's own tests
 * and by the cross-workspace tests in `tests/`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { envWithoutTuneLab } from '@tunelab/env';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { nodeArgsFor } from '@tunelab/test-support';
import { buildApp, type BuildAppOptions } from './index.ts';

/**
 * The app on `db` (already migrated) with rate limits no test reaches, and reads that always wait
 * for their fresh answer (`readBudgetMs: 0`): a test that reads after it stored a run must not get
 * the earlier answer because the machine was slow (read-budget.test.ts sets a budget).
 */
export const buildTestApp = (db: ResultsDb, options: Omit<BuildAppOptions, 'resultsDb'>) =>
  buildApp({
    resultsDb: db,
    migrate: false,
    rateLimitPerMinute: 100_000,
    authFailuresPerMinute: 100_000,
    readRateLimitPerMinute: 100_000,
    readBudgetMs: 0,
    ...options,
  });

/** What the database holds before the test starts: the published figures of `scenariosDir`, then `runs` submitted through the API. */
export interface StartApiData {
  /** Scenario folders to load the scenarios from and import the published figures of. */
  scenariosDir?: string;
  /** Submissions POSTed in order, each with its idempotency key; anything but 201 fails the start. */
  runs?: readonly { key: string; body: unknown }[];
}

/** A real API on a real PostgreSQL database of its own (named `<databasePrefix>_<random>`), listening on a free loopback port. */
export async function startApi(
  options: Omit<BuildAppOptions, 'resultsDb'> = {},
  databasePrefix?: string,
  data: StartApiData = {},
) {
  const database = await createTestDatabase(databasePrefix);
  const db = await openResultsDb(database.url, data.scenariosDir ? { scenariosDir: data.scenariosDir } : {});
  const close = async () => {
    await app?.close();
    await db.close();
    await database.drop();
  };
  let app: Awaited<ReturnType<typeof buildTestApp>> | undefined;
  try {
    await db.migrate();
    if (data.scenariosDir) await db.importPublished(data.scenariosDir);
    app = await buildTestApp(db, options);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const { token } = await db.createRunner(`test-${Math.random().toString(36).slice(2, 8)}`);
    for (const run of data.runs ?? []) {
      const res = await post(url, token, run.body, { 'idempotency-key': run.key });
      if (res.status !== 201) throw new Error(`startApi: run ${run.key} answered ${res.status}: ${await res.text()}`);
    }
    return { app, db, url, token, databaseUrl: database.url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `POST /v1/runs` with the runner token (none when null); a string or byte body is sent as is. */
export function post(url: string, token: string | null, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : body instanceof Uint8Array ? Buffer.from(body) : JSON.stringify(body),
  });
}

/** `npm run api:quickstart`: the API as a real process. */
export type ApiProcess = { child: ChildProcess; pid: number; url: string; token: string; out: () => string };

/**
 * `npm run api:quickstart` as a real process on the embedded results database in `dataDir`
 * (the caller's TuneLab settings left out), started from its bundle (`nodeArgsFor` of
 * @tunelab/test-support: built once per test file): resolves once it listens and printed a runner
 * token, rejects with what it printed if it exits first.
 */
export async function startQuickstartApi(dataDir: string): Promise<ApiProcess> {
  const server = await nodeArgsFor(fileURLToPath(new URL('./server.ts', import.meta.url)));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...server, '--quickstart'], {
      // Reads wait for their fresh answer, as in buildTestApp.
      env: envWithoutTuneLab({
        TUNELAB_DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        TUNELAB_READ_BUDGET_MS: '0',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const url = /TuneLab API listening on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /TUNELAB_TOKEN=(tlr_\S+)/.exec(out)?.[1];
      if (url && token) resolve({ child, pid: child.pid!, url, token, out: () => out });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`API exited ${code} before listening:\n${out}`)));
  });
}
