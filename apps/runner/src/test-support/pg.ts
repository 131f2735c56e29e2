import pg from 'pg';

import { TEST_PG_URL } from '@tunelab/env/testing';

/** The shared PostgreSQL the tests run against; every test names its objects uniquely. */
export { TEST_PG_URL };

/** Databases on the test server whose names start with `prefix`. */
export async function databasesWithPrefix(prefix: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix],
    );
    return rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
}

/** Runs `f` on a client of `url`, closed afterwards whatever happens. */
export async function withClient<T>(url: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}
