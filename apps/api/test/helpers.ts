import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { childEnv } from '@tunelab/env';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { buildApp, type App, type BuildAppOptions } from '../src/index.ts';
import { buildTestApp } from '../src/testing.ts';

export { post, startApi } from '../src/testing.ts';
import { createTestDatabase, prismaOf } from '@tunelab/results-db/testing';
import { nodeArgsFor, startTcpProxy } from '@tunelab/test-support';

export const FIXTURE = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

export const clone = <T>(v: T): T => structuredClone(v);

/** Sets the field that a JSON Pointer (RFC 6901, as the problem's errors[].path) names in `doc`. */
export function setAt(doc: object, pointer: string, value: unknown): void {
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = keys.pop();
  if (last === undefined) throw new Error(`setAt: "${pointer}" names no field`);
  let node: Record<string, unknown> = doc as Record<string, unknown>;
  for (const k of keys) node = node[k] as Record<string, unknown>;
  node[last] = value;
}

/** `tunelab admin ARGS` (src/cli.ts) as its own process with this environment plus `env`. */
export async function runAdmin(env: Record<string, string>, ...args: string[]) {
  const cli = await nodeArgsFor(fileURLToPath(new URL('../src/cli.ts', import.meta.url)));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...cli, ...args], {
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Row counts of every table a submission writes: "nothing changed" means these are equal. */
export async function snapshot(db: ResultsDb) {
  const p = prismaOf(db);
  const [runs, samples, points, hardware, scenarios, versions, envs] = await Promise.all([
    p.run.count(),
    p.sample.count(),
    p.timeSeriesPoint.count(),
    p.hardwareProfile.count(),
    p.scenario.count(),
    p.scenarioVersion.count(),
    p.databaseEnvironment.count(),
  ]);
  return { runs, samples, points, hardware, scenarios, versions, envs };
}

export type Backend = 'postgresql' | 'pglite';
export const BACKENDS: Backend[] = ['postgresql', 'pglite'];

/** The app on a fresh results database of either kind, for `inject()` (no port). */
export async function startInjectable(backend: Backend, options: Omit<BuildAppOptions, 'resultsDb'> = {}) {
  const database = backend !== 'pglite' ? await createTestDatabase() : undefined;
  const db = await openResultsDb(database?.url, { dataDir: 'memory://' });
  await db.migrate();
  const app = await buildTestApp(db, options);
  await app.ready();
  const { token } = await db.createRunner(`test-${Math.random().toString(36).slice(2, 8)}`);
  return {
    app,
    db,
    token,
    async close() {
      await app.close();
      await db.close();
      await database?.drop();
    },
  };
}

/**
 * The API listening on a port, its results database a fresh PostgreSQL database reached through
 * a TCP proxy (cut it with `proxy.cut()`, stall it with `proxy.stall()`), and a runner token.
 */
export async function startApiThroughProxy(
  runnerName: string,
  dbOptions: NonNullable<Parameters<typeof openResultsDb>[1]> = {},
  appOptions: Omit<BuildAppOptions, 'resultsDb'> = {},
) {
  const database = await createTestDatabase();
  const server = new URL(database.url);
  const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
  const db = await openResultsDb(proxy.url(database.url), { poolSize: 4, ...dbOptions });
  await db.migrate();
  const token = (await db.createRunner(runnerName)).token;
  const app: App = await buildApp({ migrate: false, ...appOptions, resultsDb: db });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  const url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  return {
    database,
    proxy,
    db,
    app,
    url,
    token,
    async close() {
      proxy.heal();
      await app.close();
      await db.close();
      await proxy.close().catch(() => undefined);
      await database.drop();
    },
  };
}
