import mysql from 'mysql2/promise';

import { TEST_MYSQL_URL } from '@tunelab/env/testing';

/** The shared MariaDB/MySQL the tests run against; every test names its objects uniquely. */
export { TEST_MYSQL_URL };

/** An independent connection (not through the driver) to check what the driver reports. */
export async function openCheckConnection(database?: string) {
  const url = new URL(TEST_MYSQL_URL);
  return mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username) || 'root',
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(database ? { database } : {}),
    connectTimeout: 10_000,
  });
}

/** Rows of one query on a fresh independent connection. */
export async function checkQuery(
  sql: string,
  values: (string | number)[] = [],
  database?: string,
): Promise<Record<string, string | number | null>[]> {
  const conn = await openCheckConnection(database);
  try {
    const [rows] = await conn.query({ sql, values, timeout: 60_000 });
    return Array.isArray(rows) ? (rows as Record<string, string | number | null>[]) : [];
  } finally {
    await conn.end();
  }
}

export const mysqlTargetAs = (user: string, password: string | null, database = 'test') => {
  const url = new URL(TEST_MYSQL_URL);
  url.username = encodeURIComponent(user);
  url.password = password === null ? '' : encodeURIComponent(password);
  url.pathname = database ? `/${database}` : '/';
  return url.toString();
};
