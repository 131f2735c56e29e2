import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { substituteParams } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR } from '@tunelab/scenarios';

/** The scenario's SQL, in fixture order. */
export const TPROCC_FILES = ['schema.sql', 'functions.sql', 'load.sql', 'keys.sql'] as const;
const SCENARIO_DIR = path.join(DEFAULT_SCENARIOS_DIR, 'fillfactor-hot-updates');

/** URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Creates database `name` on the server of `serverUrl` and builds the TPROC-C schema with
 * `warehouses` warehouses in it, from the scenario's own SQL files (tests and bench:driver).
 * Returns the database's URL.
 */
export async function createTproccDatabase(serverUrl: string, name: string, warehouses: number): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(serverUrl, name);
  const db = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await db.connect();
  try {
    for (const f of TPROCC_FILES)
      await db.query(substituteParams(await readFile(path.join(SCENARIO_DIR, f), 'utf8'), { warehouses }));
  } finally {
    await db.end();
  }
  await waitUntilNoBackends(serverUrl, name);
  return url;
}

/**
 * Waits until no backend is connected to database `name`. A client's `end()` returns when its
 * socket closes, not when its backend has exited; a backend publishes its last statistics as it
 * exits, so a loader that exits late (a busy machine) would add its last transactions to the
 * xact counters of a window that opened after the load (seen in CI at load ~9: 2 too many).
 */
async function waitUntilNoBackends(serverUrl: string, name: string, timeoutMs = 60_000): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      if (rows[0]?.n === 0) return;
      if (Date.now() > deadline)
        throw new Error(`database ${name} still has ${rows[0]?.n} backends after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await admin.end();
  }
}

/** Drops database `name`, ending whatever is still connected to it. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
