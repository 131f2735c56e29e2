/**
 * A test-only third engine, "pgcompat": a PostgreSQL-compatible server (as CockroachDB, YugabyteDB
 * or Neon present themselves) reached as `pgcompat://`. Its driver is the PostgreSQL driver with
 * the engine's own name and scheme, talking to the real local PostgreSQL — what an engine that
 * speaks PostgreSQL's protocol adds. fake-engine.test.ts adds it the way apps/runner/README.md's
 * "Adding an engine" says (one ENGINE_FACTS entry, this folder, its line in DRIVERS) and runs the
 * engine-neutral paths against it.
 */
import type { EngineName } from '@tunelab/contracts';
import type { Driver } from '../../engines/driver.ts';
import { postgresDriver } from '../../engines/postgresql/driver.ts';

/** The engine's key; the test adds its ENGINE_FACTS entry, so the type knows it only then. */
const ENGINE = 'pgcompat' as EngineName;

/** The same server as postgres:// (the PostgreSQL driver's scheme). */
const asPostgres = (target: string) => target.replace(/^pgcompat:/, 'postgres:');

export const pgcompatDriver: Driver = {
  ...postgresDriver,
  engines: [ENGINE],
  protocols: ['pgcompat:'],
  isLocal: (target) => postgresDriver.isLocal(asPostgres(target)),
  async openAdmin(target, applicationName) {
    const admin = await postgresDriver.openAdmin(asPostgres(target), applicationName);
    return { ...admin, environment: async () => ({ ...(await admin.environment()), engine: ENGINE }) };
  },
  openDatabase: (target, database, applicationName) =>
    postgresDriver.openDatabase(asPostgres(target), database, applicationName),
  inspectCatalog: async (url, limit, wanted) => ({
    ...(await postgresDriver.inspectCatalog!(asPostgres(url), limit, wanted)),
    engine: ENGINE,
  }),
};
