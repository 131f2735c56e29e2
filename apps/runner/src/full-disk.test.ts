/**
 * A full disk never costs a measurement. Each test mounts a small tmpfs (the test
 * runs as root), fills it to the last byte and points the runner's directories at it; the CLI runs
 * as a real child process against the test PostgreSQL.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDriver } from './engines/postgresql/driver.ts';
import { cleanupRun } from './engine/run-scenario.ts';
import { EXIT } from './exit-codes.ts';
import { runTunelab } from './test-support/cli.ts';
import { TEST_PG_URL } from './test-support/pg.ts';
import { canMountTmpfs, fullTmpfs } from '@tunelab/test-support';

// Mounting the small tmpfs that plays the full disk needs root; CI and this machine run as root, so
// the suite runs there. As a normal user it is skipped (there is no unprivileged full-disk trick
// that fills only the runs directory).
const canMount = canMountTmpfs;
const RUN = ['run', 'vacuum-index-cleanup', '--target', TEST_PG_URL, '--param', 'rows=200', '--repetitions', '1'];

let tmp: string;
let full: string;
let unmount: () => Promise<unknown> = async () => undefined;
const runIds: string[] = [];

/** A free TCP port nobody listens on (an API that is down). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === 'object' && address ? address.port : 1;
}

/** Every file under `dir`, recursively (to find partial `.tmp` files). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

beforeAll(async () => {
  if (!canMount) return;
  tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-fulldisk-'));
  full = path.join(tmp, 'full');
  ({ unmount } = await fullTmpfs(full, ['runs', 'spool', 'tmp']));
});
afterAll(async () => {
  for (const id of runIds) await cleanupRun(postgresDriver, TEST_PG_URL, id);
  if (!canMount) return;
  await unmount();
  await rm(tmp, { recursive: true, force: true });
});

const runIdOf = (stdout: string) => {
  const id = /"runId": "([0-9a-f-]{36})"/.exec(stdout)?.[1];
  if (id) runIds.push(id);
  return id;
};
const noPartialFiles = async () => {
  const tmpFiles = (await filesUnder(full)).filter((f) => f.endsWith('.tmp'));
  expect(tmpFiles).toEqual([]);
};

// Skipped only without root (see canMount above); runs in CI and on this machine.
describe.skipIf(!canMount)('a full disk', () => {
  it('--json prints the run whatever happens to the file; the file goes to the OS temp dir, named; exit 4', async () => {
    const spareTmp = path.join(tmp, 'os-tmp');
    await mkdir(spareTmp);
    const r = await runTunelab([...RUN, '--json'], {
      TUNELAB_RUNS_DIR: path.join(full, 'runs'),
      TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'),
      TMPDIR: spareTmp,
    });
    const runId = runIdOf(r.stdout);
    expect(runId).toBeDefined();
    const printed = JSON.parse(r.stdout) as { submission: { samples: unknown[] } };
    expect(printed.submission.samples.length).toBeGreaterThan(0);
    const fallback = path.join(spareTmp, 'tunelab-runs', `${runId}.json`);
    expect(r.stderr).toContain(`${path.join(full, 'runs')}: no space left on the device`);
    expect(r.stderr).toContain(`written to ${fallback} instead`);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(JSON.parse(await readFile(fallback, 'utf8'))).toEqual(printed);
    expect(r.code).toBe(EXIT.NOT_STORED);
    await noPartialFiles();
  }, 120_000);

  it('with every place full and no --json, the run is printed on stdout after the table; exit 4', async () => {
    const r = await runTunelab(RUN, {
      TUNELAB_RUNS_DIR: path.join(full, 'runs'),
      TUNELAB_SPOOL_DIR: path.join(full, 'spool'),
      TMPDIR: path.join(full, 'tmp'),
    });
    const runId = runIdOf(r.stdout);
    expect(runId).toBeDefined();
    expect(r.stdout).toMatch(/vacuum/i); // the table
    const json = r.stdout.slice(r.stdout.indexOf('{\n  "format": "tunelab-run/1"'));
    expect((JSON.parse(json) as { runId: string }).runId).toBe(runId);
    expect(r.stderr).toContain(`run ${runId} could not be written to any file`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(EXIT.NOT_STORED);
    await noPartialFiles();
  }, 120_000);

  it('spool full + API down: exit 4 naming where the run file is', async () => {
    const runs = path.join(tmp, 'runs-ok');
    const r = await runTunelab([...RUN, '--api', `http://127.0.0.1:${await closedPort()}`, '--token', 'x', '--json'], {
      TUNELAB_RUNS_DIR: runs,
      TUNELAB_SPOOL_DIR: path.join(full, 'spool'),
      TUNELAB_SUBMIT_RETRIES: '0',
    });
    const runId = runIdOf(r.stdout);
    const file = path.join(runs, `${runId}.json`);
    expect(r.stderr).toContain(
      `the spool cannot take the run (${path.join(full, 'spool')}: no space left on the device)`,
    );
    expect(r.stderr).toContain(`the run file stays at ${file}; \`tunelab submit ${file}\` sends it later`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(JSON.parse(r.stdout));
    expect(r.code).toBe(EXIT.NOT_STORED);
    await noPartialFiles();

    // `tunelab submit` of that file on the same full spool: a sentence, exit 4, the file kept.
    const s = await runTunelab(['submit', file, '--api', `http://127.0.0.1:${await closedPort()}`, '--token', 'x'], {
      TUNELAB_SPOOL_DIR: path.join(full, 'spool'),
      TUNELAB_SUBMIT_RETRIES: '0',
    });
    expect(s.stderr).toContain('the spool cannot take the run');
    expect(s.stderr).toContain(`the run file stays at ${file}`);
    expect(s.stderr).not.toMatch(/\n\s+at /);
    expect(s.code).toBe(EXIT.NOT_STORED);
    await noPartialFiles();
  }, 120_000);
});
