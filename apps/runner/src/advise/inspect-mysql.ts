/**
 * Reads a MariaDB/MySQL server for `tunelab advise`: one READ ONLY transaction over
 * information_schema (InnoDB's own dictionary views need only PROCESS; information_schema.TABLES
 * adds exact data and index lengths for the tables the user has a privilege on). No table's rows
 * are read. Tables are filtered and ranked in SQL, at most `limit` returned.
 */
import mysql from 'mysql2/promise';
import { flavourOf, parseMysqlTarget } from '../drivers/mysql.ts';
import { redactTarget } from '../engine/connect.ts';
import { AdviseError, classifyConnectError } from './errors.ts';
import { RULES } from './thresholds.ts';
import type { InnodbTable, MysqlInspection } from './types.ts';

type Row = Record<string, string | number | null>;
const num = (v: unknown): number => (v === null || v === undefined || v === '' ? 0 : Number(v));

/** MariaDB's dict_table_t flag of PAGE_COMPRESSED=1 (bit 7); MySQL has no page compression. */
const MARIADB_PAGE_COMPRESSED = 128;

function candidatesQuery(engine: 'mariadb' | 'mysql'): string {
  const [tables, stats] =
    engine === 'mariadb' ? ['INNODB_SYS_TABLES', 'INNODB_SYS_TABLESTATS'] : ['INNODB_TABLES', 'INNODB_TABLESTATS'];
  const pageCompressed = engine === 'mariadb' ? `(st.FLAG & ${MARIADB_PAGE_COMPRESSED}) <> 0` : 'FALSE';
  return `
    SELECT x.*, COUNT(*) OVER () AS matched FROM (
      SELECT SUBSTRING_INDEX(st.NAME, '/', 1) AS db, SUBSTRING(st.NAME, LOCATE('/', st.NAME) + 1) AS tbl,
             COALESCE(t.TABLE_ROWS, ss.NUM_ROWS) AS row_count,
             COALESCE(t.DATA_LENGTH, ss.CLUST_INDEX_SIZE * @@innodb_page_size) AS data_bytes,
             COALESCE(t.INDEX_LENGTH, ss.OTHER_INDEX_SIZE * @@innodb_page_size) AS index_bytes,
             st.ROW_FORMAT AS row_format, st.ZIP_PAGE_SIZE AS zip, ${pageCompressed} AS page_compressed
      FROM information_schema.${tables} st
      LEFT JOIN information_schema.${stats} ss ON ss.TABLE_ID = st.TABLE_ID
      LEFT JOIN information_schema.TABLES t
        ON t.TABLE_SCHEMA = SUBSTRING_INDEX(st.NAME, '/', 1) AND t.TABLE_NAME = SUBSTRING(st.NAME, LOCATE('/', st.NAME) + 1)
      WHERE st.NAME LIKE '%/%'
        AND SUBSTRING_INDEX(st.NAME, '/', 1) NOT IN ('mysql', 'sys', 'performance_schema', 'information_schema')
    ) x
    WHERE x.data_bytes + x.index_bytes >= ? OR x.row_format = 'Compressed' OR x.page_compressed
    ORDER BY x.data_bytes + x.index_bytes DESC, x.db, x.tbl
    LIMIT ?`;
}

export async function inspectMysql(url: string, limit: number): Promise<MysqlInspection> {
  let options;
  try {
    options = parseMysqlTarget(url);
  } catch (e) {
    throw new AdviseError('usage', `--target: ${(e as Error).message}`);
  }
  let conn: mysql.Connection;
  try {
    conn = await mysql.createConnection({ ...options, connectTimeout: 10_000, supportBigNumbers: true });
  } catch (e) {
    throw classifyConnectError(e, url);
  }
  conn.on('error', () => undefined);
  const query = async (sql: string, values: unknown[] = []): Promise<Row[]> => {
    const [result] = await conn.query({ sql, values, timeout: 300_000 });
    return Array.isArray(result) ? (result as Row[]) : [];
  };
  try {
    const [head] = await query(
      'SELECT VERSION() AS version, @@innodb_buffer_pool_size AS pool, @@innodb_page_size AS page',
    );
    const version = String(head!.version);
    const engine = flavourOf(version) as 'mariadb' | 'mysql';
    const pool = num(head!.pool);
    await query('START TRANSACTION READ ONLY');
    let rows: Row[];
    let count: Row[];
    try {
      const views = engine === 'mariadb' ? 'INNODB_SYS_TABLES' : 'INNODB_TABLES';
      count = await query(
        `SELECT COUNT(*) AS n FROM information_schema.${views} WHERE NAME LIKE '%/%' AND SUBSTRING_INDEX(NAME, '/', 1) NOT IN ('mysql', 'sys', 'performance_schema', 'information_schema')`,
      );
      rows = await query(candidatesQuery(engine), [Math.ceil(pool * RULES.bufferPoolFraction), limit]);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'ER_SPECIFIC_ACCESS_DENIED_ERROR')
        throw new AdviseError(
          'privilege',
          `${redactTarget(url)}: insufficient privilege: reading InnoDB's tables needs the PROCESS privilege (GRANT PROCESS ON *.* TO …): ${(e as Error).message}`,
        );
      throw e;
    } finally {
      await query('ROLLBACK').catch(() => undefined);
    }
    const tables: InnodbTable[] = rows.map((r) => ({
      schema: String(r.db),
      name: String(r.tbl),
      rows: num(r.row_count),
      dataBytes: num(r.data_bytes),
      indexBytes: num(r.index_bytes),
      rowFormat: String(r.row_format),
      keyBlockSize: r.row_format === 'Compressed' && num(r.zip) > 0 ? num(r.zip) / 1024 : null,
      pageCompressed: num(r.page_compressed) !== 0,
    }));
    return {
      engine,
      version,
      major: Number(/^(\d+)/.exec(version)?.[1] ?? 0),
      tables: num(count[0]?.n),
      bufferPoolBytes: pool,
      pageSize: num(head!.page),
      compressionCandidates: { matched: rows.length ? num(rows[0]!.matched) : 0, tables },
    };
  } catch (e) {
    if (e instanceof AdviseError) throw e;
    throw classifyConnectError(e, url);
  } finally {
    await conn.end().catch(() => undefined);
  }
}
