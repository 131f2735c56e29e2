/**
 * The fleet with real processes, on both results databases: an API process (apps/api/src/server.ts,
 * a 10 s lease) and `tunelab agent` processes running tiny jobs against the local PostgreSQL.
 * N agents × M jobs complete every job exactly once; a SIGKILLed agent's job is re-leased and
 * completed once by another; an API killed and restarted mid-job still gets the job's run; an
 * active job cancelled stops its agent. An agent whose run lost its server (a TCP proxy cut) removes
 * what that run left before its next job once the server is back. An agent with `--server 17` takes
 * a job naming `server: 17` and runs it on a throwaway PostgreSQL 17 from the npm registry; given
 * scenario × releases in one request, it runs the job naming 17.0 on PostgreSQL 17.0 and fails the
 * one naming a release the registry lacks (at once, without retries), and coverage's release matrix shows both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { childEnv } from '@tunelab/env';
import { openResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { Coverage, Job, JobList, RunList } from '@tunelab/contracts';
import { startTcpProxy } from '@tunelab/test-support';
import { apiProcess, CLI_ARGS, ROOT, scratch, TARGET, TEST_SERVERS_DIR } from './support.ts';

// Bounds for a hang, not for speed: each test is a chain of phases (agents starting, runs, leases
// lapsing, an API restart). The N × M test takes ~110 s on a quiet machine; under npm run test:busy
// at load 11–13 it passed 240 s (red twice): 900 s for it, and 180 s for each condition it waits on.
vi.setConfig({ testTimeout: 900_000, hookTimeout: 180_000 });

const SCENARIO = 'vacuum-index-cleanup';

const { tmp, cleanups } = await scratch('tl-fleet-e2e-');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 180_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** The API process on a fresh results database of the given kind, with runner and operator tokens. */
async function fleetOn(
  backend: 'postgresql' | 'pglite',
  agents: string[],
  prefix = 'tl_fleet_e2e',
  env: Record<string, string> = {},
) {
  const database = backend === 'postgresql' ? await createTestDatabase(prefix) : undefined;
  if (database) cleanups.push(() => database.drop());
  const dataDir = path.join(tmp, `results-${backend}`);
  const db = await openResultsDb(database?.url, { dataDir });
  await db.migrate();
  const tokens: Record<string, string> = {};
  for (const name of agents) tokens[name] = (await db.createRunner(name)).token;
  const operator = (await db.createRunner('ops', { kind: 'operator' })).token;
  await db.close();
  const { start, kill } = apiProcess(
    {
      ...(database ? { DATABASE_URL: database.url } : { TUNELAB_DATA_DIR: dataDir }),
      TUNELAB_JOB_LEASE_S: '10',
      // The test's agents and its own polling all read from 127.0.0.1: the per-address read limit
      // (600 a minute) is not what this test is about, and it answered 429 to the polling.
      TUNELAB_READ_RATE_LIMIT: '100000',
      TUNELAB_READ_BUDGET_MS: '0',
      ...env,
    },
    cleanups,
    { keepPort: true },
  );
  const url = await start();
  const asOperator = { authorization: `Bearer ${operator}` };
  const api = {
    url,
    tokens,
    start,
    kill,
    async request(body: object) {
      const res = await fetch(`${url}/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      return Job.parse(await res.json());
    },
    /** Scenario × releases: one job per release. */
    async requestReleases(body: object) {
      const res = await fetch(`${url}/v1/jobs/releases`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBe(201);
      return JobList.parse(await res.json()).items;
    },
    async cancel(id: string) {
      const res = await fetch(`${url}/v1/jobs/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${operator}` },
      });
      expect(res.status).toBe(200);
      return Job.parse(await res.json());
    },
    // As the operator: runner names are not public.
    async job(id: string) {
      const res = await fetch(`${url}/v1/jobs/${id}`, { headers: asOperator });
      const body: unknown = await res.json();
      if (!res.ok) throw new Error(`GET /v1/jobs/${id} answered ${res.status}: ${JSON.stringify(body)}`);
      return Job.parse(body);
    },
    async jobs() {
      return JobList.parse(await (await fetch(`${url}/v1/jobs?limit=1000`, { headers: asOperator })).json()).items;
    },
    async runs() {
      return RunList.parse(await (await fetch(`${url}/v1/runs?limit=500`)).json()).items;
    },
  };
  return api;
}

type Agent = { child: ChildProcess; log: () => string; exited: Promise<number | null> };

function startAgent(
  api: { url: string; tokens: Record<string, string> },
  name: string,
  labels: string[] = [],
  home = path.join(tmp, `agent-${name}-${Math.random().toString(36).slice(2, 6)}`),
  /** How the agent picks its server (default: the local PostgreSQL) and anything more. */
  serverArgs = ['--target', TARGET],
  env: Record<string, string> = {},
): Agent & { home: string } {
  const child = spawn(
    process.execPath,
    [
      ...CLI_ARGS,
      'agent',
      '--api',
      api.url,
      '--token',
      api.tokens[name]!,
      ...serverArgs,
      '--storage',
      'ssd',
      ...(labels.length ? ['--labels', labels.join(',')] : []),
    ],
    {
      cwd: ROOT,
      env: childEnv({
        TUNELAB_RUNS_DIR: path.join(home, 'runs'),
        TUNELAB_SPOOL_DIR: path.join(home, 'spool'),
        TUNELAB_SUBMIT_BACKOFF_MS: '200',
        TUNELAB_SUBMIT_RETRIES: '2',
        TUNELAB_LEDGER_DIR: path.join(home, 'in-flight'),
        ...env,
      }),
    },
  );
  let log = '';
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  cleanups.push(async () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  return { child, log: () => log, exited, home };
}

async function stopAgent(a: Agent) {
  if (a.child.exitCode !== null || a.child.signalCode !== null) return a.child.exitCode;
  a.child.kill('SIGTERM');
  return a.exited;
}

const tiny = { scenario: SCENARIO, params: { rows: 1000 }, repetitions: 1 };

describe.each(['postgresql', 'pglite'] as const)('the fleet on %s', (backend) => {
  it('N agents × M jobs: every job completed exactly once; a SIGKILLed agent’s job is re-leased; an API restart mid-job; a cancelled active job', async () => {
    const api = await fleetOn(backend, ['a1', 'a2', 'a3', 'victim', 'rescuer', 'slow']);

    // ── 3 agents × 6 jobs: three for any agent (they race for them), one for each agent by name ──
    const jobs: Job[] = [];
    for (let i = 0; i < 3; i++) jobs.push(await api.request(tiny));
    for (const n of ['a1', 'a2', 'a3']) jobs.push(await api.request({ ...tiny, for: { runner: n } }));
    const agents = ['a1', 'a2', 'a3'].map((n) => startAgent(api, n));
    const done = await until('6 completed jobs', async () => {
      const all = await Promise.all(jobs.map((j) => api.job(j.id)));
      return all.every((j) => j.state === 'completed') && all;
    });
    for (const a of agents) expect(await stopAgent(a), a.log()).toBe(0);
    const runIds = done.map((j) => j.runId);
    expect(new Set(runIds).size).toBe(6);
    expect((await api.runs()).map((r) => r.id).sort()).toEqual([...runIds].sort());
    // Every agent ran at least its own job (which agent wins a race is not asserted: chance).
    expect(new Set(done.map((j) => j.runner))).toEqual(new Set(['a1', 'a2', 'a3']));

    // ── kill -9 of an agent mid-job: re-leased after the lease, completed once by another ──
    // Small: the victim is killed as soon as its run's databases exist (polled), and the rescuer runs
    // the job to its end, so its size only costs time.
    const leased = await api.request({ ...tiny, params: { rows: 20_000 }, for: { labels: ['lease'] } });
    const victim = startAgent(api, 'victim', ['lease']);
    await until('the victim running the job', async () => (await api.job(leased.id)).state === 'active');
    const victimRun = await until(
      'the victim starting its run',
      async () => /run ([0-9a-f-]{36})/.exec(victim.log())?.[1],
    );
    const prefix = `tunelab_${victimRun.replaceAll('-', '').slice(0, 8)}_`;
    // Killed once its run's databases exist (the fixture is being built), so that the restarted
    // agent has something to drop: a condition, not a fixed wait.
    const databasesOf = async () => {
      const c = new pg.Client({ connectionString: TARGET });
      await c.connect();
      try {
        const r = await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [
          prefix,
        ]);
        return r.rows.map((x) => x.datname);
      } finally {
        await c.end();
      }
    };
    await until('the victim’s run databases', async () => (await databasesOf()).length > 0);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const rescuer = startAgent(api, 'rescuer', ['lease']);
    const rescued = await until('the job completed by the rescuer', async () => {
      const j = await api.job(leased.id);
      return j.state === 'completed' && j;
    });
    expect(rescued.runner).toBe('rescuer');
    expect(rescued.attempts).toBe(2);
    expect(await stopAgent(rescuer), rescuer.log()).toBe(0);
    // The killed agent's run left its databases; the next agent started there drops them.
    expect(await databasesOf()).not.toEqual([]);
    const restarted = startAgent(api, 'victim', ['nothing-here'], victim.home);
    await until('the restarted agent cleaning up', async () =>
      restarted.log().includes(`agent: earlier run ${victimRun} (`),
    );
    expect(await databasesOf()).toEqual([]);
    expect(await stopAgent(restarted), restarted.log()).toBe(0);

    // ── the API killed and restarted while an agent runs a job ──
    const survivor = await api.request({ ...tiny, params: { rows: 100_000 }, for: { labels: ['restart'] } });
    const steady = startAgent(api, 'slow', ['restart']);
    await until('the job active', async () => (await api.job(survivor.id)).state === 'active');
    await api.kill();
    await sleep(1500);
    await api.start();
    const survived = await until('the job completed after the restart', async () => {
      const j = await api.job(survivor.id);
      return j.state === 'completed' && j;
    });
    expect(survived.runner).toBe('slow');

    // ── an active job cancelled: the agent stops at its next heartbeat and drops its databases ──
    const doomed = await api.request({ ...tiny, params: { rows: 3_000_000 }, for: { labels: ['restart'] } });
    await until('the doomed job active', async () => (await api.job(doomed.id)).state === 'active');
    expect((await api.cancel(doomed.id)).state).toBe('cancelled');
    await until(
      'the agent stopping',
      async () => steady.log().includes(`job ${doomed.id}: stopped (the job is cancelled)`),
      90_000,
    );
    expect((await api.job(doomed.id)).runId).toBeNull();
    expect(await stopAgent(steady), steady.log()).toBe(0);

    // Exactly one stored run per completed job, nothing else.
    const all = await api.jobs();
    const completed = all.filter((j) => j.state === 'completed');
    expect(completed).toHaveLength(8);
    expect((await api.runs()).map((r) => r.id).sort()).toEqual(completed.map((j) => j.runId).sort());
    await api.kill();
  });
});

/** The databases on the test PostgreSQL whose names start with `prefix` (read directly, not through a proxy). */
async function databasesWith(prefix: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: TARGET });
  await c.connect();
  try {
    const r = await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [
      prefix,
    ]);
    return r.rows.map((row) => row.datname);
  } finally {
    await c.end();
  }
}

describe('an agent whose run lost its server', () => {
  it('reports the job failed naming what was left, and removes it before its next job once the server is back', async () => {
    const u = new URL(TARGET);
    const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 5432) });
    cleanups.push(() => proxy.close());
    const api = await fleetOn('postgresql', ['blip'], 'tl_agentblip_e2e');
    // Small: the proxy is cut as soon as the run's databases exist (polled); the retry runs it to its end.
    const job = await api.request({ ...tiny, params: { rows: 20_000 }, for: { labels: ['blip'] } });
    const agent = startAgent(api, 'blip', ['blip'], undefined, ['--target', proxy.url(TARGET)], {
      TUNELAB_CLEANUP_RETRY_S: '2',
    });
    const started = await until('the run starting', async () =>
      new RegExp(`job ${job.id}: run ([0-9a-f-]{36})`).exec(agent.log()),
    );
    const runId = started[1]!;
    const prefix = `tunelab_${runId.replaceAll('-', '').slice(0, 8)}_`;
    await until('the run’s databases created', async () => (await databasesWith(prefix)).length > 0);
    await proxy.cut();
    await until('the job reported failed', async () => agent.log().includes(`job ${job.id}: failed: `), 180_000);
    expect(agent.log()).toMatch(/the server could not be reached to clean up/);
    const left = await databasesWith(prefix);
    expect(left.length, agent.log()).toBeGreaterThan(0);
    await proxy.restore();
    // The failed job is retried after its backoff; the agent that takes it first removes what its
    // own earlier run left, without waiting for a restart.
    await until(
      'the leftovers removed before the next job',
      async () => new RegExp(`job ${job.id}: earlier run ${runId} \\(`).test(agent.log()),
      60_000,
    );
    expect(await databasesWith(prefix)).toEqual([]);
    const done = await until('the retried job completed', async () => {
      const j = await api.job(job.id);
      return j.state === 'completed' && j;
    });
    expect(done.attempts).toBe(2);
    expect(await stopAgent(agent), agent.log()).toBe(0);
    await api.kill();
  });
});

describe('an agent with --server', () => {
  it('announces PostgreSQL 17, takes the job naming server: 17 (not one naming 16), runs it on a managed PostgreSQL 17', async () => {
    const api = await fleetOn('postgresql', ['srv'], 'tl_agentsrv_e2e');
    const other = await api.request({ ...tiny, server: 16 });
    const job = await api.request({ ...tiny, server: 17 });
    const agent = startAgent(api, 'srv', [], undefined, ['--server', '17', '--once', '--wait', '60'], {
      // Shared between test runs (see apps/runner/src/test-support/servers.ts): no download on re-runs.
      TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR,
    });
    expect(await agent.exited, agent.log()).toBe(0);
    expect(agent.log()).toMatch(/agent: postgresql 17 on a throwaway server per job/);
    const done = await api.job(job.id);
    expect(done.state, agent.log()).toBe('completed');
    const runs = await api.runs();
    expect(runs.map((r) => r.id)).toEqual([done.runId]);
    expect(runs[0]!.database).toMatchObject({ engine: 'postgresql', major: 17 });
    expect((await api.job(other.id)).state).toBe('queued');
  });
});

describe('jobs by release', () => {
  it('an agent with --server 17 runs the job naming 17.0 on 17.0 and fails the one naming 17.99 with the registry’s releases; coverage shows the matrix', async () => {
    // The default retry limit: a release the registry lacks fails at once all the same (the agent
    // reports it final: each retry would fail the same way).
    const api = await fleetOn('postgresql', ['rel'], 'tl_fleet_rel_e2e');
    const [on170, on1799] = await api.requestReleases({
      ...tiny,
      scenario: 'vacuum-full-rewrite',
      releases: ['17.0', '17.99'],
    });
    const agent = startAgent(api, 'rel', [], undefined, ['--server', '17'], { TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR });
    const finished = (j: Job) => j.state === 'completed' || j.state === 'failed';
    const done = await until(
      'both jobs finished',
      async () => {
        const jobs = await Promise.all([api.job(on170!.id), api.job(on1799!.id)]);
        return jobs.every(finished) && jobs;
      },
      600_000,
    );
    expect(await stopAgent(agent), agent.log()).toBe(0);
    expect(agent.log()).toMatch(/agent: postgresql 17 on a throwaway server per job \(any release of it a job names\)/);
    expect(done[0], agent.log()).toMatchObject({ state: 'completed', release: '17.0' });
    expect(done[1]).toMatchObject({ state: 'failed', release: '17.99', attempts: 1 });
    expect(agent.log()).toMatch(
      /failed for good \(retrying cannot help\): the registry has no build of PostgreSQL 17\.99/,
    );
    expect(done[1].error).toMatch(/the registry has no build of PostgreSQL 17\.99 .*its releases of 17 are 17\.0, /);
    const matrix = Coverage.parse(
      await (await fetch(`${api.url}/v1/coverage?scenario=vacuum-full-rewrite`)).json(),
    ).releaseMatrix!;
    expect(matrix.cells.map((c) => [c.release, c.status, c.runs])).toEqual([
      ['17.0', 'measured', 1],
      ['17.99', 'failed', 0],
    ]);
    expect(matrix.cells[1]!.lastError).toMatch(/no build of PostgreSQL 17\.99/);
    const runs = await api.runs();
    expect(runs.map((r) => r.id)).toEqual([done[0].runId]);
    await api.kill();
  });
});
