import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { cleanupRun, runPrefix, runScenario } from '../engine/run-scenario.ts';
import { UsageError } from '../errors.ts';
import { databasesWithPrefix, TEST_PG_URL } from '../test-support/pg.ts';
import { driverFor, planTarget } from './index.ts';
import { mysqlDriver } from './mysql/driver.ts';
import { postgresDriver } from './postgresql/driver.ts';

describe('driver registry', async () => {
  const scenario = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-index-cleanup'));

  it('chooses the driver by the target protocol', () => {
    expect(driverFor('postgres://u@h/db')).toBe(postgresDriver);
    expect(driverFor('postgresql://u@h/db')).toBe(postgresDriver);
    expect(driverFor('mysql://root@127.0.0.1:3306/test')).toBe(mysqlDriver);
    expect(driverFor('mariadb://root@127.0.0.1:3306/test')).toBe(mysqlDriver);
  });

  it('says clearly that a protocol has no driver, and which ones do', () => {
    expect(() => driverFor('oracle://x@y/z')).toThrow(
      /no driver in this runner for oracle:\/\/ targets; supported: postgres:\/\/, postgresql:\/\/, mysql:\/\/, mariadb:\/\//,
    );
    expect(() => driverFor('oracle://x@y/z')).toThrow(UsageError);
    expect(() => driverFor('not a url')).toThrow(/--target must be a connection URL/);
  });

  it('asks for --target, and refuses it for a managed scenario or a missing provider', () => {
    expect(() => planTarget(scenario.doc, undefined)).toThrow(
      /needs a database server; pick one of three ways: --target <url> .*, --server 14…18 .*, or the libpq environment psql uses \(PGHOST, PGPORT, PGUSER, PGDATABASE; PGPASSWORD or ~\/.pgpass\)/,
    );
    const managed = { ...scenario.doc, target: { managed: 'postgresql' as const } };
    expect(() => planTarget(managed, TEST_PG_URL)).toThrow(/throwaway postgresql cluster .* leave out --target/);
    expect(planTarget(managed, undefined).kind).toBe('managed');
    const managedMysql = { ...scenario.doc, engines: ['mysql' as const], target: { managed: 'mysql' as const } };
    expect(() => planTarget(managedMysql, undefined)).toThrow(/has no managed mysql provider yet/);
  });

  it('refuses a MySQL target for a PostgreSQL scenario before connecting', () => {
    expect(() => planTarget(scenario.doc, 'mysql://root@127.0.0.1:3306/test')).toThrow(
      /runs on postgresql; the target mysql:\/\/ is mysql or mariadb/,
    );
  });

  it('refuses a target of an engine the scenario does not list, before creating anything', async () => {
    const mariadbOnly = { ...scenario, doc: { ...scenario.doc, engines: ['mariadb' as const] } };
    const runId = crypto.randomUUID();
    await expect(runScenario({ scenario: mariadbOnly, target: TEST_PG_URL, repetitions: 1, runId })).rejects.toThrow(
      /scenario vacuum-index-cleanup runs on mariadb; the target postgres:\/\/ is postgresql/,
    );
    await cleanupRun(postgresDriver, TEST_PG_URL, runId);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });
});
