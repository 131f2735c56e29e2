/**
 * Against the real API (in this process, on a throwaway PostgreSQL
 * database) and the real `tunelab` CLI: a corrupt spool file is quarantined and the good runs are
 * stored and readable; two `spool flush` at once store every run exactly once.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '@tunelab/api';
import { RunList, RunSubmission } from '@tunelab/contracts';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { ROOT, runTunelab } from './support.ts';

const SAMPLE = RunSubmission.parse(
  JSON.parse(await readFile(path.join(ROOT, 'tests/fixtures/sample-submission.json'), 'utf8')),
);
const tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-spool-api-'));

const tunelab = (args: string[], spool: string) =>
  runTunelab(args, {
    TUNELAB_SPOOL_DIR: spool,
    TUNELAB_RUNS_DIR: path.join(tmp, 'runs'),
    TUNELAB_SUBMIT_BACKOFF_MS: '10',
  });

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: ResultsDb;
let app: Awaited<ReturnType<typeof buildApp>>;
let url = '';
let token = '';
beforeAll(async () => {
  database = await createTestDatabase('tunelab_spool');
  db = await openResultsDb(database.url);
  await db.migrate();
  token = (await db.createRunner('spool-runner')).token;
  app = await buildApp({ resultsDb: db, migrate: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});
afterAll(async () => {
  await app?.close();
  await db?.close();
  await database?.drop();
  await rm(tmp, { recursive: true, force: true });
});

let n = 0;
async function spoolWith(good: number, extra: Record<string, string> = {}) {
  const dir = path.join(tmp, `spool-${n++}`);
  await mkdir(dir, { recursive: true });
  const keys: string[] = [];
  for (let i = 0; i < good; i++) {
    const runId = crypto.randomUUID();
    keys.push(`tunelab-run-${runId}`);
    // Distinct start times: distinct runs (a body-identical run under another key is still its own run).
    const submission = {
      ...SAMPLE,
      startedAt: new Date(Date.UTC(2026, 10, 1, 0, n, i)).toISOString(),
      finishedAt: new Date(Date.UTC(2026, 10, 1, 1, n, i)).toISOString(),
    };
    await writeFile(
      path.join(dir, `${runId}.json`),
      JSON.stringify({ format: 'tunelab-run/1', runId, idempotencyKey: `tunelab-run-${runId}`, submission }),
    );
  }
  for (const [name, body] of Object.entries(extra)) await writeFile(path.join(dir, name), body);
  return { dir, keys };
}

async function allRuns() {
  const res = await fetch(`${url}/v1/runs?limit=500`);
  return RunList.parse(await res.json()).items;
}

describe('spool flush against the real API', () => {
  it('quarantines a corrupt file and stores the others, readable through the API', async () => {
    const before = (await allRuns()).length;
    const { dir } = await spoolWith(2, {
      'broken.json': '{"format":"tunelab-run/1","runId":"x","idempotencyKey":"k","submission":{"samples":[]}}',
    });
    const flush = await tunelab(['spool', 'flush', '--api', url, '--token', token], dir);
    expect(flush.code).toBe(4);
    expect(flush.stderr).toMatch(/broken\.json: not a run file .*moved to/);
    expect(flush.stdout.match(/ stored/g)).toHaveLength(2);
    const runs = await allRuns();
    expect(runs.length - before).toBe(2);
    for (const r of runs.slice(0, 2)) expect((await fetch(`${url}${r.links.self}`)).status).toBe(200);
    expect(await readdir(path.join(dir, 'quarantine'))).toEqual(['broken.json']);
  });

  it('two flushes at once store every run exactly once', async () => {
    const before = (await allRuns()).length;
    const { dir } = await spoolWith(8);
    const [a, b] = await Promise.all([
      tunelab(['spool', 'flush', '--api', url, '--token', token], dir),
      tunelab(['spool', 'flush', '--api', url, '--token', token], dir),
    ]);
    for (const r of [a, b]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/ENOENT|\n\s+at /);
    }
    expect((await allRuns()).length - before).toBe(8);
    expect((await readdir(dir)).filter((f) => f.endsWith('.json'))).toEqual([]);
  });
});
