import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { buildApp, type App } from '../src/index.ts';
import { BACKENDS, clone, FIXTURE, startApi } from './helpers.ts';

describe.each(BACKENDS)('fleet job routes (%s)', (backend) => {
  let app: App;
  let db: ResultsDb;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let runner = '';
  let operator = '';
  beforeAll(async () => {
    database = backend === 'postgresql' ? await createTestDatabase('tl_fleet_api') : undefined;
    db = await openResultsDb(database?.url, { dataDir: 'memory://' });
    await db.migrate();
    app = await buildApp({ resultsDb: db, migrate: false, fleet: { leaseSeconds: 10, pollMs: 100 } });
    await app.ready();
    runner = (await db.createRunner('agent-1')).token;
    operator = (await db.createRunner('ops-1', { kind: 'operator' })).token;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await database?.drop();
  });

  const auth = (t: string) => ({ authorization: `Bearer ${t}` });
  const request = (body: unknown, token = operator) =>
    app.inject({ method: 'POST', url: '/v1/jobs', headers: auth(token), payload: body as object });
  const claimBody = { hardware: FIXTURE.hardware, engine: 'postgresql', server: 15, waitSeconds: 0 };

  it('refuses a runner token (403) and no token (401), storing nothing', async () => {
    const before = (await app.inject('/v1/jobs')).json().items.length;
    const asRunner = await request({ scenario: 'vacuum-index-cleanup' }, runner);
    expect(asRunner.statusCode).toBe(403);
    expect(asRunner.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(asRunner.json().detail).toMatch(/runner token cannot request/);
    const anonymous = await app.inject({ method: 'POST', url: '/v1/jobs', payload: { scenario: 'x' } });
    expect(anonymous.statusCode).toBe(401);
    expect((await app.inject('/v1/jobs')).json().items.length).toBe(before);
  });

  it.each([
    [{ scenario: 'no-such-scenario' }, '/scenario'],
    [{ scenario: 'vacuum-index-cleanup', params: { colour: 'red' } }, '/params/colour'],
    [{ scenario: 'vacuum-index-cleanup', params: { rows: 0 } }, '/params/rows'],
    [{ scenario: 'vacuum-index-cleanup', params: { rows: 'many' } }, '/params/rows'],
    [{ scenario: 'vacuum-index-cleanup', repetitions: 0 }, '/repetitions'],
    [{ scenario: 'vacuum-index-cleanup', for: { class: 'x', runner: 'y' } }, '/for'],
    [{ scenario: 'vacuum-index-cleanup', for: { labels: ['Bad Label'] } }, '/for'],
    [{ scenario: 'vacuum-index-cleanup', server: 'sixteen' }, '/server'],
    [{ scenario: 'vacuum-index-cleanup', colour: 1 }, ''],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const before = (await app.inject('/v1/jobs')).json().items.length;
    const res = await request(body);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const paths: string[] = res.json().errors.map((e: { path: string }) => e.path);
    expect(paths.some((p) => p.startsWith(field))).toBe(true);
    expect((await app.inject('/v1/jobs')).json().items.length).toBe(before);
  });

  it('queues, claims, heartbeats, completes with the run; lists by state; a second run for it is refused', async () => {
    const created = await request({ scenario: 'vacuum-index-cleanup', params: { rows: 200000 }, repetitions: 3 });
    expect(created.statusCode).toBe(201);
    const job = created.json();
    expect(job).toMatchObject({ state: 'queued', attempts: 0, runner: null, runId: null, error: null });
    expect((await app.inject(`/v1/jobs?state=queued`)).json().items.map((j: { id: string }) => j.id)).toContain(job.id);

    const claim = await app.inject({
      method: 'POST',
      url: '/v1/agent/claim',
      headers: auth(runner),
      payload: claimBody,
    });
    expect(claim.statusCode).toBe(200);
    expect(claim.json()).toMatchObject({ id: job.id, scenario: 'vacuum-index-cleanup', params: { rows: 200000 } });
    const attempt = claim.json().attempt;
    const again = await app.inject({
      method: 'POST',
      url: '/v1/agent/claim',
      headers: auth(runner),
      payload: claimBody,
    });
    expect(again.statusCode).toBe(204);
    // The runner's name is for an operator; the public view shows its public label (none here).
    expect((await app.inject(`/v1/jobs/${job.id}`)).json()).toMatchObject({ state: 'active', runner: null });
    expect((await app.inject({ url: `/v1/jobs/${job.id}`, headers: auth(operator) })).json()).toMatchObject({
      state: 'active',
      runner: 'agent-1',
      attempts: 1,
    });
    const beat = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${job.id}/heartbeat`,
      headers: auth(runner),
      payload: { attempt },
    });
    expect(beat.json()).toEqual({ state: 'active', stop: false });

    const submission = { ...clone(FIXTURE), job: job.id };
    const stored = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      headers: { ...auth(runner), 'idempotency-key': `job-run-${backend}` },
      payload: submission,
    });
    expect(stored.statusCode).toBe(201);
    const done = (await app.inject(`/v1/jobs/${job.id}`)).json();
    expect(done).toMatchObject({ state: 'completed', runId: stored.json().id });
    expect(done.finishedAt).not.toBeNull();
    const replay = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      headers: { ...auth(runner), 'idempotency-key': `job-run-${backend}` },
      payload: submission,
    });
    expect(replay.statusCode).toBe(200);
    const late = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      headers: { ...auth(runner), 'idempotency-key': `job-run-late-${backend}` },
      payload: submission,
    });
    expect(late.statusCode).toBe(409);
    expect(late.json().detail).toMatch(/already has its run/);
    const runs = (await app.inject('/v1/runs?limit=100'))
      .json()
      .items.filter((r: { id: string }) => r.id === done.runId);
    expect(runs).toHaveLength(1);
    const stop = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${job.id}/heartbeat`,
      headers: auth(runner),
      payload: { attempt },
    });
    expect(stop.json()).toEqual({ state: 'completed', stop: true });
    expect((await app.inject(`/v1/jobs?state=completed`)).json().items.map((j: { id: string }) => j.id)).toContain(
      job.id,
    );
  });

  it('a job is answered only by the agent holding it, with a run of what it asked for; nothing else is stored', async () => {
    const other = (await db.createRunner(`agent-2-${backend}`)).token;
    const runsNow = async () => (await app.inject('/v1/runs?limit=100')).json().items.length as number;
    const submit = (token: string, body: object, key: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/runs',
        headers: { ...auth(token), 'idempotency-key': key },
        payload: body,
      });
    const runsBefore = await runsNow();

    // Queued, never claimed: no run answers it.
    const never = (await request({ scenario: 'vacuum-index-cleanup', for: { runner: 'nobody' } })).json();
    const unclaimed = await submit(runner, { ...clone(FIXTURE), job: never.id }, `never-${backend}`);
    expect(unclaimed.statusCode).toBe(409);
    expect(unclaimed.json().detail).toMatch(/never claimed/);

    const job = (
      await request({ scenario: 'vacuum-index-cleanup', params: { rows: 200000 }, repetitions: 3, server: 15 })
    ).json();
    const claim = (
      await app.inject({ method: 'POST', url: '/v1/agent/claim', headers: auth(runner), payload: claimBody })
    ).json();
    expect(claim.id).toBe(job.id);

    // Another runner, even with the holder's Idempotency-Key: 409, nothing stored, the job still active.
    const stranger = await submit(other, { ...clone(FIXTURE), job: job.id }, `holder-key-${backend}`);
    expect(stranger.statusCode).toBe(409);
    expect(stranger.json().detail).toMatch(/held by another agent/);
    expect(stranger.json().detail).not.toMatch(/agent-1/);

    // The holder with a run of something else: 422 naming the field.
    const wrong: [string, (d: typeof FIXTURE) => void][] = [
      ['/scenario/key', (d) => (d.scenario.key = 'vacuum-full-rewrite')],
      ['/params/rows', (d) => (d.params.rows = 5)],
      ['/options/repetitions', (d) => (d.options.repetitions = 2)],
      ['/database/major', (d) => (d.database.major = 16)],
    ];
    for (const [field, change] of wrong) {
      const d = { ...clone(FIXTURE), job: job.id };
      change(d);
      const res = await submit(runner, d, `wrong-${field.replaceAll('/', '.')}-${backend}`);
      expect(res.statusCode, field).toBe(422);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual([field]);
    }
    expect(await runsNow()).toBe(runsBefore);
    expect((await app.inject(`/v1/jobs/${job.id}`)).json()).toMatchObject({ state: 'active', runId: null });

    // The holder's run of what was asked: stored, and the job completes with it.
    const right = await submit(runner, { ...clone(FIXTURE), job: job.id }, `holder-key-${backend}`);
    expect(right.statusCode).toBe(201);
    expect((await app.inject(`/v1/jobs/${job.id}`)).json()).toMatchObject({
      state: 'completed',
      runId: right.json().id,
    });
    expect(await runsNow()).toBe(runsBefore + 1);

    // A cancelled job stays cancelled: its agent's run is refused.
    const cancelled = (await request({ scenario: 'vacuum-index-cleanup', params: { rows: 200000 } })).json();
    const c2 = (
      await app.inject({ method: 'POST', url: '/v1/agent/claim', headers: auth(runner), payload: claimBody })
    ).json();
    expect(c2.id).toBe(cancelled.id);
    await app.inject({ method: 'DELETE', url: `/v1/jobs/${cancelled.id}`, headers: auth(operator) });
    const afterCancel = await submit(runner, { ...clone(FIXTURE), job: cancelled.id }, `cancelled-${backend}`);
    expect(afterCancel.statusCode).toBe(409);
    expect(afterCancel.json().detail).toMatch(/is cancelled/);
    expect((await app.inject(`/v1/jobs/${cancelled.id}`)).json().state).toBe('cancelled');
    expect(await runsNow()).toBe(runsBefore + 1);
    await app.inject({ method: 'DELETE', url: `/v1/jobs/${never.id}`, headers: auth(operator) });
  });

  it('cancels a queued and an active job; the agent is told to stop; an agent failure keeps its sentence', async () => {
    const queued = (await request({ scenario: 'vacuum-index-cleanup', for: { runner: 'nobody' } })).json();
    const del = await app.inject({ method: 'DELETE', url: `/v1/jobs/${queued.id}`, headers: auth(operator) });
    expect(del.json().state).toBe('cancelled');
    const byRunner = await app.inject({ method: 'DELETE', url: `/v1/jobs/${queued.id}`, headers: auth(runner) });
    expect(byRunner.statusCode).toBe(403);

    const active = (await request({ scenario: 'vacuum-index-cleanup', for: { runner: 'agent-1' } })).json();
    const claim = (
      await app.inject({ method: 'POST', url: '/v1/agent/claim', headers: auth(runner), payload: claimBody })
    ).json();
    expect(claim.id).toBe(active.id);
    await app.inject({ method: 'DELETE', url: `/v1/jobs/${active.id}`, headers: auth(operator) });
    const beat = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${active.id}/heartbeat`,
      headers: auth(runner),
      payload: { attempt: claim.attempt },
    });
    expect(beat.json()).toEqual({ state: 'cancelled', stop: true });

    const failing = (await request({ scenario: 'vacuum-index-cleanup', for: { runner: 'agent-1' } })).json();
    const c2 = (
      await app.inject({ method: 'POST', url: '/v1/agent/claim', headers: auth(runner), payload: claimBody })
    ).json();
    expect(c2.id).toBe(failing.id);
    const fail = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${failing.id}/fail`,
      headers: auth(runner),
      payload: { attempt: c2.attempt, error: 'the target server refused the connection' },
    });
    expect(fail.statusCode).toBe(200);
    expect(fail.json()).toMatchObject({ state: 'queued', error: 'the target server refused the connection' });
    await app.inject({ method: 'DELETE', url: `/v1/jobs/${failing.id}`, headers: auth(operator) });

    // A refusal retrying cannot change (`final`): failed on this attempt, not queued again.
    const refused = (await request({ scenario: 'vacuum-index-cleanup', for: { runner: 'agent-1' } })).json();
    const c3 = (
      await app.inject({ method: 'POST', url: '/v1/agent/claim', headers: auth(runner), payload: claimBody })
    ).json();
    expect(c3.id).toBe(refused.id);
    const badFinal = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${refused.id}/fail`,
      headers: auth(runner),
      payload: { attempt: c3.attempt, error: 'x', final: 'yes' },
    });
    expect(badFinal.statusCode).toBe(400);
    expect(badFinal.body).toMatch(/final/);
    const final = await app.inject({
      method: 'POST',
      url: `/v1/jobs/${refused.id}/fail`,
      headers: auth(runner),
      payload: {
        attempt: c3.attempt,
        error: 'the registry has no build of PostgreSQL 17.99 for this platform',
        final: true,
      },
    });
    expect(final.statusCode).toBe(200);
    expect(final.json()).toMatchObject({ state: 'failed', attempts: 1 });
  });

  it('coverage counts runs and open jobs per scenario, class and server major', async () => {
    await request({ scenario: 'vacuum-full-rewrite', for: { class: '64 cores / 512 GB / NVME' }, server: 17 });
    const res = await app.inject('/v1/coverage');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.cells).toContainEqual(
      expect.objectContaining({
        scenario: 'vacuum-full-rewrite',
        hardwareClass: '64 cores / 512 GB / NVME',
        server: 17,
        runs: 0,
        openJobs: 1,
      }),
    );
    expect(body.cells.some((c: { runs: number }) => c.runs >= 1)).toBe(true);
    const one = (await app.inject('/v1/coverage?scenario=vacuum-full-rewrite')).json();
    expect(one.scenarios).toEqual(['vacuum-full-rewrite']);
  });
});

describe('what the fleet shows to anyone, and operator tokens throttled', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let operator = '';
  beforeAll(async () => {
    api = await startApi({ authFailuresPerMinute: 5, fleet: { pollMs: 100 } }, 'tl_fleet_public');
    operator = (await api.db.createRunner('ops-public', { kind: 'operator' })).token;
  });
  afterAll(async () => api?.close());
  const call = (method: string, path: string, token?: string, body?: unknown) =>
    fetch(`${api.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  it('shows public labels and a failure sentence with its URL, host and password masked; the operator sees them as sent', async () => {
    const named = await api.db.createRunner('agent-internal-7', { publicLabel: 'Lab box A' });
    const job = (await (await call('POST', '/v1/jobs', operator, { scenario: 'vacuum-index-cleanup' })).json()) as {
      id: string;
    };
    const claim = (await (
      await call('POST', '/v1/agent/claim', named.token, {
        hardware: FIXTURE.hardware,
        engine: 'postgresql',
        server: 15,
        waitSeconds: 0,
      })
    ).json()) as { id: string; attempt: number };
    expect(claim.id).toBe(job.id);
    const sentence =
      'cannot connect to postgres://bench:hunter2@db7.corp.internal:5432/tl (connect ECONNREFUSED 10.1.2.3:5432)';
    expect(
      (await call('POST', `/v1/jobs/${job.id}/fail`, named.token, { attempt: claim.attempt, error: sentence })).status,
    ).toBe(200);

    for (const path of [`/v1/jobs/${job.id}`, '/v1/jobs?limit=10']) {
      const text = await (await call('GET', path)).text();
      expect(text, path).not.toMatch(/agent-internal-7|hunter2|db7|10\.1\.2\.3/);
    }
    const shown = (await (await call('GET', `/v1/jobs/${job.id}`)).json()) as { runner: string; error: string };
    expect(shown.runner).toBe('Lab box A');
    expect(shown.error).toBe('cannot connect to postgres://*** (connect ECONNREFUSED ***)');
    const asOperator = (await (await call('GET', `/v1/jobs/${job.id}`, operator)).json()) as {
      runner: string;
      error: string;
    };
    expect(asOperator).toMatchObject({ runner: 'agent-internal-7', error: sentence });
    // A runner token does not open the private view.
    expect((await call('GET', `/v1/jobs/${job.id}`, named.token)).status).toBe(403);
    await call('DELETE', `/v1/jobs/${job.id}`, operator);
  });

  it('counts wrong operator tokens: past the limit the address gets 429, the right token too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await call('POST', '/v1/jobs', `tlo_${'x'.repeat(40)}${i}`, { scenario: 'vacuum-index-cleanup' });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const right = await call('POST', '/v1/jobs', operator, { scenario: 'vacuum-index-cleanup' });
    expect(right.status).toBe(429);
    expect(((await right.json()) as { detail: string }).detail).toMatch(/failed authentications/);
    const jobs = (await (await call('GET', '/v1/jobs?limit=100')).json()) as { items: unknown[] };
    expect(jobs.items).toHaveLength(1);
  });
});

describe('a job no agent can take is refused: the server major', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let operator = '';
  beforeAll(async () => {
    api = await startApi({ fleet: { pollMs: 100 } }, 'tl_h2_server');
    operator = (await api.db.createRunner('ops-server', { kind: 'operator' })).token;
  });
  afterAll(async () => api?.close());
  const request = (body: unknown) =>
    fetch(`${api.url}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const jobCount = async () =>
    ((await (await fetch(`${api.url}/v1/jobs`)).json()) as { items: unknown[] }).items.length;

  it.each([13, 19, 99])(
    'PostgreSQL scenario, server %i: 400 naming /server and the majors accepted',
    async (server) => {
      const before = await jobCount();
      const res = await request({ scenario: 'vacuum-index-cleanup', server });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = (await res.json()) as { detail: string; errors: { path: string; message: string }[] };
      expect(body.errors.map((e) => e.path)).toEqual(['/server']);
      expect(body.detail).toContain(`server ${server} is not a PostgreSQL major the fleet runs`);
      expect(body.detail).toContain('14, 15, 16, 17, 18');
      expect(await jobCount()).toBe(before);
    },
  );

  it('a managed-PostgreSQL scenario (target) follows the same rule', async () => {
    expect((await request({ scenario: 'recovery-init-sync', server: 13 })).status).toBe(400);
    expect((await request({ scenario: 'recovery-init-sync', server: 18 })).status).toBe(201);
  });

  it('a MariaDB/MySQL scenario names no server: 400 naming /server and why', async () => {
    const before = await jobCount();
    const res = await request({ scenario: 'innodb-compression-insert', server: 17 });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string; errors: { path: string }[] };
    expect(body.errors.map((e) => e.path)).toEqual(['/server']);
    expect(body.detail).toMatch(/runs on mariadb, mysql, whose majors the fleet does not know: leave server out/);
    expect(await jobCount()).toBe(before);
    expect((await request({ scenario: 'innodb-compression-insert' })).status).toBe(201);
  });

  it('each supported major is accepted', async () => {
    for (const server of [14, 15, 16, 17, 18])
      expect((await request({ scenario: 'vacuum-index-cleanup', server })).status, String(server)).toBe(201);
  });
});
