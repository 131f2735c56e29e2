/**
 * `npm run bench:advise [-- --tables 50000 --runs 3]` (from the repository root): a benchmark, not a
 * test. Creates a throwaway database `advise_bench_<pid>` on the tests' PostgreSQL with that many
 * tables (one in ten with a primary key; one in a hundred with 2,000 rows, three quarters deleted
 * and the rest updated, so the rules match a thousand of them), times `tunelab advise` on it
 * (the catalog read in-process, then the whole CLI as a user runs it) and drops the database.
 * A progress line on stderr every 5 s says how far the build or the reads are.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { progressLines } from '@tunelab/env/bench';
import { advise } from '../src/advise/command.ts';
import { TEST_PG_URL } from '../src/test-support/pg.ts';
import { childEnv } from './env.ts';

const { values } = parseArgs({
  options: { tables: { type: 'string', default: '50000' }, runs: { type: 'string', default: '3' } },
});
const tables = Number(values.tables);
const runs = Number(values.runs);
if (!Number.isInteger(tables) || tables < 1000 || !Number.isInteger(runs) || runs < 1)
  throw new Error('--tables must be a whole number ≥ 1000 and --runs ≥ 1');

const DB = `advise_bench_${process.pid}`;
const url = (() => {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${DB}`;
  return u.toString();
})();
const CLI = fileURLToPath(new URL('../bin/tunelab.mjs', import.meta.url));
const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function withClient<T>(target: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: target });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

function cliSeconds(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, 'advise', '--target', url, '--storage', 'ssd', '--cores', '2', '--memory-gb', '8'],
      {
        cwd: path.dirname(CLI),
        env: childEnv({ TUNELAB_API_URL: '' }),
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    child.on('exit', (code) =>
      code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`advise exited ${code}`)),
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await withClient(TEST_PG_URL, (c) => c.query(`CREATE DATABASE ${DB}`));
const progress = { step: 'build', done: 0, total: tables, unit: 'tables' };
const lines = progressLines('advise', () => ({ ...progress, unit: `${progress.unit} (${progress.step})` }));
try {
  const building = performance.now();
  console.log(`building ${tables.toLocaleString('en-US')} tables in ${DB} (load ${load()}) …`);
  await withClient(url, async (c) => {
    for (let from = 0; from < tables; from += 1000) {
      const to = Math.min(from + 999, tables - 1);
      progress.done = from;
      await c.query(`DO $$ BEGIN FOR i IN ${from}..${to} LOOP
        IF i % 10 = 0 THEN EXECUTE format('CREATE TABLE t%s (id int PRIMARY KEY, v int)', i);
        ELSE EXECUTE format('CREATE TABLE t%s (v int)', i); END IF;
        IF i % 100 = 0 THEN
          EXECUTE format('INSERT INTO t%s SELECT g, g FROM generate_series(1, 2000) g', i);
          EXECUTE format('DELETE FROM t%s WHERE id %% 4 <> 0', i);
          EXECUTE format('UPDATE t%s SET v = v + 1', i);
        END IF;
      END LOOP; END $$`);
    }
    await c.query('SELECT pg_stat_force_next_flush()');
    await c.query('SELECT 1');
  });
  console.log(`built in ${((performance.now() - building) / 1000).toFixed(0)} s`);

  const reads: number[] = [];
  Object.assign(progress, { step: 'in-process catalog reads', done: 0, total: runs, unit: 'reads' });
  const rssBefore = process.memoryUsage().rss;
  let shown = 0;
  for (let i = 0; i < runs; i++) {
    const report = await advise(url, {
      api: null,
      limit: 10,
      hardware: () => Promise.resolve({ cores: 2, memoryGb: 8, storage: 'ssd', from: 'bench' }),
      scenariosDir: SCENARIOS,
    });
    reads.push(report.inspectSeconds);
    progress.done += 1;
    shown = report.scenarios.reduce((n, s) => n + s.tables.length, 0);
  }
  const rssAfter = process.memoryUsage().rss;
  const cli: number[] = [];
  Object.assign(progress, { step: 'whole CLI', done: 0, total: runs, unit: 'runs' });
  for (let i = 0; i < runs; i++) {
    cli.push(await cliSeconds());
    progress.done += 1;
  }
  console.log(
    [
      `measured: the time of tunelab advise's catalog read on ${tables.toLocaleString('en-US')} tables, in-process and as the whole CLI, ${runs} run(s) each`,
      `tables: ${tables.toLocaleString('en-US')} (tables shown: ${shown}, at most 10 per scenario)`,
      `catalog read (in-process, ${runs} runs): median ${median(reads).toFixed(2)} s, max ${Math.max(...reads).toFixed(2)} s`,
      `resident memory of this process: ${(rssBefore / 2 ** 20).toFixed(0)} MiB before the reads, ${(rssAfter / 2 ** 20).toFixed(0)} MiB after`,
      `tunelab advise, whole CLI process (${runs} runs): median ${median(cli).toFixed(2)} s, max ${Math.max(...cli).toFixed(2)} s`,
      `load average at the end: ${load()} (${os.cpus().length} CPUs)`,
    ].join('\n'),
  );
} finally {
  lines.stop();
  await withClient(TEST_PG_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`));
  console.log(`dropped ${DB}`);
}
