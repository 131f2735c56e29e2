import { readFileSync } from 'node:fs';
import net from 'node:net';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { buildApp, type App, type BuildAppOptions } from '../src/index.ts';
import { createTestDatabase, prismaOf } from '@tunelab/results-db/testing';

export const FIXTURE = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
);

export const clone = <T>(v: T): T => structuredClone(v);

/** A real API on a real PostgreSQL database of its own (named `<databasePrefix>_<random>`), listening on a free loopback port. */
export async function startApi(options: Omit<BuildAppOptions, 'resultsDb'> = {}, databasePrefix?: string) {
  const database = await createTestDatabase(databasePrefix);
  const db = await openResultsDb(database.url);
  await db.migrate();
  const app = await buildApp({
    resultsDb: db,
    migrate: false,
    rateLimitPerMinute: 100_000,
    authFailuresPerMinute: 100_000,
    readRateLimitPerMinute: 100_000,
    ...options,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const { token } = await db.createRunner(`test-${Math.random().toString(36).slice(2, 8)}`);
  return {
    app,
    db,
    url,
    token,
    async close() {
      await app.close();
      await db.close();
      await database.drop();
    },
  };
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

export function post(url: string, token: string | null, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

/**
 * A TCP proxy in front of PostgreSQL that can cut every connection — the results database
 * "stopping" mid-request, as seen from the API — and come back on the same port; or stall:
 * drop every byte both ways with the sockets left open (no FIN, no RST: a network cut) and heal.
 */
export async function startPgProxy(target = { host: '127.0.0.1', port: 5432 }) {
  const sockets = new Set<net.Socket>();
  let onClientData: ((chunk: Buffer) => void) | undefined;
  let stalled = false;
  const makeServer = () =>
    net.createServer((client) => {
      const upstream = net.connect(target);
      sockets.add(client);
      sockets.add(upstream);
      client.on('data', (chunk) => {
        onClientData?.(chunk);
        if (!stalled && !upstream.destroyed) upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        if (!stalled && !client.destroyed) client.write(chunk);
      });
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
  let server = makeServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    /** From now on every byte is dropped, both ways; the sockets stay open. */
    stall() {
      stalled = true;
    },
    /** Bytes flow again (the ones dropped meanwhile are lost). */
    heal() {
      stalled = false;
    },
    /** Calls `fn` with every chunk the API sends to the database. */
    watch(fn: ((chunk: Buffer) => void) | undefined) {
      onClientData = fn;
    },
    /** Refuses new connections and cuts the open ones. */
    async stop() {
      await new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      });
    },
    async start() {
      server = makeServer();
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
  };
}

export type Backend = 'postgresql' | 'pglite';
export const BACKENDS: Backend[] = ['postgresql', 'pglite'];

/** The app on a fresh results database of either kind, for `inject()` (no port). */
export async function startInjectable(backend: Backend, options: Omit<BuildAppOptions, 'resultsDb'> = {}) {
  const database = backend === 'postgresql' ? await createTestDatabase() : undefined;
  const db = await openResultsDb(database?.url, { dataDir: 'memory://' });
  await db.migrate();
  const app = await buildApp({
    resultsDb: db,
    migrate: false,
    rateLimitPerMinute: 100_000,
    authFailuresPerMinute: 100_000,
    readRateLimitPerMinute: 100_000,
    ...options,
  });
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
 * startPgProxy() (cut it with `proxy.stop()`, stall it with `proxy.stall()`), and a runner token.
 */
export async function startApiThroughProxy(
  runnerName: string,
  dbOptions: NonNullable<Parameters<typeof openResultsDb>[1]> = {},
) {
  const database = await createTestDatabase();
  const proxy = await startPgProxy();
  const viaProxy = new URL(database.url);
  viaProxy.port = String(proxy.port);
  const db = await openResultsDb(viaProxy.toString(), { poolSize: 4, ...dbOptions });
  await db.migrate();
  const token = (await db.createRunner(runnerName)).token;
  const app: App = await buildApp({ resultsDb: db, migrate: false });
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
      await proxy.stop().catch(() => undefined);
      await database.drop();
    },
  };
}
