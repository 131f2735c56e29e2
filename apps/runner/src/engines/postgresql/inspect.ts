/**
 * Reads a PostgreSQL server for `tunelab advise` (its CatalogInspector, ../catalog.ts): one READ ONLY, REPEATABLE READ transaction of
 * catalog and statistics queries (pg_class, pg_index, pg_stat_get_*, settings), rolled back, with
 * `search_path = pg_catalog, pg_temp` so that every name it calls is the built-in one.
 * Only the tables shown have their sizes read (pg_table_size: an AccessShareLock, as a SELECT takes),
 * and nothing needs more than `pg_monitor` (the statistics functions are public). Tables are
 * filtered (by the thresholds the scenarios' advise blocks give) and ranked in SQL, so a catalog
 * of 100,000 tables returns at most `limit` per set.
 */
import pg from 'pg';
import type { AdviseSetRequests } from '@tunelab/contracts';
import { AdviseError, classifyConnectError } from '../../advise/errors.ts';
import { redactTarget } from '../target-url.ts';
import type { HeapTable, Inspection, Picked } from '../catalog.ts';

const APPLICATION_NAME = 'tunelab-advise';
/** How long a size waits behind a table's exclusive lock before the sizes come from the catalog. */
const LOCK_TIMEOUT_S = 5;
const LOCK_NOT_AVAILABLE = '55P03';

type Row = {
  rule: (typeof SETS)[keyof typeof SETS]['label'];
  matched: string;
  schema: string;
  name: string;
  reltuples: number;
  pages: number;
  live: number;
  dead: number;
  upd: number;
  hot: number;
  newpage: number | null;
  indexes: number;
  index_pages: number;
  fillfactor: number;
  table_bytes: number;
  index_bytes: number;
};

/**
 * Sizes of the tables shown (at most `limit` per rule): from the files (pg_table_size,
 * pg_indexes_size; an AccessShareLock each, like a SELECT's), or, when a table is locked
 * exclusively past the lock timeout, from the catalog (relpages, as of the last VACUUM/ANALYZE).
 */
type Sizes = 'files' | 'catalog';

/** The sets this inspector fills, in its query's labels, with each one's condition on the table `t`. */
const SETS = {
  bloated: {
    label: 'bloated',
    where: (p: (v: number) => string, w: { min_dead_tuples: number; min_dead_fraction: number }) =>
      `dead >= ${p(w.min_dead_tuples)} AND dead >= ${p(w.min_dead_fraction)} * (live + dead)`,
    order: 'dead DESC',
  },
  indexedWithDeadTuples: {
    label: 'indexed',
    where: (p: (v: number) => string, w: { min_dead_tuples: number; min_dead_fraction: number }) =>
      `indexes > 0 AND dead >= ${p(w.min_dead_tuples)} AND dead >= ${p(w.min_dead_fraction)} * (live + dead)`,
    order: 'dead DESC',
  },
  hotUnfriendly: {
    label: 'hot',
    where: (p: (v: number) => string, w: { min_updates: number; max_hot_fraction: number; min_fillfactor: number }) =>
      `upd >= ${p(w.min_updates)} AND hot < ${p(w.max_hot_fraction)} * upd AND fillfactor >= ${p(w.min_fillfactor)}`,
    order: '(upd - hot) DESC',
  },
} as const;

/** The query of the wanted sets, `limit` tables each, and its values; null when none is wanted. */
function tablesQuery(
  versionNum: number,
  sizes: Sizes,
  wanted: AdviseSetRequests,
  limitTo: number,
): { text: string; values: (number | string)[] } | null {
  const values: (number | string)[] = [];
  const p = (v: number | string) => `$${values.push(v)}`;
  const limit = p(limitTo);
  const picks: string[] = [];
  const pick = (rule: string, where: string, order: string) =>
    `(SELECT '${rule}' AS rule, count(*) OVER () AS matched, t.* FROM t WHERE ${where} ORDER BY ${order}, schema, name LIMIT ${limit})`;
  if (wanted.bloated) picks.push(pick(SETS.bloated.label, SETS.bloated.where(p, wanted.bloated), SETS.bloated.order));
  if (wanted.indexedWithDeadTuples) {
    const s = SETS.indexedWithDeadTuples;
    picks.push(pick(s.label, s.where(p, wanted.indexedWithDeadTuples), s.order));
  }
  if (wanted.hotUnfriendly)
    picks.push(
      pick(SETS.hotUnfriendly.label, SETS.hotUnfriendly.where(p, wanted.hotUnfriendly), SETS.hotUnfriendly.order),
    );
  if (!picks.length) return null;
  const newpage = versionNum >= 160000 ? 'pg_stat_get_tuples_newpage_updated(c.oid)::float8' : 'NULL::float8';
  const block = sizes === 'catalog' ? p('block_size') : '';
  const size =
    sizes === 'files'
      ? 'pg_table_size(p.oid)::float8 AS table_bytes, pg_indexes_size(p.oid)::float8 AS index_bytes'
      : `p.pages * current_setting(${block})::float8 AS table_bytes, p.index_pages * current_setting(${block})::float8 AS index_bytes`;
  const text = `
    WITH ix AS (
      SELECT i.indrelid, count(*)::int AS n, sum(ic.relpages)::float8 AS pages
      FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
      GROUP BY i.indrelid
    ), t AS MATERIALIZED (
      SELECT c.oid, n.nspname AS schema, c.relname AS name,
             c.reltuples::float8 AS reltuples, c.relpages::float8 AS pages,
             pg_stat_get_live_tuples(c.oid)::float8 AS live,
             pg_stat_get_dead_tuples(c.oid)::float8 AS dead,
             pg_stat_get_tuples_updated(c.oid)::float8 AS upd,
             pg_stat_get_tuples_hot_updated(c.oid)::float8 AS hot,
             ${newpage} AS newpage,
             coalesce(ix.n, 0) AS indexes, coalesce(ix.pages, 0) AS index_pages,
             coalesce((SELECT substring(o FROM 12)::int FROM unnest(c.reloptions) o WHERE o LIKE 'fillfactor=%'), 100) AS fillfactor
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN ix ON ix.indrelid = c.oid
      WHERE c.relkind IN ('r', 'm') AND c.relpersistence <> 't'
        AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
    )
    SELECT p.*, ${size} FROM (
      ${picks.join('\n      UNION ALL\n      ')}
    ) p`;
  return { text, values };
}

/** Inspects the database the URL names; `limit` tables at most per rule. */
export async function inspectPostgres(url: string, limit: number, wanted: AdviseSetRequests): Promise<Inspection> {
  const client = new pg.Client({
    connectionString: url,
    application_name: APPLICATION_NAME,
    connectionTimeoutMillis: 10_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => undefined);
    throw classifyConnectError(e, url);
  }
  try {
    await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // Bounded: a catalog lock held by someone else, or a slow server, ends the read with a sentence.
    // Only the built-ins: a function or operator someone put in a schema on the path (public.pg_table_size(oid),
    // public.unnest(text[]): a closer match than pg_catalog's) would otherwise run as this role (CVE-2018-1058).
    await client.query(
      `SET LOCAL search_path = pg_catalog, pg_temp; SET LOCAL statement_timeout = '300s'; SET LOCAL lock_timeout = '${LOCK_TIMEOUT_S}s'`,
    );
    const head = await client.query<{
      version: string;
      num: string;
      database: string;
      method: string | null;
      block: string;
      databases: string;
      tables: string;
      files: string;
    }>(`SELECT current_setting('server_version') AS version, current_setting('server_version_num') AS num,
               current_database() AS database, current_setting('recovery_init_sync_method', true) AS method,
               current_setting('block_size') AS block,
               (SELECT count(*) FROM pg_database WHERE datallowconn) AS databases,
               (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE c.relkind IN ('r', 'm') AND c.relpersistence <> 't'
                   AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%') AS tables,
               (SELECT count(*) FROM pg_class WHERE relkind IN ('r', 'i', 't', 'm', 'S') AND relpersistence <> 't') AS files`);
    const h = head.rows[0]!;
    const versionNum = Number(h.num);
    const blockSize = Number(h.block);
    let sizes: Sizes = 'files';
    let rows: Row[] = [];
    const query = tablesQuery(versionNum, 'files', wanted, limit);
    if (query) {
      await client.query('SAVEPOINT sizes');
      try {
        rows = (await client.query<Row>(query.text, query.values)).rows;
      } catch (e) {
        if ((e as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw e;
        await client.query('ROLLBACK TO SAVEPOINT sizes');
        sizes = 'catalog';
        const catalog = tablesQuery(versionNum, 'catalog', wanted, limit)!;
        rows = (await client.query<Row>(catalog.text, catalog.values)).rows;
      }
    }
    await client.query('ROLLBACK');
    const picked = (rule: Row['rule']): Picked<HeapTable> => {
      const of = rows.filter((r) => r.rule === rule);
      return { matched: of.length ? Number(of[0]!.matched) : 0, tables: of.map(tableOf) };
    };
    const tables = Number(h.tables);
    const files = Number(h.files);
    return {
      engine: 'postgresql',
      version: h.version,
      versionNum,
      major: Math.floor(versionNum / 10000),
      heading: `PostgreSQL ${h.version}, database ${h.database}`,
      contents: `${int(tables)} tables, ${int(files)} relations with storage, recovery_init_sync_method = ${h.method ?? '(none)'}`,
      notes:
        sizes === 'catalog'
          ? [
              'sizes: from the catalog (relpages, as of the last VACUUM or ANALYZE): a table shown was locked exclusively for longer than the lock timeout',
            ]
          : [],
      server: {
        tables,
        database: h.database,
        relationFiles: files,
        databases: Number(h.databases),
        recoveryInitSyncMethod: h.method,
        pageSize: blockSize,
      },
      sets: Object.fromEntries(
        (Object.keys(SETS) as (keyof typeof SETS)[])
          .filter((set) => wanted[set])
          .map((set) => [set, picked(SETS[set].label)]),
      ),
    };
  } catch (e) {
    if (e instanceof AdviseError) throw e;
    throw new AdviseError('read', `could not read the catalog of ${redactTarget(url)}: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

function tableOf(r: Row): HeapTable {
  return {
    schema: r.schema,
    name: r.name,
    rows: r.reltuples >= 0 ? r.reltuples : r.live,
    liveTuples: r.live,
    deadTuples: r.dead,
    tableBytes: r.table_bytes,
    indexBytes: r.index_bytes,
    indexCount: r.indexes,
    fillfactor: r.fillfactor,
    updates: r.upd,
    hotUpdates: r.hot,
    newPageUpdates: r.newpage,
  };
}
