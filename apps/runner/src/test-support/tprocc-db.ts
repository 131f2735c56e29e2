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
  return url;
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
