// With real processes: one embedded results database, several openers (APIs, the
// published import, the admin CLI, the demo). Exactly one owns it; the others stop before
// touching anything, or go through the owner's API; nothing acknowledged is ever lost.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openResultsDb, readOwner } from '@tunelab/results-db';
import { prismaOf } from '@tunelab/results-db/testing';
import { FIXTURE, clone, post } from './helpers.ts';
import { startQuickstartApi, type ApiProcess as Api } from '../src/testing.ts';
import { envWithoutTuneLab } from '@tunelab/env';
import { TEST_PG_URL } from '@tunelab/env/testing';
import { nodeArgsFor } from '@tunelab/test-support';

const SERVER = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const IMPORT = fileURLToPath(new URL('../../../packages/results-db/scripts/import-published.ts', import.meta.url));
const DEMO = fileURLToPath(new URL('../../../scripts/demo.ts', import.meta.url));

/**
 * What one process may take to start and finish its work on a loaded machine, with a margin: a
 * test's timeout is this times the processes it runs one after another. Measured with nine busy
 * loops beside this file alone (load 10.5): the first test (two processes and 25 submissions)
 * took 59.7 s, the next three 98, 79 and 88 s; a whole \`npm run test:busy\` (load 11) timed three
 * of them out at 30 s a process. 1–3 s a process on a quiet machine.
 */
const PROCESS_MS = 60_000;

/** The caller's environment without its results database, API or TuneLab settings. */
const cleanEnv = (extra: Record<string, string>) => envWithoutTuneLab(extra);

/** Runs a command to its end: exit code and everything it printed. */
async function run([entry, ...args]: [string, ...string[]], env: Record<string, string>) {
  const node = await nodeArgsFor(entry);
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [...node, ...args], {
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

async function stop(api: Api) {
  api.child.kill('SIGTERM');
  expect(await exited(api.child)).toBe(0);
}

/** Submits `n` distinct runs; returns the ids the API acknowledged (201). */
async function submit(api: Api, tag: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const body = clone(FIXTURE);
    body.startedAt = new Date(Date.parse(FIXTURE.startedAt) + i * 1000).toISOString();
    const res = await post(api.url, api.token, body, { 'idempotency-key': `${tag}-${i}` });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}

/** Opens the database once every process is gone: which of `ids` are there, and what is inconsistent. */
async function inspect(dataDir: string, ids: string[]) {
  const db = await openResultsDb(undefined, { dataDir });
  try {
    const p = prismaOf(db);
    const found = await p.run.findMany({ where: { id: { in: ids } }, select: { id: true } });
    const [orphans] = await p.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM samples s LEFT JOIN runs r ON r.id = s.run_id WHERE r.id IS NULL`;
    const duplicateScenarios = await p.$queryRaw<{ key: string }[]>`
      SELECT key FROM scenarios GROUP BY key HAVING count(*) > 1`;
    const published = await p.run.count({ where: { source: 'published' } });
    const listed = await db.listRuns({ source: 'all', limit: 500 });
    return {
      lost: ids.length - found.length,
      orphanSamples: orphans?.n ?? -1,
      duplicateScenarios: duplicateScenarios.length,
      published,
      listed: listed.items.length,
    };
  } finally {
    await db.close();
  }
}

describe('one owner per embedded results database, with real processes', () => {
  let dir: string;
  let dataDir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tl_owner_api_'));
    dataDir = join(dir, 'results');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it(
    'a second API on the directory stops with exit 4 naming the first; all 25 acknowledged runs survive',
    { timeout: 2 * PROCESS_MS },
    async () => {
      const first = await startQuickstartApi(dataDir);
      try {
        expect(await readOwner(dataDir)).toMatchObject({ pid: first.pid, url: first.url });
        const second = await run([SERVER], { TUNELAB_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' });
        expect(second.code, second.out).toBe(4);
        expect(second.out).toContain(`in use by process ${first.pid} (the TuneLab API at ${first.url}`);
        expect(second.out).toContain(`kill ${first.pid}`);
        const ids = await submit(first, 'two-apis', 25);
        // Same key again: the one owner answers with the same run.
        const replay = await post(first.url, first.token, FIXTURE, { 'idempotency-key': 'two-apis-0' });
        expect(((await replay.json()) as { id: string }).id).toBe(ids[0]);
        await stop(first);
        expect(await inspect(dataDir, ids)).toMatchObject({ lost: 0, orphanSamples: 0, duplicateScenarios: 0 });
      } finally {
        first.child.kill('SIGKILL');
      }
    },
  );

  // Four processes one after another (the API; the import and the admin CLI side by side; the
  // import again; the API again).
  it(
    'the published import and the admin CLI beside a running API stop with exit 4 and change nothing',
    { timeout: 4 * PROCESS_MS },
    async () => {
      const api = await startQuickstartApi(dataDir);
      const ids: string[] = [];
      try {
        ids.push(...(await submit(api, 'import-beside', 5)));
        const [imported, admin] = await Promise.all([
          run([IMPORT], { TUNELAB_DATA_DIR: dataDir }),
          run([CLI, 'create-runner', 'beside-api'], { TUNELAB_DATA_DIR: dataDir }),
        ]);
        expect(imported.code, imported.out).toBe(4);
        expect(imported.out).toContain(`in use by process ${api.pid}`);
        expect(imported.out).toMatch(/Nothing was imported/);
        expect(admin.code, admin.out).toBe(4);
        expect(admin.out).toContain(`in use by process ${api.pid}`);
        // The API is unaffected and still has every run.
        for (const id of ids) expect((await fetch(`${api.url}/v1/runs/${id}`)).status).toBe(200);
        await stop(api);
      } finally {
        api.child.kill('SIGKILL');
      }
      expect(await inspect(dataDir, ids)).toEqual({
        lost: 0,
        orphanSamples: 0,
        duplicateScenarios: 0,
        published: 0,
        listed: 5,
      });
      // Once the API is gone the import works, and a restarted API serves what it stored.
      const imported = await run([IMPORT], { TUNELAB_DATA_DIR: dataDir });
      expect(imported.code, imported.out).toBe(0);
      expect(imported.out).toMatch(/[1-9]\d* run\(s\) imported/);
      const again = await startQuickstartApi(dataDir);
      try {
        const res = await fetch(`${again.url}/v1/runs?source=published&limit=100`);
        expect(((await res.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
        await stop(again);
      } finally {
        again.child.kill('SIGKILL');
      }
    },
  );

  it(
    'an API killed with SIGKILL mid-load: the next one recovers the lock at once and has every acknowledged run',
    // Two API processes and the load between them (CI at load 10 timed out at 2 × PROCESS_MS).
    { timeout: 3 * PROCESS_MS },
    async () => {
      const first = await startQuickstartApi(dataDir);
      const acknowledged: string[] = [];
      let stopLoad = false;
      // Four clients submit until the kill; a run counts once the API answered 201.
      const clients = Array.from({ length: 4 }, async (_, c) => {
        for (let i = 0; !stopLoad; i++) {
          const body = clone(FIXTURE);
          body.startedAt = new Date(Date.parse(FIXTURE.startedAt) + (c * 10_000 + i) * 1000).toISOString();
          try {
            const res = await post(first.url, first.token, body, { 'idempotency-key': `kill-${c}-${i}` });
            if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
          } catch {
            return; // the connection died with the process
          }
        }
      });
      while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 50));
      first.child.kill('SIGKILL');
      await exited(first.child);
      stopLoad = true;
      await Promise.all(clients);
      // "At once": by the dead pid, never by proper-lockfile's staleness (a lock not refreshed for
      // 60 s). The lock's mtime goes to the future, so only the dead-pid recovery can let the next
      // API in, however slow the machine — no wall-clock bound.
      const future = new Date(Date.now() + 24 * 3600 * 1000);
      await utimes(`${dataDir}.lock`, future, future);
      const second = await startQuickstartApi(dataDir);
      try {
        expect(await readOwner(dataDir)).toMatchObject({ pid: second.pid });
        for (const id of acknowledged) expect((await fetch(`${second.url}/v1/runs/${id}`)).status, id).toBe(200);
        await stop(second);
      } finally {
        second.child.kill('SIGKILL');
      }
      expect(await inspect(dataDir, acknowledged)).toMatchObject({ lost: 0, orphanSamples: 0, duplicateScenarios: 0 });
    },
  );

  // The API, the refused demo, the demo through the API and the runner it starts.
  it(
    'npm start beside a running API: without a token it stops with exit 4; with one it measures through that API',
    { timeout: 4 * PROCESS_MS },
    async () => {
      const api = await startQuickstartApi(dataDir);
      try {
        // Without a token the demo stops before it touches anything: no server installed, nothing measured.
        const refused = await run([DEMO, '--no-site'], { TUNELAB_DATA_DIR: dataDir, PORT: '0' });
        expect(refused.code, refused.out).toBe(4);
        expect(refused.out).toContain(`in use by process ${api.pid} (the TuneLab API at ${api.url}`);
        expect(refused.out).toMatch(/TUNELAB_TOKEN=tlr_… npm start/);
        expect(((await (await fetch(`${api.url}/v1/runs`)).json()) as { items: unknown[] }).items).toHaveLength(0);

        const through = await run(
          [DEMO, '--no-site', '--scenarios', 'vacuum-index-cleanup', '--param', 'rows=2000', '--repetitions', '2'],
          {
            TUNELAB_DATA_DIR: dataDir,
            TUNELAB_TOKEN: api.token,
            // The local server: this test is about the results database's owner, not managed servers.
            TUNELAB_TARGET: TEST_PG_URL,
            TUNELAB_RUNS_DIR: join(dir, 'runs'),
            TUNELAB_SPOOL_DIR: join(dir, 'spool'),
            PORT: '0',
          },
        );
        expect(through.code, through.out.slice(-3000)).toBe(0);
        expect(through.out).toContain(`owned by process ${api.pid}, the API at ${api.url}`);
        expect(through.out).toMatch(/vacuum-index-cleanup: measured and stored/);
        const runs = (await (await fetch(`${api.url}/v1/runs`)).json()) as { items: { id: string }[] };
        expect(runs.items).toHaveLength(1);
        await stop(api);
        expect(await inspect(dataDir, [runs.items[0]!.id])).toMatchObject({ lost: 0, orphanSamples: 0 });
      } finally {
        api.child.kill('SIGKILL');
      }
    },
  );
});
