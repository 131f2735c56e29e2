/**
 * Reads a MariaDB/MySQL server for `tunelab advise` (its CatalogInspector, ../catalog.ts): one READ ONLY transaction over
 * information_schema (InnoDB's own dictionary views need only PROCESS; information_schema.TABLES
 * adds exact data and index lengths for the tables the user has a privilege on). No table's rows
 * are read. Tables are filtered (by the threshold the scenarios' advise blocks give) and ranked in
 * SQL, at most `limit` returned.
 */
import mysql from 'mysql2/promise';
import { ENGINE_FACTS, type AdviseSetRequests } from '@tunelab/contracts';
import { AdviseError, classifyConnectError } from '../../advise/errors.ts';
import { redactTarget } from '../target-url.ts';
import type { CompressibleTable, Inspection } from '../catalog.ts';
import { flavourOf, parseMysqlTarget } from './target.ts';

type Row = Record<string, string | number | null>;
const num = (v: unknown): number => (v === null || v === undefined || v === '' ? 0 : Number(v));

/** MariaDB's dict_table_t flag of PAGE_COMPRESSED=1 (bit 7); MySQL has no page compression. */
const MARIADB_PAGE_COMPRESSED = 128;

const USER_TABLE = `NAME LIKE '%/%' AND SUBSTRING_INDEX(NAME, '/', 1) NOT IN ('mysql', 'sys', 'performance_schema', 'information_schema')`;

/**
 * The candidates from InnoDB's dictionary views (PROCESS), each view read alone: the large tables
 * from the statistics view (index pages), the compressed ones from the tables view (row format,
 * flags). information_schema views are materialized without indexes, so joining two of them is
 * quadratic in the tables, and information_schema.TABLES opens every table it lists: both are
 * asked only for the tables shown (by name).
 */
function viewsOf(engine: 'mariadb' | 'mysql') {
  const [tables, stats] =
    engine === 'mariadb' ? ['INNODB_SYS_TABLES', 'INNODB_SYS_TABLESTATS'] : ['INNODB_TABLES', 'INNODB_TABLESTATS'];
  const pageCompressed = engine === 'mariadb' ? `(FLAG & ${MARIADB_PAGE_COMPRESSED}) <> 0` : 'FALSE';
  const size = '(CLUST_INDEX_SIZE + OTHER_INDEX_SIZE) * @@innodb_page_size';
  return {
    count: `SELECT COUNT(*) AS n FROM information_schema.${tables} WHERE ${USER_TABLE}`,
    large: `SELECT NAME AS name, COUNT(*) OVER () AS matched FROM information_schema.${stats}
            WHERE ${USER_TABLE} AND ${size} >= ? ORDER BY ${size} DESC, NAME LIMIT ?`,
    compressed: `SELECT NAME AS name, COUNT(*) OVER () AS matched FROM information_schema.${tables}
                 WHERE ${USER_TABLE} AND (ROW_FORMAT = 'Compressed' OR ${pageCompressed}) ORDER BY NAME LIMIT ?`,
    format: `SELECT NAME AS name, ROW_FORMAT AS row_format, ZIP_PAGE_SIZE AS zip, ${pageCompressed} AS page_compressed
             FROM information_schema.${tables} WHERE NAME IN (?)`,
    stats: `SELECT NAME AS name, NUM_ROWS AS row_count, CLUST_INDEX_SIZE AS clust, OTHER_INDEX_SIZE AS other
            FROM information_schema.${stats} WHERE NAME IN (?)`,
  };
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** InnoDB's file-name encoding of identifiers (`@002d` for `-`) back to the name. */
const decodeName = (name: string) =>
  name.replace(/@([0-9a-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

export async function inspectMysql(url: string, limit: number, wanted: AdviseSetRequests): Promise<Inspection> {
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
    const views = viewsOf(engine);
    let count: Row[];
    let large: Row[] = [];
    let compressed: Row[] = [];
    const want = wanted.compressionCandidates;
    try {
      count = await query(views.count);
      if (want) {
        large = await query(views.large, [Math.ceil(pool * want.min_buffer_pool_fraction), limit]);
        compressed = await query(views.compressed, [limit]);
      }
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'ER_SPECIFIC_ACCESS_DENIED_ERROR')
        throw new AdviseError(
          'privilege',
          `${redactTarget(url)}: insufficient privilege: reading InnoDB's tables needs the PROCESS privilege (GRANT PROCESS ON *.* TO …): ${(e as Error).message}`,
        );
      throw e;
    }
    const names = [...new Set([...large, ...compressed].map((r) => String(r.name)))];
    const byName = async (sql: string) =>
      new Map((names.length ? await query(sql, [names]) : []).map((r) => [String(r.name), r]));
    const [formats, stats] = [await byName(views.format), await byName(views.stats)];
    const tables: CompressibleTable[] = [];
    for (const full of names) {
      const f = formats.get(full);
      const st = stats.get(full);
      const zip = num(f?.zip);
      const page = zip > 0 ? zip : num(head!.page);
      const slash = full.indexOf('/');
      const schema = decodeName(full.slice(0, slash));
      const name = decodeName(full.slice(slash + 1));
      // Exact lengths where the user may see the table (constant schema and name: one table opened).
      const [exact] = await query(
        'SELECT TABLE_ROWS AS row_count, DATA_LENGTH AS data_bytes, INDEX_LENGTH AS index_bytes FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [schema, name],
      );
      const seen = exact && exact.data_bytes !== null;
      tables.push({
        schema,
        name,
        rows: num(seen ? exact.row_count : st?.row_count),
        dataBytes: seen ? num(exact.data_bytes) : num(st?.clust) * page,
        indexBytes: seen ? num(exact.index_bytes) : num(st?.other) * page,
        rowFormat: String(f?.row_format ?? 'unknown'),
        keyBlockSize: f?.row_format === 'Compressed' && zip > 0 ? zip / 1024 : null,
        pageCompressed: num(f?.page_compressed) !== 0,
      });
    }
    tables.sort((x, y) => y.dataBytes + y.indexBytes - (x.dataBytes + x.indexBytes) || x.name.localeCompare(y.name));
    const overlap = large.filter((r) => compressed.some((c) => c.name === r.name)).length;
    const matched = num(large[0]?.matched) + num(compressed[0]?.matched) - overlap;
    await query('ROLLBACK');
    const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1).map(Number) ?? [0, 0, 0];
    const innodbTables = num(count[0]?.n);
    return {
      engine,
      version,
      // As MariaDB's and MySQL's own version numbers: 10.11.9 → 101109.
      versionNum: parts[0]! * 10000 + parts[1]! * 100 + parts[2]!,
      major: parts[0]!,
      heading: `${ENGINE_FACTS[engine].name} ${version}`,
      contents: `${innodbTables.toLocaleString('en-US')} InnoDB tables, innodb_buffer_pool_size ${mib(pool)}`,
      notes: [],
      server: { tables: innodbTables, bufferPoolBytes: pool, pageSize: num(head!.page) },
      sets: want ? { compressionCandidates: { matched, tables: tables.slice(0, limit) } } : {},
    };
  } catch (e) {
    if (e instanceof AdviseError) throw e;
    throw classifyConnectError(e, url);
  } finally {
    // Ends the read-only transaction if a query failed inside it (a no-op after the ROLLBACK above).
    await query('ROLLBACK').catch(() => undefined);
    await conn.end().catch(() => undefined);
  }
}
