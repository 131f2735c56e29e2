/**
 * PostgreSQL driver (node-postgres). Implements the `Driver` contract of ./driver.ts.
 *
 * Target: a connection URL such as `postgres://postgres@127.0.0.1:5432/postgres`; the runner
 * connects to the database it names for administration (CREATE/DROP DATABASE needs CREATEDB)
 * and to the databases it creates for the steps. The usual libpq variables (PGPASSWORD, …)
 * are honoured by `pg` for whatever the URL leaves out.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { parseServerVersion, schemesOfProtocol, type DatabaseEnvironment } from '@tunelab/contracts';
import {
  TCP_KEEPALIVE_MS,
  type AdminSession,
  type DatabaseSession,
  type Driver,
  type ServerMessage,
} from '../driver.ts';
import { postgresManualCleanup } from './cleanup.ts';
import { postgresTargetFromEnvironment } from './environment.ts';
import { inspectPostgres } from './inspect.ts';

/** Quotes an identifier the way quote_ident() does. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function targetWithDatabase(target: string, database: string): string {
  const url = new URL(target);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

async function connect(connectionString: string, applicationName: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString,
    application_name: applicationName,
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: TCP_KEEPALIVE_MS,
  });
  // A terminated backend (cleanup after Ctrl-C) emits 'error' on the idle client; the pending
  // query rejects on its own. The listener keeps the process from crashing and remembers the cause,
  // so a later query says why the connection is gone, not only that it is.
  client.on('error', (e) => {
    if (!LOST.has(client)) LOST.set(client, e);
  });
  await client.connect();
  return client;
}

const LOST = new WeakMap<pg.Client, Error>();
/** The error that broke this client's connection, when `e` only says the client is no longer queryable. */
const causeOf = (client: pg.Client, e: unknown): unknown =>
  e instanceof Error && /not queryable/.test(e.message) ? (LOST.get(client) ?? e) : e;

const PREPARED_NAMES = new Map<string, string>();
/** A stable statement name for a statement text (pg prepares a name once per connection). */
function preparedName(sql: string): string {
  let name = PREPARED_NAMES.get(sql);
  if (!name) {
    name = `tl_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    PREPARED_NAMES.set(sql, name);
  }
  return name;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export function isLocalPostgresTarget(target: string): boolean {
  let host: string;
  try {
    const url = new URL(target);
    host = decodeURIComponent(url.hostname || url.searchParams.get('host') || '');
  } catch {
    return false;
  }
  // An empty host or a path means a Unix socket, which is always local.
  return host === '' || host.startsWith('/') || ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);
}

export const postgresDriver: Driver = {
  engines: ['postgresql'],
  protocols: schemesOfProtocol('postgres'),
  isLocal: isLocalPostgresTarget,
  leftoverNoun: 'databases',
  targetFromEnvironment: () => {
    const t = postgresTargetFromEnvironment();
    return t && { ...t, convention: 'the libpq environment' };
  },
  manualCleanup: postgresManualCleanup,
  inspectCatalog: inspectPostgres,

  async openAdmin(target, applicationName): Promise<AdminSession> {
    const client = await connect(target, applicationName);
    return {
      async environment() {
        const { rows } = await client.query<{ version: string; num: string }>(
          "SELECT version() AS version, current_setting('server_version_num') AS num",
        );
        const version = rows[0]?.version ?? 'unknown';
        const serverVersionNum = Number(rows[0]?.num ?? 0);
        // Everything not at its built-in default: config file, command line, ALTER SYSTEM, environment…
        // 'client' and 'session' are this connection's own (application_name carries the run id)
        // and would make every run's settings look different.
        const settings = await client.query<{ name: string; setting: string }>(
          "SELECT name, coalesce(current_setting(name, true), setting) AS setting FROM pg_settings WHERE source NOT IN ('default', 'override', 'client', 'session') ORDER BY name",
        );
        const parsed = parseServerVersion(version) ?? {
          major: Math.floor(serverVersionNum / 10000),
          minor: serverVersionNum % 10000,
        };
        const env: DatabaseEnvironment = {
          engine: 'postgresql',
          version: version.slice(0, 500),
          major: parsed.major,
          minor: parsed.minor,
          settings: Object.fromEntries(settings.rows.map((r) => [r.name, r.setting.slice(0, 2000)])),
        };
        return { ...env, serverVersionNum };
      },
      async dataDirectory() {
        try {
          const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
          return rows[0]?.data_directory ?? null;
        } catch {
          return null; // needs superuser or pg_read_all_settings
        }
      },
      async createDatabase(name, template) {
        await client.query(`CREATE DATABASE ${quoteIdent(name)}${template ? ` TEMPLATE ${quoteIdent(template)}` : ''}`);
      },
      async dropDatabase(name) {
        // WITH (FORCE) (PG13+) also ends sessions still connected to it.
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      },
      async listDatabases(prefix) {
        const { rows } = await client.query<{ datname: string }>(
          'SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname',
          [prefix],
        );
        return rows.map((r) => r.datname);
      },
      async terminateBackends(applicationName) {
        const { rows } = await client.query<{ n: string }>(
          'SELECT count(pg_terminate_backend(pid, 5000)) AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
          [applicationName],
        );
        return Number(rows[0]?.n ?? 0);
      },
      async hasExtension(name) {
        const { rows } = await client.query('SELECT 1 FROM pg_available_extensions WHERE name = $1', [name]);
        return rows.length > 0;
      },
      close: () => client.end().catch(() => {}),
      destroy: () => client.connection.stream.destroy(),
    };
  },

  async openDatabase(target, database, applicationName): Promise<DatabaseSession> {
    const client = await connect(targetWithDatabase(target, database), applicationName);
    let messages: ServerMessage[] = [];
    // The detail is kept as psql prints it: VACUUM FULL names the dead rows it could not remove there.
    client.on('notice', (n) =>
      messages.push({
        severity: n.severity ?? 'NOTICE',
        message: (n.message ?? '') + (n.detail ? `\nDETAIL:  ${n.detail}` : ''),
      }),
    );
    const one = async (sql: string, params: unknown[]) =>
      (await client.query<Record<string, unknown>>(sql, params)).rows[0] ?? {};
    return {
      async exec(sql) {
        // A multi-statement string answers with one result per statement.
        const result: pg.QueryResult<Record<string, unknown>> | pg.QueryResult<Record<string, unknown>>[] = await client
          .query<Record<string, unknown>>(sql)
          .catch((e: unknown) => {
            throw causeOf(client, e);
          });
        const last = [result].flat().at(-1);
        return last?.rows ?? [];
      },
      async setSetting(name, value) {
        await client.query('SELECT set_config($1, $2, false)', [name, value]);
      },
      async relationSizes(relation) {
        const r = await one(
          'SELECT pg_table_size($1::regclass) AS t, pg_indexes_size($1::regclass) AS i, pg_total_relation_size($1::regclass) AS a',
          [relation],
        );
        return { relation, table: num(r.t), indexes: num(r.i), total: num(r.a) };
      },
      async tableStats(relation) {
        const r = await one('SELECT * FROM pg_stat_user_tables WHERE relid = $1::regclass', [relation]);
        return Object.fromEntries(
          Object.entries(r)
            .filter(([, v]) => typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v)))
            .map(([k, v]) => [k, Number(v)]),
        );
      },
      capabilities: {
        tupleStats: {
          async tupleStats(relation) {
            const r = await one('SELECT * FROM pgstattuple($1::regclass)', [relation]);
            return {
              tuple_count: num(r.tuple_count),
              dead_tuple_count: num(r.dead_tuple_count),
              tuple_len: num(r.tuple_len),
              dead_tuple_len: num(r.dead_tuple_len),
              free_space: num(r.free_space),
              table_len: num(r.table_len),
            };
          },
        },
        prepared: {
          // A named prepared statement per distinct text: parsed once per connection, then bind/execute.
          async execute(sql, values) {
            try {
              const r = await client.query({ name: preparedName(sql), text: sql, values });
              return { affectedRows: r.rowCount ?? 0 };
            } catch (e) {
              throw causeOf(client, e);
            }
          },
        },
        settle: {
          // CHECKPOINT needs superuser or pg_checkpoint (PostgreSQL 15+); without it the unit runs unsettled.
          async settle() {
            try {
              await client.query('CHECKPOINT');
              return null;
            } catch (e) {
              const error = causeOf(client, e);
              if ((error as { code?: string }).code === '42501')
                return `no CHECKPOINT before each unit (the role may not: ${(error as Error).message}); a checkpoint may land inside a timed block`;
              throw error;
            }
          },
        },
        wal: {
          async walPosition() {
            const lsn = await one(
              "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS b, current_setting('server_version_num')::int AS v",
              [],
            );
            let statBytes: number | null = null;
            if (num(lsn.v) >= 140000) {
              // pg_stat_wal lags by up to a second; force this backend's pending counters out first (PG15+).
              if (num(lsn.v) >= 150000) await client.query('SELECT pg_stat_force_next_flush()');
              statBytes = num((await one('SELECT wal_bytes FROM pg_stat_wal', [])).wal_bytes);
            }
            return { statBytes, lsnBytes: num(lsn.b) };
          },
        },
      },
      drainMessages() {
        const out = messages;
        messages = [];
        return out;
      },
      close: () => client.end().catch(() => {}),
      destroy: () => client.connection.stream.destroy(),
    };
  },
};
