import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_PG_URL } from '@tunelab/env/testing';

/** The PostgreSQL server tests use (a throwaway database is created on it per test file). */
export const TEST_PG_ADMIN_URL = TEST_PG_URL;

/**
 * Creates an empty database with a unique name for one test file, so tests never depend on
 * shared state; `drop()` removes it (terminating leftover connections first). `adminUrl` is the
 * server to create it on (benchmarks pass their own).
 */
export async function createTestDatabase(
  prefix = 'tunelab_t',
  adminUrl = TEST_PG_ADMIN_URL,
): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
