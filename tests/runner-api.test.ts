/**
 * Runner → API → results database, across apps: a real `tunelab` CLI process submits to a real
 * API process (apps/api/src/server.ts) backed by a throwaway PostgreSQL database of its own.
 * The "API killed mid-submit" cases put a TCP proxy between them that SIGKILLs the API either
 * as the request arrives (nothing stored) or as the response leaves (stored, answer lost).
 */
import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { openResultsDb } from '@tunelab/results-db';
import { FindingList, RunDetail, RunList, ScenarioAnswers } from '@tunelab/contracts';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { apiProcess, runTunelab, scratch, TARGET } from './support.ts';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const SCENARIO = 'vacuum-full-rewrite';

const { tmp, cleanups } = await scratch('tunelab-runner-api-');

const tunelab = (args: string[], env: Record<string, string> = {}) =>
  runTunelab(args, { TUNELAB_RUNS_DIR: path.join(tmp, 'runs'), TUNELAB_SUBMIT_BACKOFF_MS: '50', ...env });

/** A results database and an API process on it; `start()` can be called again after a kill. */
async function apiOnFreshDatabase() {
  const database = await createTestDatabase('tunelab_rt');
  cleanups.push(() => database.drop());
  const db = await openResultsDb(database.url);
  await db.migrate();
  const { token } = await db.createRunner(`runner-api-${Date.now()}`);
  await db.close();
  return { token, ...apiProcess({ DATABASE_URL: database.url }, cleanups) };
}

/** Forwards to `upstream`; `onRequest`/`onResponse` may kill the API and swallow the bytes. */
async function startProxy(
  upstream: () => number,
  hooks: { onRequest?: () => Promise<void>; onResponse?: () => Promise<void> },
) {
  const server = net.createServer((client) => {
    const up = net.connect(upstream(), '127.0.0.1');
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
    client.on('data', (chunk) => {
      if (hooks.onRequest) {
        client.pause();
        void hooks.onRequest().then(() => client.destroy());
        return;
      }
      up.write(chunk);
    });
    up.on('data', (chunk) => {
      if (hooks.onResponse) {
        void hooks.onResponse().then(() => client.destroy());
        return;
      }
      client.write(chunk);
    });
    up.on('end', () => client.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

async function runsOf(api: string) {
  const res = await fetch(`${api}/v1/runs?scenario=${SCENARIO}`);
  expect(res.status).toBe(200);
  return RunList.parse(await res.json()).items;
}

let runFile = '';
beforeAll(async () => {
  // One measured run (tiny scale) for the mid-submit cases; the round trip makes its own.
  runFile = path.join(tmp, 'measured.json');
  const r = await tunelab([
    'run',
    SCENARIO,
    '--target',
    TARGET,
    '--param',
    'rows=1000',
    '--repetitions',
    '2',
    '--out',
    runFile,
    '--json',
  ]);
  expect(r.code, r.stderr).toBe(0);
});

describe('runner → API round trip', () => {
  it('a run submitted by `tunelab run --api` reads back with every sample', async () => {
    const api = await apiOnFreshDatabase();
    const url = await api.start();
    const out = path.join(tmp, 'roundtrip.json');
    const r = await tunelab([
      'run',
      SCENARIO,
      '--target',
      TARGET,
      '--param',
      'rows=1000',
      '--repetitions',
      '3',
      '--out',
      out,
      '--api',
      url,
      '--token',
      api.token,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/stored/);
    const run = JSON.parse(await readFile(out, 'utf8'));
    const items = await runsOf(url);
    expect(items).toHaveLength(1);
    expect(items[0]!.scenario).toEqual({ key: SCENARIO, version: run.submission.scenario.version });
    const detail = RunDetail.parse(await (await fetch(`${url}/v1/runs/${items[0]!.id}`)).json());
    const key = (s: { variant: string; repetition: number; metric: string }) =>
      `${s.variant}#${s.repetition}#${s.metric}`;
    const sent = new Map<string, number>(
      run.submission.samples.map((s: { variant: string; repetition: number; metric: string; value: number }) => [
        key(s),
        s.value,
      ]),
    );
    expect(detail.samples).toHaveLength(sent.size);
    for (const s of detail.samples) expect(s.value).toBeCloseTo(sent.get(key(s))!, 9);
    expect(detail.order).toEqual(run.submission.order);
    expect(detail.notes.some((n) => n.kind === 'fixture-snapshot')).toBe(true);
    // Submitting the same run file again is an idempotent replay, not a second run.
    const again = await tunelab(['submit', out, '--api', url, '--token', api.token]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/replay/);
    expect(await runsOf(url)).toHaveLength(1);

    // The measured run is a finding, compared on the pairs its scenario.yaml declares.
    const declared = run.submission.scenario.comparisons as { baseline: string; candidate: string }[];
    expect(declared.length).toBeGreaterThan(0);
    const findings = FindingList.parse(await (await fetch(`${url}/v1/findings?scenario=${SCENARIO}`)).json());
    expect(findings.items.map((f) => `${f.baseline}>${f.candidate}`).sort()).toEqual(
      declared.map((c) => `${c.baseline}>${c.candidate}`).sort(),
    );
    for (const f of findings.items) {
      expect(f.source).toBe('measured');
      expect(f.runs).toEqual([`/v1/runs/${items[0]!.id}`]);
      // Three blocks: paired, and undecided until six.
      expect(f.sentence).toMatch(
        / after only 3 paired blocks: a decision waits for 6, enough to judge their spread; so far /,
      );
    }
    // GET /v1/answers states the class's noise from those blocks with the answer.
    const answers = ScenarioAnswers.parse(
      await (await fetch(`${url}/v1/answers?scenario=${SCENARIO}&source=measured`)).json(),
    );
    expect(answers.groups).toHaveLength(1);
    expect(answers.groups[0]!.spread).toMatchObject({ blocks: { low: 3, high: 3 } });
    expect(answers.groups[0]!.spread!.sentence).toMatch(
      /^On this class the 3 pairs’ ratios vary by [\d.]+%(–[\d.]+%)? from block to block \(3 paired blocks\)/,
    );
    await api.kill();
  });
});

describe('API killed mid-submit', () => {
  it.each([
    { when: 'as the request arrives (nothing stored)', hook: 'onRequest' as const, replay: false },
    { when: 'after storing, before the response (answer lost)', hook: 'onResponse' as const, replay: true },
  ])('$when: the run waits in the spool and a flush stores it exactly once', async ({ hook, replay }) => {
    const api = await apiOnFreshDatabase();
    const first = await api.start();
    const port = Number(new URL(first).port);
    const proxy = await startProxy(() => port, { [hook]: api.kill });
    const spool = path.join(tmp, `spool-${hook}`);
    const env = { TUNELAB_SPOOL_DIR: spool, TUNELAB_SUBMIT_RETRIES: '2' };

    const r = await tunelab(['submit', runFile, '--api', proxy, '--token', api.token], env);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/waits in the spool/);
    expect(await readdir(spool)).toHaveLength(1);

    const second = await api.start(); // the API comes back (on another port)
    const flush = await tunelab(['spool', 'flush', '--api', second, '--token', api.token], env);
    expect(flush.code, flush.stdout + flush.stderr).toBe(0);
    expect(flush.stdout).toMatch(replay ? /stored \(replay\)/ : /stored$/m);
    expect(await readdir(spool)).toEqual([]);
    expect(await runsOf(second)).toHaveLength(1);

    const again = await tunelab(['spool', 'flush', '--api', second, '--token', api.token], env);
    expect(again.stdout).toMatch(/nothing to flush/);
    expect(await runsOf(second)).toHaveLength(1);
    await api.kill();
  });
});

describe('the token is checked before measuring (GET /v1/runners/me)', () => {
  // One API for the refused tokens: nothing is stored through it.
  let url = '';
  beforeAll(async () => {
    url = await (await apiOnFreshDatabase()).start();
  });

  it('`tunelab run --api` with a token the API refuses: one sentence, exit 6, nothing measured', async () => {
    const runs = path.join(tmp, 'refused-runs');
    const started = Date.now();
    const r = await tunelab(
      [
        'run',
        SCENARIO,
        '--target',
        TARGET,
        '--param',
        'rows=1000',
        '--repetitions',
        '2',
        '--api',
        url,
        '--token',
        'tl_wrong',
      ],
      { TUNELAB_RUNS_DIR: runs },
    );
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toMatch(/refused this runner's token before anything was measured: 401 .*unknown or revoked/);
    expect(r.stderr).not.toMatch(/fixture|measure:/);
    await expect(readdir(runs)).rejects.toThrow(/ENOENT/); // no run file: nothing was measured
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('`tunelab run --api` with the API away: a warning, then it measures and the run waits in the spool (exit 4)', async () => {
    const spool = path.join(tmp, 'spool-away');
    const r = await tunelab(['run', SCENARIO, '--target', TARGET, '--param', 'rows=1000', '--repetitions', '2'], {
      TUNELAB_API_URL: 'http://127.0.0.1:9',
      TUNELAB_TOKEN: 't',
      TUNELAB_SPOOL_DIR: spool,
      TUNELAB_SUBMIT_RETRIES: '0',
    });
    expect(r.stderr).toMatch(
      /warning: could not check the token with the API at http:\/\/127\.0\.0\.1:9 \(.+\); measuring anyway/,
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/waits in the spool/);
    expect(await readdir(spool)).toHaveLength(1);
  });

  it('`tunelab agent` with a token the API refuses: exit 6 before probing or claiming, with and without --once', async () => {
    for (const once of [['--once', '--wait', '5'], []]) {
      const r = await tunelab([
        'agent',
        '--api',
        url,
        '--token',
        'tl_wrong',
        '--target',
        TARGET,
        '--storage',
        'ssd',
        ...once,
      ]);
      expect(r.code, r.stderr).toBe(6);
      expect(r.stderr).toMatch(/the API refused this agent: 401 .*unknown or revoked/);
      expect(r.stderr).not.toMatch(/agent: postgresql/); // stopped before announcing itself
    }
  });
});
