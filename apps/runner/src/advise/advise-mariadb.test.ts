/**
 * `tunelab advise` against the real MariaDB, as a user runs it: a database made for it (an InnoDB
 * table larger than a quarter of the buffer pool, a ROW_FORMAT=COMPRESSED one, a PAGE_COMPRESSED
 * one and a small plain one), read by a user with only PROCESS; users it cannot read with; and
 * the tables unchanged by the read (CHECKSUM TABLE, InnoDB's modification counters, create times).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveParams } from '@tunelab/contracts';
import { listScenarioDirs, loadScenario } from '@tunelab/scenarios';
import { parseRunArgs } from '../commands/run.ts';
import { runTunelab } from '../test-support/cli.ts';
import { checkQuery, mysqlTargetAs } from '../test-support/mysql.ts';
import type { AdviseReport } from './command.ts';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 600_000 });

const DB = `advise_my_${process.pid}`;
const PROCESS_ONLY = `advise_proc_${process.pid}`;
const NO_PROCESS = `advise_noproc_${process.pid}`;
const TABLES = ['big', 'kbs4', 'pagec', 'small'];

const advise = (args: string[]) => runTunelab(['advise', ...args], { TUNELAB_API_URL: '' });

beforeAll(async () => {
  await checkQuery(`DROP DATABASE IF EXISTS ${DB}`);
  await checkQuery(`CREATE DATABASE ${DB}`);
  const pool = Number((await checkQuery('SELECT @@innodb_buffer_pool_size AS p'))[0]!.p);
  // A third of the buffer pool in rows of about 250 bytes: above the quarter the rule asks for.
  const bigRows = Math.ceil(pool / 3 / 250);
  await checkQuery(`CREATE TABLE ${DB}.big (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC`);
  await checkQuery(`INSERT INTO ${DB}.big SELECT seq, REPEAT('x', 230) FROM seq_1_to_${bigRows}`, [], DB);
  await checkQuery(
    `CREATE TABLE ${DB}.kbs4 (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4`,
  );
  await checkQuery(`INSERT INTO ${DB}.kbs4 SELECT seq, REPEAT('y', 100) FROM seq_1_to_2000`, [], DB);
  await checkQuery(`CREATE TABLE ${DB}.pagec (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB PAGE_COMPRESSED=1`);
  await checkQuery(`INSERT INTO ${DB}.pagec SELECT seq, REPEAT('z', 100) FROM seq_1_to_2000`, [], DB);
  await checkQuery(`CREATE TABLE ${DB}.small (id INT PRIMARY KEY) ENGINE=InnoDB`);
  await checkQuery(`INSERT INTO ${DB}.small SELECT seq FROM seq_1_to_100`, [], DB);
  await checkQuery(`ANALYZE TABLE ${DB}.big, ${DB}.kbs4, ${DB}.pagec, ${DB}.small`);
  for (const user of [PROCESS_ONLY, NO_PROCESS]) {
    await checkQuery(`DROP USER IF EXISTS '${user}'@'%'`);
    await checkQuery(`CREATE USER '${user}'@'%' IDENTIFIED BY 'pw'`);
  }
  await checkQuery(`GRANT PROCESS ON *.* TO '${PROCESS_ONLY}'@'%'`);
});

afterAll(async () => {
  await checkQuery(`DROP DATABASE IF EXISTS ${DB}`);
  for (const user of [PROCESS_ONLY, NO_PROCESS]) await checkQuery(`DROP USER IF EXISTS '${user}'@'%'`);
});

/** Contents (CHECKSUM TABLE), InnoDB's count of row changes since its statistics, and the tables' definitions. */
async function fingerprint() {
  const checksums = await checkQuery(`CHECKSUM TABLE ${TABLES.map((t) => `${DB}.${t}`).join(', ')}`);
  const modified = await checkQuery(
    `SELECT NAME, MODIFIED_COUNTER, NUM_ROWS FROM information_schema.INNODB_SYS_TABLESTATS WHERE NAME LIKE ? ORDER BY NAME`,
    [`${DB}/%`],
  );
  const tables = await checkQuery(
    `SELECT TABLE_NAME, CREATE_TIME, ROW_FORMAT, CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`,
    [DB],
  );
  return { checksums, modified, tables };
}

describe('tunelab advise on MariaDB', () => {
  let report: AdviseReport;

  it('reads the server as a user with only PROCESS, and changes nothing', async () => {
    const before = await fingerprint();
    const { code, stdout, stderr } = await advise([
      '--target',
      mysqlTargetAs(PROCESS_ONLY, 'pw', ''),
      '--json',
      '--storage',
      'ssd',
      '--limit',
      '1000',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    report = JSON.parse(stdout) as AdviseReport;
    expect(await fingerprint()).toEqual(before);
  });

  it('picks the large table and the compressed ones, with rows and the buffer pool as parameters', async () => {
    const i = report.inspection;
    expect(i.engine).toBe('mariadb');
    if (i.engine === 'postgresql') return;
    const s = report.scenarios.find((x) => x.key === 'innodb-compression-insert')!;
    const ours = s.tables.filter((t) => t.table?.startsWith(`${DB}.`));
    // Largest first: the big table, then the two small compressed ones.
    expect(ours[0]!.table).toBe(`${DB}.big`);
    expect(ours.map((t) => t.table).sort()).toEqual([`${DB}.big`, `${DB}.kbs4`, `${DB}.pagec`]);
    const of = (name: string) => ours.find((t) => t.table === `${DB}.${name}`)!;
    const [big, kbs4, pagec] = [of('big'), of('kbs4'), of('pagec')];
    expect(big.facts).toMatchObject({ rowFormat: 'Dynamic', keyBlockSize: null, pageCompressed: false });
    expect(Number(big.facts.dataBytes)).toBeGreaterThanOrEqual(i.server.bufferPoolBytes! / 4);
    expect(big.params).toEqual({
      rows: big.facts.rows,
      buffer_pool_mb: Math.round(i.server.bufferPoolBytes! / 1024 / 1024),
    });
    expect(kbs4.facts).toMatchObject({ rowFormat: 'Compressed', keyBlockSize: 4, pageCompressed: false });
    expect(pagec.facts).toMatchObject({ pageCompressed: true });
    expect(kbs4.why).toContain('ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4');
    expect(pagec.why).toContain('PAGE_COMPRESSED=1');
    // The small plain table matches no rule.
    expect(s.tables.some((t) => t.table === `${DB}.small`)).toBe(false);
    // Only MariaDB/MySQL scenarios are listed.
    expect(report.scenarios.map((x) => x.key)).toEqual(['innodb-compression-insert']);

    const scenario = await loadScenario(
      (await listScenarioDirs(new URL('../../../../scenarios/', import.meta.url).pathname)).find((d) =>
        d.endsWith('innodb-compression-insert'),
      )!,
    );
    for (const t of ours) {
      const request = parseRunArgs(t.command.split(' ').slice(1));
      // The inspected server, being local, without the password (MYSQL_PWD gives it).
      expect(request.target).toMatch(/^mysql:\/\/advise_proc_\d+@127\.0\.0\.1:3306\/?$/);
      expect(resolveParams(scenario.doc.params, request.params).ok).toBe(true);
    }
  });

  it('a user without PROCESS gets a sentence naming it, exit 1', async () => {
    const { code, stdout, stderr } = await advise(['--target', mysqlTargetAs(NO_PROCESS, 'pw', '')]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/insufficient privilege: reading InnoDB's tables needs the PROCESS privilege/);
  });

  it('a wrong password is a refused login (exit 1), the password never shown; a closed port exits 3', async () => {
    const wrong = await advise(['--target', mysqlTargetAs(PROCESS_ONLY, 'not-the-pw', '')]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/refused the login: Access denied for user/);
    expect(wrong.stderr).not.toContain('not-the-pw');
    const closed = await advise(['--target', 'mysql://root@127.0.0.1:55502/test']);
    expect(closed.code).toBe(3);
    expect(closed.stderr).toMatch(/cannot reach mysql:\/\/root@127\.0\.0\.1:55502\/test: .*ECONNREFUSED/);
  });
});
