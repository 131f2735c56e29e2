import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkQuery, mysqlTargetAs, TEST_MYSQL_URL } from '../../test-support/mysql.ts';
import type { AdminSession } from '../driver.ts';
import { mysqlDriver, parseMysqlTarget } from './driver.ts';

const tag = randomBytes(4).toString('hex');
const prefix = `tunelab_t${tag}_`;
const app = `tunelab-test-${tag}`;
const db = `${prefix}sizes`;
let admin: AdminSession;

beforeAll(async () => {
  admin = await mysqlDriver.openAdmin(TEST_MYSQL_URL, app);
});
afterAll(async () => {
  for (const name of await admin.listDatabases(prefix)) await admin.dropDatabase(name);
  await admin.close();
});

describe('mysql driver: admin session', () => {
  it('reports the flavour, version and the settings someone chose, as the server does', async () => {
    const env = await admin.environment();
    const [v] = await checkQuery('SELECT VERSION() AS v, @@GLOBAL.port AS port, @@GLOBAL.innodb_page_size AS ps');
    expect(env.engine).toBe(String(v?.v).includes('MariaDB') ? 'mariadb' : 'mysql');
    expect(env.version.startsWith(String(v?.v))).toBe(true);
    expect(env.major).toBe(Number(String(v?.v).split('.')[0]));
    expect(env.serverVersionNum).toBeGreaterThan(50000);
    // A config-file setting shows up with the server's value; a compiled-in default does not.
    if (env.engine === 'mariadb') {
      const chosen = await checkQuery(
        "SELECT LOWER(VARIABLE_NAME) AS n, GLOBAL_VALUE AS v FROM information_schema.SYSTEM_VARIABLES WHERE GLOBAL_VALUE_ORIGIN = 'CONFIG'",
      );
      for (const { n, v: value } of chosen) expect(env.settings[String(n)]).toBe(String(value ?? ''));
      expect(env.settings).not.toHaveProperty('innodb_page_size');
    }
  });

  it('creates, lists, copies (as a template) and drops the run databases by prefix', async () => {
    await admin.createDatabase(`${prefix}tpl`);
    const s = await mysqlDriver.openDatabase(TEST_MYSQL_URL, `${prefix}tpl`, app);
    await s.exec(
      'CREATE TABLE t (id int primary key, v varchar(10)) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4; INSERT INTO t VALUES (1, "a"), (2, "b")',
    );
    await s.close();
    await admin.createDatabase(`${prefix}copy`, `${prefix}tpl`);
    expect(await admin.listDatabases(prefix)).toEqual([`${prefix}copy`, `${prefix}tpl`]);
    const rows = await checkQuery(`SELECT id, v FROM \`${prefix}copy\`.t ORDER BY id`);
    expect(rows).toEqual([
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
    ]);
    const [opts] = await checkQuery(
      'SELECT CREATE_OPTIONS AS o FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [`${prefix}copy`, 't'],
    );
    expect(String(opts?.o)).toMatch(/row_format=COMPRESSED/i);
    // `_` in the prefix is not a wildcard.
    expect(await admin.listDatabases(`${prefix.slice(0, -1)}%`)).toEqual([]);
    await admin.dropDatabase(`${prefix}copy`);
    await admin.dropDatabase(`${prefix}tpl`);
    expect(await admin.listDatabases(prefix)).toEqual([]);
  });

  it("kills the run's sessions and only those", async () => {
    await admin.createDatabase(`${prefix}kill`);
    const victim = await mysqlDriver.openDatabase(TEST_MYSQL_URL, `${prefix}kill`, `${app}-victim`);
    const other = await mysqlDriver.openDatabase(TEST_MYSQL_URL, `${prefix}kill`, `${app}-other`);
    const running = victim.exec('SELECT SLEEP(30)');
    running.catch(() => {});
    await new Promise((r) => setTimeout(r, 200));
    expect(await admin.terminateBackends(`${app}-victim`)).toBe(1);
    // SLEEP() returns 1 when interrupted on MariaDB, or the connection dies: either way it ends now.
    await Promise.race([
      running.catch(() => 'killed'),
      new Promise((_, rej) => setTimeout(() => rej(new Error('still sleeping')), 5000)),
    ]);
    await expect(victim.exec('SELECT 1')).rejects.toThrow();
    expect(await other.exec('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await victim.close();
    await other.close();
  });
});

describe('mysql driver: sizes and counters', () => {
  it('reads table and tablespace sizes like information_schema, and counters move with the work', async () => {
    await admin.createDatabase(db);
    const s = await mysqlDriver.openDatabase(TEST_MYSQL_URL, db, app);
    try {
      await s.exec(
        'CREATE TABLE test (NO int NOT NULL AUTO_INCREMENT PRIMARY KEY, EMAIL varchar(128), NAME varchar(32) NOT NULL) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4 PARTITION BY KEY() PARTITIONS 3',
      );
      const status0 = await s.capabilities.innodb!.globalStatus(['Handler_write', 'Innodb_data_written']);
      const cmp0 = await s.capabilities.innodb!.compressionStats();
      const values: (string | number | null)[] = [];
      for (let i = 0; i < 500; i++) values.push(`user${i}@example.com`, `name${i}`);
      for (let k = 0; k < 10; k++) {
        const r = await s.capabilities.prepared!.execute(
          `INSERT INTO test (EMAIL, NAME) VALUES ${Array.from({ length: 500 }, () => '(?, ?)').join(', ')}`,
          values,
        );
        expect(r.affectedRows).toBe(500);
      }
      await s.exec('ANALYZE TABLE test');
      const status1 = await s.capabilities.innodb!.globalStatus(['Handler_write', 'Innodb_data_written']);
      expect(status1.Handler_write! - status0.Handler_write!).toBeGreaterThanOrEqual(5000);
      expect(status1.Innodb_data_written!).toBeGreaterThanOrEqual(status0.Innodb_data_written!);
      const cmp1 = await s.capabilities.innodb!.compressionStats();
      const kb4 = (c: typeof cmp1) => c.find((x) => x.pageSize === 4096)!;
      expect(kb4(cmp1).compressOps - kb4(cmp0).compressOps).toBeGreaterThan(0);

      const sizes = await s.relationSizes('test');
      const [t] = await checkQuery(
        'SELECT DATA_LENGTH AS d, INDEX_LENGTH AS i FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [db, 'test'],
      );
      expect(sizes).toEqual({
        relation: 'test',
        table: Number(t?.d),
        indexes: Number(t?.i),
        total: Number(t?.d) + Number(t?.i),
      });
      expect(sizes.table).toBeGreaterThan(0);
      expect((await s.tableStats('test')).auto_increment).toBe(5001);

      const ts = await s.capabilities.innodb!.tablespaceSizes('test');
      const env = await admin.environment();
      const view = env.engine === 'mariadb' ? 'INNODB_SYS_TABLESPACES' : 'INNODB_TABLESPACES';
      const files = await checkQuery(
        `SELECT NAME AS n, FILE_SIZE AS f, ALLOCATED_SIZE AS a FROM information_schema.${view} WHERE NAME LIKE ? ORDER BY NAME`,
        [`${db}/test#%`],
      );
      expect(files).toHaveLength(3);
      expect(ts.files.map((f) => f.name)).toEqual(files.map((f) => String(f.n)));
      expect(ts.fileSize).toBe(files.reduce((a, f) => a + Number(f.f), 0));
      expect(ts.allocatedSize).toBe(files.reduce((a, f) => a + Number(f.a), 0));
      expect(await s.capabilities.innodb!.tablespaceSizes('no_such_table')).toEqual({
        files: [],
        fileSize: 0,
        allocatedSize: 0,
      });
      expect(s.capabilities.tupleStats).toBeUndefined();
      const wal = await s.capabilities.wal!.walPosition();
      expect(wal.lsnBytes).toBeGreaterThan(0);
    } finally {
      await s.close();
      await admin.dropDatabase(db);
    }
  });
});

const bufferPool = async () => Number((await checkQuery('SELECT @@GLOBAL.innodb_buffer_pool_size AS b'))[0]?.b);

describe('mysql driver: global settings', () => {
  it('changes the buffer pool size, waits for the resize and restores it', async () => {
    const before = await bufferPool();
    const target = before === 32 * 1024 * 1024 ? 48 * 1024 * 1024 : 32 * 1024 * 1024;
    const change = await admin.changeGlobalSettings!({ innodb_buffer_pool_size: String(target) });
    try {
      expect(change.previous).toEqual({ innodb_buffer_pool_size: String(before) });
      expect(await bufferPool()).toBe(Number(change.applied.innodb_buffer_pool_size));
      expect(Math.abs((await bufferPool()) - target)).toBeLessThanOrEqual(8 * 1024 * 1024);
    } finally {
      await change.restore();
    }
    expect(await bufferPool()).toBe(before);
  });

  it('restores what it changed when a later change fails, and refuses unknown variables before changing anything', async () => {
    const before = await bufferPool();
    const [mc] = await checkQuery('SELECT @@GLOBAL.max_connections AS m');
    await expect(
      admin.changeGlobalSettings!({
        innodb_buffer_pool_size: String(32 * 1024 * 1024),
        max_connections: 'not-a-number',
      }),
    ).rejects.toThrow(/max_connections/);
    expect(await bufferPool()).toBe(before);
    expect((await checkQuery('SELECT @@GLOBAL.max_connections AS m'))[0]?.m).toBe(mc?.m);
    await expect(
      admin.changeGlobalSettings!({ innodb_buffer_pool_size: '33554432', tunelab_no_such_variable: '1' }),
    ).rejects.toThrow(/no global variable tunelab_no_such_variable/);
    expect(await bufferPool()).toBe(before);
    await expect(admin.checkGlobalSettings!(['x; DROP DATABASE test'])).rejects.toThrow(/not a server variable name/);
  });
});

describe('mysql driver: bad targets and missing privileges', () => {
  const user = `tunelab_u${tag}`;
  beforeAll(async () => {
    await checkQuery(`CREATE USER '${user}'@'%' IDENTIFIED BY 'right-pw'`);
    await checkQuery(`GRANT CREATE, DROP, SELECT, INSERT ON \`tunelab\\_t${tag}\\_%\`.* TO '${user}'@'%'`);
  });
  afterAll(async () => {
    await checkQuery(`DROP USER IF EXISTS '${user}'@'%'`);
  });

  it('fails fast on an unreachable server and on a wrong password', async () => {
    const unreachable = TEST_MYSQL_URL.replace(/:\d+\//, ':1/');
    await expect(mysqlDriver.openAdmin(unreachable, app)).rejects.toThrow(/ECONNREFUSED|connect/i);
    await expect(mysqlDriver.openAdmin(mysqlTargetAs(user, 'wrong-pw'), app)).rejects.toThrow(/Access denied/i);
    expect(() => parseMysqlTarget('postgres://x@y/z')).toThrow(/not mysql: or mariadb:/);
  });

  it('says clearly that the user may not SET GLOBAL, and changes nothing', async () => {
    const limited = await mysqlDriver.openAdmin(mysqlTargetAs(user, 'right-pw', ''), app);
    try {
      const before = await bufferPool();
      await expect(limited.checkGlobalSettings!(['innodb_buffer_pool_size'])).rejects.toThrow(
        /may not change the global variable innodb_buffer_pool_size/,
      );
      await expect(limited.changeGlobalSettings!({ innodb_buffer_pool_size: '33554432' })).rejects.toThrow(
        /may not change/,
      );
      expect(await bufferPool()).toBe(before);
      // What it may do still works: its own run databases.
      await limited.createDatabase(`${prefix}limited`);
      expect(await limited.listDatabases(prefix)).toContain(`${prefix}limited`);
      await limited.dropDatabase(`${prefix}limited`);
    } finally {
      await limited.close();
    }
  });
});
