/**
 * Managed PostgreSQL provider: scenario.yaml `target: { managed: postgresql }`. Creates a
 * throwaway cluster with the local server binaries (./cluster/), starts it and hands the
 * engine a target whose driver is the PostgreSQL driver with sessions that survive a crash.
 *
 * Options (RunOptions.managed, CLI): `clusterBin` (`--cluster-bin DIR`; default `pg_config
 * --bindir`, else the highest /usr/lib/postgresql/<major>/bin), `clusterDir` (`--cluster-dir DIR`,
 * where the data directory goes; default the OS temp dir). `close()` stops the server and removes
 * the directory in every outcome.
 *
 * Sessions: a crash step kills every backend, including the engine's admin and unit sessions.
 * Each session here reconnects once when a call fails because the connection is gone (the server
 * crashed earlier, so the failed call never ran) and replays the session settings it was given.
 */
import { tmpdir } from 'node:os';
import type { HardwareEnvelope } from '@tunelab/contracts';
import { UsageError } from '../../errors.ts';
import { createEnvelope, type AppliedEnvelope, type Envelope } from '../../probe/envelope.ts';
import { probeStorageOf } from '../../probe/hardware.ts';
import { binariesOf, defaultServersDir, ensureServer } from './servers/store.ts';
import {
  capabilityOf,
  type AdminSession,
  type DatabaseSession,
  type Driver,
  type ManagedOpenOptions,
  type ManagedProvider,
} from '../driver.ts';
import { createManagedCluster, findServerBinaries, type ServerBinaries } from './cluster/index.ts';
import { postgresDriver } from '../postgresql/driver.ts';

/** Where the managed cluster's binaries and directory come from (`--cluster-bin`, `--cluster-dir`). */
export type ManagedTargetOptions = NonNullable<ManagedOpenOptions['options']>;

/** SQLSTATEs of a backend ended by a shutdown or crash, and socket-level failures. */
const LOST_CODES = new Set(['57P01', '57P02', '57P03', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ENOENT']);
export function isConnectionLoss(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = 'code' in e ? String(e.code) : '';
  return (
    LOST_CODES.has(code) ||
    /Connection terminated|not queryable|Client has encountered a connection error|server closed the connection/i.test(
      e.message,
    )
  );
}

/** Runs `call` on the current connection; once more on a fresh one if the connection was lost. */
function reconnecting<S extends { close(): Promise<void> }>(
  open: () => Promise<S>,
  first: S,
  onReopen: (s: S) => Promise<void>,
) {
  let current = first;
  let closed = false;
  return {
    async call<T>(f: (s: S) => Promise<T>): Promise<T> {
      try {
        return await f(current);
      } catch (e) {
        if (closed || !isConnectionLoss(e)) throw e;
        await current.close().catch(() => {});
        current = await open();
        await onReopen(current);
        return f(current);
      }
    },
    current: () => current,
    async close() {
      closed = true;
      await current.close();
    },
  };
}

/** The PostgreSQL driver with crash-surviving sessions (see the header). */
export const reconnectingPostgresDriver: Driver = {
  ...postgresDriver,
  async openAdmin(target, applicationName): Promise<AdminSession> {
    const r = reconnecting(
      () => postgresDriver.openAdmin(target, applicationName),
      await postgresDriver.openAdmin(target, applicationName),
      async () => {},
    );
    return {
      environment: () => r.call((s) => s.environment()),
      dataDirectory: () => r.call((s) => s.dataDirectory()),
      createDatabase: (name, template) => r.call((s) => s.createDatabase(name, template)),
      dropDatabase: (name) => r.call((s) => s.dropDatabase(name)),
      listDatabases: (prefix) => r.call((s) => s.listDatabases(prefix)),
      terminateBackends: (app) => r.call((s) => s.terminateBackends(app)),
      hasExtension: (name) => r.call((s) => s.hasExtension(name)),
      close: () => r.close(),
    };
  },
  async openDatabase(target, database, applicationName): Promise<DatabaseSession> {
    const settings = new Map<string, string>();
    const open = () => postgresDriver.openDatabase(target, database, applicationName);
    const r = reconnecting(open, await open(), async (s) => {
      for (const [k, v] of settings) await s.setSetting(k, v);
    });
    return {
      exec: (sql) => r.call((s) => s.exec(sql)),
      async setSetting(name, value) {
        await r.call((s) => s.setSetting(name, value));
        settings.set(name, value);
      },
      relationSizes: (rel) => r.call((s) => s.relationSizes(rel)),
      tableStats: (rel) => r.call((s) => s.tableStats(rel)),
      // The PostgreSQL driver's capabilities, each call on the current connection.
      capabilities: {
        tupleStats: { tupleStats: (rel) => r.call((s) => capabilityOf(s, 'tupleStats', 'tuple_stat').tupleStats(rel)) },
        wal: { walPosition: () => r.call((s) => capabilityOf(s, 'wal', 'wal').walPosition()) },
        settle: { settle: () => r.call((s) => capabilityOf(s, 'settle', 'a unit').settle()) },
        prepared: {
          execute: (sql, values) => r.call((s) => capabilityOf(s, 'prepared', 'a workload').execute(sql, values)),
        },
      },
      drainMessages: () => r.current().drainMessages(),
      close: () => r.close(),
    };
  },
};

/** The server binaries: `--server MAJOR[.MINOR]` from the npm registry (installed on first use), else local ones. */
async function binariesFor(opts: ManagedOpenOptions): Promise<{ binaries: ServerBinaries; build?: string }> {
  const { options, minServerVersionNum } = opts;
  const minMajor = minServerVersionNum ? Math.floor(minServerVersionNum / 10_000) : 0;
  if (options?.server !== undefined) {
    if (options.server < minMajor)
      throw new UsageError(`--server ${options.server}: this scenario needs PostgreSQL ${minMajor} or newer`);
    const choice = {
      major: options.server,
      ...(options.serverRelease !== undefined ? { release: options.serverRelease } : {}),
    };
    const server = await ensureServer(options.serversDir ?? defaultServersDir(), choice, { say: opts.info });
    return { binaries: binariesOf(server), build: `${server.packageName}@${server.version}` };
  }
  return {
    binaries: await findServerBinaries({
      ...(options?.clusterBin !== undefined ? { clusterBin: options.clusterBin } : {}),
      ...(minMajor ? { minMajor } : {}),
    }),
  };
}

/**
 * The cgroup the server will run in, on the disk of the directory its data directory goes into
 * (`--cluster-dir`, else the OS temp dir): I/O limits apply to that disk's request queue.
 */
async function openEnvelope(envelope: Envelope, clusterDir: string | undefined): Promise<AppliedEnvelope> {
  const dir = clusterDir ?? tmpdir();
  const needsIo = ['readIops', 'writeIops', 'readBps', 'writeBps'].some((k) => k in envelope);
  const device = needsIo ? (await probeStorageOf(dir)).device : null;
  return createEnvelope(envelope, { device });
}

/** What the run records of its envelope (contracts' HardwareEnvelope). */
function envelopeRecord(applied: AppliedEnvelope): HardwareEnvelope {
  return { ...applied.envelope, mechanism: applied.mechanism, description: applied.description.slice(0, 500) };
}

/** Lines of a failed start that blame the settings (`--set`): a usage error, not a failed run. */
const SETTING_ERROR =
  /unrecognized configuration parameter|invalid value for parameter|parameter "[^"]+" requires|configuration file "[^"]*" contains errors/;

export const managedPostgresqlProvider: ManagedProvider = {
  engine: 'postgresql',
  async open(opts) {
    const { signal, options } = opts;
    // An envelope this machine cannot apply is refused before anything is installed or started.
    const envelope = options?.envelope ? await openEnvelope(options.envelope, options.clusterDir) : undefined;
    const { binaries, build } = await binariesFor(opts).catch(async (e: unknown) => {
      await envelope?.remove();
      throw e;
    });
    const settings = options?.settings ?? {};
    const cluster = await createManagedCluster({
      binaries,
      signal,
      userSettings: settings,
      runId: opts.runId,
      say: opts.info,
      ...(options?.ledgerDir !== undefined ? { ledgerDir: options.ledgerDir } : {}),
      ...(options?.clusterDir !== undefined ? { parentDir: options.clusterDir } : {}),
      ...(envelope ? { envelope } : {}),
    }).catch(async (e: unknown) => {
      await envelope?.remove();
      throw e;
    });
    // The cluster first (its processes leave the cgroup as they exit), then the envelope.
    const close = async () => {
      try {
        await cluster.destroy();
      } finally {
        await envelope?.remove();
      }
    };
    let readyMs: number;
    try {
      readyMs = (await cluster.start({}, signal)).readyMs;
    } catch (e) {
      await close();
      const message = e instanceof Error ? e.message : String(e);
      if (Object.keys(settings).length > 0 && SETTING_ERROR.test(message))
        throw new UsageError(
          `the server refused the settings given with --set (${Object.entries(settings)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}): ${message}`,
        );
      throw e;
    }
    const set = Object.entries(settings).map(([k, v]) => `${k}=${v}`);
    const description = `a throwaway ${binaries.version.replace(/^postgres \(PostgreSQL\) /, 'PostgreSQL ')} server managed by the runner (${build ? `${build} from the npm registry` : `binaries in ${binaries.dir}`}), ready ${Math.round(readyMs)} ms after its start${set.length ? `; --set ${set.join(' ')}` : ''}${envelope ? `; inside an envelope: ${envelope.description}` : ''}`;
    opts.info(description);
    return {
      driver: reconnectingPostgresDriver,
      url: cluster.url(),
      cluster,
      description,
      ...(envelope ? { envelope: { record: envelopeRecord(envelope), wrap: (argv) => envelope.wrap(argv) } } : {}),
      close,
    };
  },
};
