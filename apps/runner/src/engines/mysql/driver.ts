/**
 * MySQL / MariaDB driver (mysql2). Implements the `Driver` contract of ./driver.ts.
 *
 * Target: a URL such as `mysql://root@127.0.0.1:3306/test` (`mariadb://` is the same). The
 * runner connects to the database it names for administration (CREATE/DROP DATABASE, SET GLOBAL,
 * KILL) and to the databases it creates for the steps. A password in the URL wins; otherwise
 * `MYSQL_PWD` is used, as the mysql client does.
 *
 * Every call has a client-side timeout (mysql2 closes the connection when it expires):
 * connecting 10 s, administration and probes 60 s, scenario SQL `STATEMENT_TIMEOUT_MS`.
 * Sessions carry no application name the server could show, so "the run's sessions" are the
 * connection ids this process opened under an application name (`terminateBackends`).
 */
import mysql from 'mysql2/promise';
import { parseServerVersion, schemesOfProtocol, type DatabaseEnvironment, type Engine } from '@tunelab/contracts';
import {
  TCP_KEEPALIVE_MS,
  type AdminSession,
  type CompressionStats,
  type DatabaseSession,
  type Driver,
  type GlobalSettingsChange,
  type ServerMessage,
  type TablespaceSizes,
} from '../driver.ts';
import { mysqlManualCleanup } from './cleanup.ts';
import { inspectMysql } from './inspect.ts';
import { flavourOf, isLocalMysqlTarget, parseMysqlTarget } from './target.ts';

export { parseMysqlTarget } from './target.ts';

export const CONNECT_TIMEOUT_MS = 10_000;
export const ADMIN_TIMEOUT_MS = 60_000;
/** Scenario SQL (fixtures, timed blocks) may run long; this still bounds a hung server. */
export const STATEMENT_TIMEOUT_MS = 60 * 60_000;
/** How long a buffer-pool resize may take before the change counts as failed. */
export const RESIZE_TIMEOUT_MS = 120_000;

export const quoteIdentMysql = (name: string): string => `\`${name.replaceAll('`', '``')}\``;

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Connection ids this process opened, by application name (the run's sessions). */
const OPEN_SESSIONS = new Map<string, Set<number>>();
const track = (applicationName: string, id: number) => {
  let set = OPEN_SESSIONS.get(applicationName);
  if (!set) OPEN_SESSIONS.set(applicationName, (set = new Set()));
  set.add(id);
  return () => {
    set.delete(id);
    if (set.size === 0) OPEN_SESSIONS.delete(applicationName);
  };
};

/** A server variable's text (`@@datadir`), or null when empty. */
async function serverVariable(conn: Parameters<typeof rows>[0], name: 'datadir' | 'pid_file'): Promise<string | null> {
  const [r] = await rows(conn, `SELECT @@${name} AS v`);
  return r?.v ? String(r.v) : null;
}

async function connect(target: string, database: string | undefined, applicationName: string) {
  const o = parseMysqlTarget(target);
  const conn = await mysql.createConnection({
    ...o,
    ...(database !== undefined ? { database } : {}),
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableKeepAlive: true,
    keepAliveInitialDelay: TCP_KEEPALIVE_MS,
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    connectAttributes: { program_name: applicationName },
  });
  // A killed connection (cleanup after Ctrl-C) emits 'error'; the pending query rejects on
  // its own, so this listener only keeps the process from crashing.
  conn.on('error', () => {});
  const untrack = track(applicationName, conn.threadId);
  return { conn, untrack };
}

// What mysql2 hands back for a column (text protocol; JSON columns are strings here).
type Row = Record<string, string | number | bigint | Date | Buffer | null>;
type Conn = Awaited<ReturnType<typeof connect>>['conn'];

async function rows(conn: Conn, sql: string, values: unknown[] = [], timeout = ADMIN_TIMEOUT_MS): Promise<Row[]> {
  const [result] = await conn.query({ sql, values, timeout });
  return Array.isArray(result) ? (result as Row[]) : [];
}

const num = (v: unknown): number => (v === null || v === undefined || v === '' ? 0 : Number(v));

const SIZE_SUFFIX: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/**
 * A `SET` right-hand side: numbers as numbers (numeric variables refuse strings), sizes with a
 * K/M/G suffix in bytes (SET GLOBAL does not take the suffixes option files do), else a quoted string.
 */
export function settingLiteral(conn: { escape(v: string): string }, value: string): string {
  const size = /^(\d+)([KMG])$/i.exec(value.trim());
  if (size) return String(Number(size[1]) * SIZE_SUFFIX[size[2]!.toUpperCase()]!);
  return /^-?\d+(\.\d+)?$/.test(value) ? value : conn.escape(value);
}

/** `SHOW GLOBAL STATUS` as numbers (non-numeric values are left out). */
async function readGlobalStatus(conn: Conn, names?: string[]): Promise<Record<string, number>> {
  const list = names && names.length > 0 ? names : null;
  const r = list
    ? await rows(conn, `SHOW GLOBAL STATUS WHERE Variable_name IN (${list.map(() => '?').join(', ')})`, list)
    : await rows(conn, 'SHOW GLOBAL STATUS');
  const out: Record<string, number> = {};
  for (const row of r) {
    const name = String(row.Variable_name);
    const value = row.Value;
    if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) out[name] = Number(value);
  }
  return out;
}

async function readGlobals(conn: Conn, names: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of names) {
    if (!SETTING_NAME.test(name)) throw new Error(`"${name}" is not a server variable name`);
    try {
      const [row] = await rows(conn, `SELECT @@GLOBAL.${name} AS v`);
      out[name] = String(row?.v ?? '');
    } catch (e) {
      throw new Error(`the server has no global variable ${name}: ${(e as Error).message}`, { cause: e });
    }
  }
  return out;
}

/** Waits until an innodb_buffer_pool_size change has finished (resizes run in the background). */
async function waitForResize(conn: Conn, requested: string): Promise<string> {
  const started = Date.now();
  for (;;) {
    const [row] = await rows(conn, 'SELECT @@GLOBAL.innodb_buffer_pool_size AS size');
    const status = await rows(
      conn,
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_resize_status', 'Innodb_buffer_pool_resize_status_code')",
    );
    const text = status.find((s) => s.Variable_name === 'Innodb_buffer_pool_resize_status')?.Value;
    const code = status.find((s) => s.Variable_name === 'Innodb_buffer_pool_resize_status_code')?.Value;
    // MySQL 8 reports code 0 when idle; MariaDB an empty text or "… Completed …".
    const idle = code !== undefined ? Number(code) === 0 : !text || /complet|finish/i.test(String(text));
    const size = String(row?.size ?? '');
    // The server rounds the size (to chunks); within 5% of the request counts as reached.
    const reached = Math.abs(Number(size) - Number(requested)) <= Number(requested) * 0.05 + 8 * 1024 * 1024;
    if (idle && reached) return size;
    // Idle but not at the requested size for 5 s: the server refused or clamped it.
    if (idle && !reached && Date.now() - started > 5_000) {
      throw new Error(
        `innodb_buffer_pool_size stayed at ${size} after SET GLOBAL to ${requested}${text ? ` (${String(text)})` : ''}`,
      );
    }
    if (Date.now() - started > RESIZE_TIMEOUT_MS)
      throw new Error(
        `buffer pool resize to ${requested} bytes did not finish within ${RESIZE_TIMEOUT_MS / 1000} s (${String(text ?? 'no status')})`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function setGlobal(conn: Conn, name: string, value: string): Promise<string> {
  const literal = settingLiteral(conn, value);
  await rows(conn, `SET GLOBAL ${name} = ${literal}`);
  if (name.toLowerCase() === 'innodb_buffer_pool_size') return waitForResize(conn, literal);
  const [row] = await rows(conn, `SELECT @@GLOBAL.${name} AS v`);
  return String(row?.v ?? '');
}

function privilegeError(name: string, e: unknown): Error {
  const err = e as { code?: string; message?: string };
  if (
    err.code === 'ER_SPECIFIC_ACCESS_DENIED_ERROR' ||
    err.code === 'ER_ACCESS_DENIED_ERROR' ||
    /denied|privilege/i.test(err.message ?? '')
  ) {
    return new Error(
      `this database user may not change the global variable ${name} (needs SUPER, or SYSTEM_VARIABLES_ADMIN on MySQL 8): ${err.message}`,
    );
  }
  return new Error(`cannot set global variable ${name}: ${err.message}`);
}

/**
 * Checks that every variable exists and that this user may SET GLOBAL it, changing nothing:
 * each is set to its current value (a no-op for the server, but checked like a change).
 */
async function checkGlobals(conn: Conn, names: string[]): Promise<Record<string, string>> {
  const current = await readGlobals(conn, names);
  for (const name of Object.keys(current)) {
    try {
      // Setting the buffer pool to its own size starts no resize.
      await rows(conn, `SET GLOBAL ${name} = @@GLOBAL.${name}`);
    } catch (e) {
      throw privilegeError(name, e);
    }
  }
  return current;
}

/** Restores saved global values on a fresh connection (the run's own may have been killed). */
async function restoreGlobals(
  target: string,
  applicationName: string,
  previous: Record<string, string>,
): Promise<void> {
  const { conn, untrack } = await connect(target, undefined, `${applicationName}-restore`);
  const failures: string[] = [];
  try {
    for (const [name, value] of Object.entries(previous)) {
      try {
        await setGlobal(conn, name, value);
      } catch (e) {
        failures.push(`${name} = ${value}: ${(e as Error).message}`);
      }
    }
  } finally {
    untrack();
    await conn.end().catch(() => {});
  }
  if (failures.length) throw new Error(`could not restore global settings (${failures.join('; ')})`);
}

/** Sums the tablespace files of a table (one per partition) from information_schema. */
async function readTablespaces(conn: Conn, table: string, flavour: Engine): Promise<TablespaceSizes> {
  const [db] = await rows(conn, 'SELECT DATABASE() AS d');
  const schema = String(db?.d ?? '');
  const view = flavour === 'mariadb' ? 'INNODB_SYS_TABLESPACES' : 'INNODB_TABLESPACES';
  // MariaDB names partitions `db/t#P#p0`, MySQL 8 `db/t#p#p0`; the comparison is case-insensitive.
  const base = `${schema}/${table}`;
  const r = await rows(
    conn,
    `SELECT NAME AS name, FILE_SIZE AS file_size, ALLOCATED_SIZE AS allocated_size FROM information_schema.${view}
      WHERE LOWER(NAME) = LOWER(?) OR LOWER(LEFT(NAME, CHAR_LENGTH(?) + 3)) = LOWER(CONCAT(?, '#p#')) ORDER BY NAME`,
    [base, base, base],
  );
  const files = r.map((x) => ({
    name: String(x.name),
    fileSize: num(x.file_size),
    allocatedSize: num(x.allocated_size),
  }));
  return {
    files,
    fileSize: files.reduce((a, f) => a + f.fileSize, 0),
    allocatedSize: files.reduce((a, f) => a + f.allocatedSize, 0),
  };
}

/** A session's `close` (ends the connection politely) and `destroy` (drops it); both stop tracking it first. */
function endings(conn: { end(): Promise<void>; destroy(): void }, untrack: () => void) {
  return {
    close: async () => {
      untrack();
      await conn.end().catch(() => {});
    },
    destroy: () => {
      untrack();
      conn.destroy();
    },
  };
}

export const mysqlDriver: Driver = {
  engines: ['mysql', 'mariadb'],
  protocols: schemesOfProtocol('mysql'),
  isLocal: isLocalMysqlTarget,
  leftoverNoun: 'schemas',
  manualCleanup: mysqlManualCleanup,
  inspectCatalog: inspectMysql,
  envelopesLocalServer: true,

  async openAdmin(target, applicationName): Promise<AdminSession> {
    const { conn, untrack } = await connect(target, undefined, applicationName);
    return {
      async environment() {
        const [v] = await rows(conn, 'SELECT VERSION() AS version, @@version_comment AS comment');
        const version = `${String(v?.version ?? 'unknown')}${v?.comment ? ` (${String(v.comment)})` : ''}`;
        const engine = flavourOf(version);
        const parsed = parseServerVersion(version) ?? { major: 0, minor: 0 };
        const patch = Number(/\d+\.\d+\.(\d+)/.exec(version)?.[1] ?? 0);
        const settings = await nonDefaultGlobals(conn, engine);
        const env: DatabaseEnvironment = {
          engine,
          version: version.slice(0, 500),
          major: parsed.major,
          minor: parsed.minor,
          settings,
        };
        // Comparable like PostgreSQL's server_version_num: 10.11.19 → 101119, 8.0.36 → 80036.
        return { ...env, serverVersionNum: parsed.major * 10000 + parsed.minor * 100 + patch };
      },
      dataDirectory: () => serverVariable(conn, 'datadir'),
      pidFile: () => serverVariable(conn, 'pid_file'),
      async createDatabase(name, template) {
        await rows(conn, `CREATE DATABASE ${quoteIdentMysql(name)}`);
        if (template) await copyDatabase(conn, template, name);
      },
      async dropDatabase(name) {
        await rows(conn, `DROP DATABASE IF EXISTS ${quoteIdentMysql(name)}`, [], STATEMENT_TIMEOUT_MS);
      },
      async listDatabases(prefix) {
        // LIKE would treat the prefix's `_` as a wildcard.
        const r = await rows(
          conn,
          'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE LEFT(SCHEMA_NAME, CHAR_LENGTH(?)) = ? ORDER BY SCHEMA_NAME',
          [prefix, prefix],
        );
        return r.map((x) => String(x.name));
      },
      async terminateBackends(name) {
        const ids = [...(OPEN_SESSIONS.get(name) ?? [])].filter((id) => id !== conn.threadId);
        let killed = 0;
        for (const id of ids) {
          try {
            await rows(conn, `KILL CONNECTION ${Number(id)}`);
            killed++;
          } catch {
            // already gone
          }
        }
        return killed;
      },
      async hasExtension(name) {
        const r = await rows(
          conn,
          "SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = ? AND PLUGIN_STATUS = 'ACTIVE'",
          [name],
        );
        return r.length > 0;
      },
      async checkGlobalSettings(names) {
        await checkGlobals(conn, names);
      },
      async changeGlobalSettings(changes, onSaved): Promise<GlobalSettingsChange> {
        const previous = await checkGlobals(conn, Object.keys(changes));
        await onSaved?.(previous);
        const applied: Record<string, string> = {};
        const changed: Record<string, string> = {};
        try {
          for (const [name, value] of Object.entries(changes)) {
            changed[name] = previous[name] ?? '';
            try {
              applied[name] = await setGlobal(conn, name, value);
            } catch (e) {
              throw privilegeError(name, e);
            }
          }
        } catch (e) {
          await restoreGlobals(target, applicationName, changed).catch(() => {});
          throw e;
        }
        let restored = false;
        return {
          previous,
          applied,
          async restore() {
            if (restored) return;
            restored = true;
            await restoreGlobals(target, applicationName, previous);
          },
        };
      },
      async restoreGlobalSettings(previous) {
        for (const [name, value] of Object.entries(previous)) {
          if (!SETTING_NAME.test(name)) throw new Error(`"${name}" is not a server variable name`);
          await setGlobal(conn, name, value);
        }
      },
      ...endings(conn, untrack),
    };
  },

  async openDatabase(target, database, applicationName): Promise<DatabaseSession> {
    const { conn, untrack } = await connect(target, database, applicationName);
    const [v] = await rows(conn, 'SELECT VERSION() AS version');
    const flavour = flavourOf(String(v?.version ?? ''));
    let messages: ServerMessage[] = [];
    const collectWarnings = async (warningStatus: number) => {
      if (warningStatus <= 0) return;
      for (const w of await rows(conn, 'SHOW WARNINGS'))
        messages.push({
          severity: String(w.Level ?? 'Warning').toUpperCase(),
          message: `${String(w.Code ?? '')} ${String(w.Message ?? '')}`.trim(),
        });
    };
    return {
      async exec(sql) {
        const [result] = await conn.query({ sql, timeout: STATEMENT_TIMEOUT_MS });
        // Several statements → one entry per statement; a SELECT's entry is an array of rows.
        const parts: unknown[] = Array.isArray(result) && result.length > 0 && !isRow(result[0]) ? result : [result];
        const last = parts[parts.length - 1];
        const header = parts.findLast((p) => !Array.isArray(p)) as { warningStatus?: number } | undefined;
        await collectWarnings(header?.warningStatus ?? 0);
        return Array.isArray(last) ? (last as Row[]) : [];
      },
      async setSetting(name, value) {
        if (!SETTING_NAME.test(name)) throw new Error(`"${name}" is not a session variable name`);
        await rows(conn, `SET SESSION ${name} = ${settingLiteral(conn, value)}`);
      },
      async relationSizes(relation) {
        const [r] = await rows(
          conn,
          'SELECT DATA_LENGTH AS t, INDEX_LENGTH AS i FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
          [relation],
        );
        if (!r) throw new Error(`table ${relation} does not exist in ${database}`);
        return { relation, table: num(r.t), indexes: num(r.i), total: num(r.t) + num(r.i) };
      },
      async tableStats(relation) {
        const [r] = await rows(
          conn,
          `SELECT TABLE_ROWS AS table_rows, AVG_ROW_LENGTH AS avg_row_length, DATA_LENGTH AS data_length, INDEX_LENGTH AS index_length,
                  DATA_FREE AS data_free, AUTO_INCREMENT AS auto_increment
             FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`,
          [relation],
        );
        if (!r) throw new Error(`table ${relation} does not exist in ${database}`);
        return Object.fromEntries(
          Object.entries(r)
            .filter(([, x]) => x !== null)
            .map(([k, x]) => [k, num(x)]),
        );
      },
      capabilities: {
        wal: {
          async walPosition() {
            const s = await readGlobalStatus(conn, [
              'Innodb_os_log_written',
              'Innodb_lsn_current',
              'Innodb_redo_log_current_lsn',
            ]);
            const lsn = s.Innodb_lsn_current ?? s.Innodb_redo_log_current_lsn ?? s.Innodb_os_log_written ?? 0;
            return { statBytes: s.Innodb_os_log_written ?? null, lsnBytes: lsn };
          },
        },
        prepared: {
          async execute(sql, values) {
            const [result] = await conn.execute({ sql, timeout: ADMIN_TIMEOUT_MS }, values);
            return {
              affectedRows: Array.isArray(result)
                ? result.length
                : num((result as { affectedRows?: number }).affectedRows),
            };
          },
        },
        innodb: {
          globalStatus: (names) => readGlobalStatus(conn, names),
          tablespaceSizes: (table) => readTablespaces(conn, table, flavour),
          async compressionStats(): Promise<CompressionStats[]> {
            const r = await rows(
              conn,
              'SELECT page_size, compress_ops, compress_ops_ok, compress_time, uncompress_ops, uncompress_time FROM information_schema.INNODB_CMP ORDER BY page_size',
            );
            return r.map((x) => ({
              pageSize: num(x.page_size),
              compressOps: num(x.compress_ops),
              compressOpsOk: num(x.compress_ops_ok),
              compressTime: num(x.compress_time),
              uncompressOps: num(x.uncompress_ops),
              uncompressTime: num(x.uncompress_time),
            }));
          },
        },
      },
      drainMessages() {
        const out = messages;
        messages = [];
        return out;
      },
      ...endings(conn, untrack),
    };
  },
};

const isRow = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x) && !('affectedRows' in x);

/** Settings someone chose (config file, command line, SET GLOBAL to a non-default value). */
async function nonDefaultGlobals(conn: Conn, engine: Engine): Promise<Record<string, string>> {
  let r: Row[];
  if (engine === 'mariadb') {
    r = await rows(
      conn,
      `SELECT LOWER(VARIABLE_NAME) AS name, GLOBAL_VALUE AS value FROM information_schema.SYSTEM_VARIABLES
        WHERE GLOBAL_VALUE_ORIGIN IN ('CONFIG', 'COMMAND-LINE', 'ENVIRONMENT')
           OR (GLOBAL_VALUE_ORIGIN = 'SQL' AND NOT (GLOBAL_VALUE <=> DEFAULT_VALUE))
        ORDER BY VARIABLE_NAME`,
    );
  } else {
    try {
      r = await rows(
        conn,
        `SELECT i.VARIABLE_NAME AS name, g.VARIABLE_VALUE AS value FROM performance_schema.variables_info i
           JOIN performance_schema.global_variables g USING (VARIABLE_NAME)
          WHERE i.VARIABLE_SOURCE NOT IN ('COMPILED') ORDER BY i.VARIABLE_NAME`,
      );
    } catch {
      r = []; // performance_schema off or not readable
    }
  }
  return Object.fromEntries(r.slice(0, 1000).map((x) => [String(x.name), String(x.value ?? '').slice(0, 2000)]));
}

/** MySQL has no CREATE DATABASE … TEMPLATE: copy each base table (definition, then rows). */
async function copyDatabase(conn: Conn, from: string, to: string): Promise<void> {
  const tables = await rows(
    conn,
    "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
    [from],
  );
  for (const { t } of tables) {
    const src = `${quoteIdentMysql(from)}.${quoteIdentMysql(String(t))}`;
    const dst = `${quoteIdentMysql(to)}.${quoteIdentMysql(String(t))}`;
    await rows(conn, `CREATE TABLE ${dst} LIKE ${src}`);
    await rows(conn, `INSERT INTO ${dst} SELECT * FROM ${src}`, [], STATEMENT_TIMEOUT_MS);
  }
}
