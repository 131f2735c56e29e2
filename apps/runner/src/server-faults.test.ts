/**
 * The runner against a server connection that dies or stalls. The CLI runs as a
 * real child process; its target is a real TCP proxy (@tunelab/test-support) in front of the
 * test PostgreSQL, which the test cuts or stalls mid-run. What is left is checked directly on the
 * server (not through the proxy), by the run's own prefix.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDriver } from './engines/postgresql/driver.ts';
import { cleanupRun, runPrefix } from './engine/run-scenario.ts';
import { DEFAULT_CLEANUP_RETRY_S } from './engine/stall.ts';
import { EXIT } from './exit-codes.ts';
import { runTunelab } from './test-support/cli.ts';
import { databasesWithPrefix, TEST_PG_URL } from './test-support/pg.ts';
import { startTcpProxy, type TcpProxy } from '@tunelab/test-support';

let tmp: string;
let proxy: TcpProxy;
const runIds: string[] = [];
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-faults-'));
  const u = new URL(TEST_PG_URL);
  proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
});
afterAll(async () => {
  await proxy.close();
  for (const id of runIds) await cleanupRun(postgresDriver, TEST_PG_URL, id).catch(() => {});
  await rm(tmp, { recursive: true, force: true });
});

/** A fresh run id and ledger directory; the CLI's environment for it. */
function newRun(extraEnv: Record<string, string> = {}) {
  const runId = randomUUID();
  runIds.push(runId);
  const ledger = path.join(tmp, `ledger-${runId.slice(0, 8)}`);
  const env = {
    TUNELAB_RUNS_DIR: path.join(tmp, 'runs'),
    TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'),
    TUNELAB_LEDGER_DIR: ledger,
    ...extraEnv,
  };
  return { runId, ledger, env, prefix: runPrefix(runId) };
}

const run = (runId: string, rows: number) => [
  'run',
  'vacuum-index-cleanup',
  '--target',
  proxy.url(TEST_PG_URL),
  '--param',
  `rows=${rows}`,
  '--repetitions',
  '1',
  '--run-id',
  runId,
];

const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);
const lastLine = (stderr: string) => stderr.trim().split('\n').at(-1) ?? '';

describe('a PostgreSQL server connection that dies', () => {
  it('cut for 3 s mid-measure: one sentence naming the stage, exit 1, nothing left', async () => {
    const r0 = newRun();
    let fired = false;
    const r = await runTunelab(run(r0.runId, 20_000), r0.env, (all) => {
      if (fired || !/1\/4 variant [12]-[12] repetition 1…/.test(all)) return;
      fired = true;
      void proxy.cut().then(() => setTimeout(() => void proxy.restore(), 3_000));
    });
    expect(fired).toBe(true);
    expect(lastLine(r.stderr)).toMatch(
      /^tunelab: the run failed while measuring: .*; every database of this run was dropped$/,
    );
    noStack(r.stderr);
    expect(r.code).toBe(EXIT.RUN_FAILED);
    expect(await databasesWithPrefix(r0.prefix)).toEqual([]);
    expect(await readdir(r0.ledger)).toEqual([]); // the record went with the clean-up
  }, 120_000);

  it('cut for good: exit 5 naming every database left and the commands; `tunelab cleanup` removes them later', async () => {
    const r0 = newRun({ TUNELAB_CLEANUP_RETRY_S: '2' });
    let fired = false;
    const r = await runTunelab(run(r0.runId, 20_000), r0.env, (all) => {
      if (fired || !/2\/4 variant [12]-[12] repetition 1…/.test(all)) return;
      fired = true;
      void proxy.cut();
    });
    const left = (await databasesWithPrefix(r0.prefix)).sort();
    // While the server is still away, `tunelab cleanup` says so (exit 3) and keeps the record.
    const away = await runTunelab(['cleanup', '--target', proxy.url(TEST_PG_URL)], r0.env);
    expect(away.code).toBe(EXIT.TARGET_UNREACHABLE);
    expect(away.stderr).toMatch(/^tunelab: cannot reach the target /);
    expect(await readdir(r0.ledger)).toEqual([`${r0.runId}.json`]);
    await proxy.restore();
    expect(left.length).toBeGreaterThan(0);
    const sentence = lastLine(r.stderr);
    expect(sentence).toMatch(
      /^tunelab: the run failed while measuring: .*; the server could not be reached to clean up/,
    );
    // Every database actually left is named, in the sentence and in the psql command.
    for (const name of left) {
      expect(sentence).toContain(`${name}`);
      expect(sentence).toContain(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
    expect(sentence).toContain(`\`tunelab cleanup --target ${proxy.url(TEST_PG_URL)}\``);
    noStack(r.stderr);
    expect(r.code).toBe(EXIT.LEFT_BEHIND);

    // The server is back: clean-up gets the default retry budget, not the 2 s the run was given to
    // give up quickly (DROP DATABASE waits for a checkpoint, seconds on a loaded machine).
    const backEnv = { ...r0.env, TUNELAB_CLEANUP_RETRY_S: String(DEFAULT_CLEANUP_RETRY_S) };
    const c = await runTunelab(['cleanup', '--target', proxy.url(TEST_PG_URL)], backEnv);
    expect(c.stdout).toContain(`earlier run ${r0.runId}`);
    expect(c.stdout).toContain(`dropped ${left.join(', ')}`);
    expect(c.code).toBe(EXIT.OK);
    expect(await databasesWithPrefix(r0.prefix)).toEqual([]);
    // Said once: a second clean-up finds nothing.
    const again = await runTunelab(['cleanup', '--target', proxy.url(TEST_PG_URL)], backEnv);
    expect(again.stdout).toMatch(/nothing left by earlier runs of this machine/);
  }, 120_000);
});

describe('Ctrl-C while the clean-up retries against a server that is gone', () => {
  it('ends the process within 10 s, saying what failed first and what is left', async () => {
    const r0 = newRun(); // the default clean-up retry time (30 s)
    let cut = false;
    let signalledAt = 0;
    const r = await runTunelab(run(r0.runId, 20_000), r0.env, (all, child) => {
      if (!cut && /1\/4 variant [12]-[12] repetition 1…/.test(all)) {
        cut = true;
        void proxy.cut();
      }
      if (cut && !signalledAt && /cleanup: dropping/.test(all)) {
        signalledAt = -1;
        setTimeout(() => {
          signalledAt = Date.now();
          child.kill('SIGINT');
        }, 1_000);
      }
    });
    const seconds = (Date.now() - signalledAt) / 1000;
    await proxy.restore();
    console.log(`Ctrl-C → exit while the clean-up retries: ${seconds.toFixed(1)} s (exit ${r.code})`);
    expect(signalledAt).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(10);
    expect(r.code).toBe(EXIT.LEFT_BEHIND);
    expect(lastLine(r.stderr)).toMatch(
      /^tunelab: the run failed while measuring: .*; the server could not be reached to clean up .*; left on /,
    );
    noStack(r.stderr);
    const c = await runTunelab(['cleanup', '--target', proxy.url(TEST_PG_URL)], r0.env);
    expect(c.code).toBe(EXIT.OK);
    expect(await databasesWithPrefix(r0.prefix)).toEqual([]);
  }, 120_000);
});

describe('a PostgreSQL server connection that stalls', () => {
  it('stalled mid-fixture: the stall timeout ends the run with a sentence; the next run removes what it left', async () => {
    const r0 = newRun({ TUNELAB_STALL_TIMEOUT_S: '3', TUNELAB_CLEANUP_RETRY_S: '2' });
    let fired = false;
    const started = Date.now();
    const r = await runTunelab(run(r0.runId, 300_000), r0.env, (all) => {
      if (fired || !/fixture: building the fixture/.test(all)) return;
      fired = true;
      setTimeout(() => proxy.stall(), 300);
    });
    const seconds = (Date.now() - started) / 1000;
    proxy.heal();
    const sentence = lastLine(r.stderr);
    expect(sentence).toMatch(/^tunelab: the run failed while building the fixture: the server sent nothing for 3 s/);
    expect(sentence).toContain(`${r0.prefix}tpl`);
    noStack(r.stderr);
    expect(r.code).toBe(EXIT.LEFT_BEHIND);
    expect(seconds).toBeLessThan(30);

    // The next run against the same server (same machine: same ledger) removes it first.
    const r1 = newRun({ TUNELAB_LEDGER_DIR: r0.ledger });
    const next = await runTunelab(run(r1.runId, 200), r1.env);
    expect(next.stderr).toContain(`earlier run ${r0.runId}`);
    expect(next.stderr).toContain(`dropped ${r0.prefix}tpl`);
    expect(next.code).toBe(EXIT.OK);
    expect(await databasesWithPrefix(r0.prefix)).toEqual([]);
    expect(await databasesWithPrefix(r1.prefix)).toEqual([]);
    expect(await readdir(r0.ledger)).toEqual([]);
  }, 180_000);

  it('Ctrl-C while stalled (no stall timeout): the process ends within 10 s', async () => {
    const r0 = newRun({ TUNELAB_STALL_TIMEOUT_S: '0' });
    let signalledAt = 0;
    const r = await runTunelab(run(r0.runId, 20_000), r0.env, (all, child) => {
      if (signalledAt || !/1\/4 variant [12]-[12] repetition 1…/.test(all)) return;
      proxy.stall();
      signalledAt = -1;
      setTimeout(() => {
        signalledAt = Date.now();
        child.kill('SIGINT');
      }, 2_000);
    });
    const seconds = (Date.now() - signalledAt) / 1000;
    proxy.heal();
    console.log(`Ctrl-C → exit while stalled: ${seconds.toFixed(1)} s (exit ${r.code})`);
    expect(signalledAt).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(10);
    expect([EXIT.LEFT_BEHIND, EXIT.INTERRUPTED]).toContain(r.code);
    noStack(r.stderr);
    if (r.code === EXIT.LEFT_BEHIND)
      expect(lastLine(r.stderr)).toMatch(/^tunelab: interrupted; the server could not be reached/);
    const c = await runTunelab(['cleanup', '--target', proxy.url(TEST_PG_URL)], r0.env);
    expect(c.code).toBe(EXIT.OK);
    expect(await databasesWithPrefix(r0.prefix)).toEqual([]);
  }, 120_000);
});
