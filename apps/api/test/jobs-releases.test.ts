/**
 * Scenario × releases through the API on PostgreSQL, over HTTP: `POST /v1/jobs/releases` queues
 * one job per release or, when any release is refused, none (400 problem+json naming
 * `/releases/N`); an agent claims a release's job only when its target runs that release or it
 * installs any release of its major; a run on another release does not answer the job (422 naming
 * `/database/version`), one on the release does; `/v1/coverage` shows the release matrix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimedJob, Coverage, JobList } from '@tunelab/contracts';
import { clone, FIXTURE, post, startApi } from './helpers.ts';

describe('jobs by release', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let operator = '';
  let runner = '';
  beforeAll(async () => {
    api = await startApi({ fleet: { leaseSeconds: 10, pollMs: 100 } }, 'tl_fleet_api_rel');
    operator = (await api.db.createRunner('ops-rel', { kind: 'operator' })).token;
    runner = (await api.db.createRunner('agent-rel')).token;
  }, 60_000);
  afterAll(async () => api?.close());

  const call = (method: string, route: string, token: string | null, body?: unknown) =>
    fetch(`${api.url}${route}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const jobCount = async () =>
    JobList.parse(await (await call('GET', '/v1/jobs?limit=1000', null)).json()).items.length;
  const claim = (over: object) =>
    call('POST', '/v1/agent/claim', runner, {
      hardware: FIXTURE.hardware,
      engine: 'postgresql',
      server: 17,
      waitSeconds: 0,
      ...over,
    });

  it.each([
    [{ releases: ['16.4', '13.4'] }, '/releases/1', /14, 15, 16, 17, 18/],
    [{ releases: ['17.x'] }, '/releases/0', /MAJOR\.MINOR/],
    [{ releases: ['17.4', '17.4'] }, '/releases', /twice/],
    [{ releases: [] }, '/releases', /.+/],
    [{ releases: ['17.4'], server: 17 }, '/server', /unknown key/],
    [{ releases: ['16.4'], params: { rows: 0 } }, '/params/rows', /.+/],
  ])('answers 400 problem+json naming the field for %j, queueing nothing', async (over, field, detail) => {
    const before = await jobCount();
    const res = await call('POST', '/v1/jobs/releases', operator, { scenario: 'vacuum-index-cleanup', ...over });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const body = (await res.json()) as { errors: { path: string; message: string }[] };
    const hit = body.errors.find((e) => e.path.startsWith(field));
    expect(hit, JSON.stringify(body)).toBeDefined();
    expect(hit!.message).toMatch(detail);
    expect(await jobCount()).toBe(before);
  });

  it('refuses a MariaDB scenario’s release at its index, and a runner token (403)', async () => {
    const mariadb = await call('POST', '/v1/jobs/releases', operator, {
      scenario: 'innodb-compression-insert',
      releases: ['10.11'],
    });
    expect(mariadb.status).toBe(400);
    expect(((await mariadb.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('/releases/0');
    const asRunner = await call('POST', '/v1/jobs/releases', runner, {
      scenario: 'vacuum-index-cleanup',
      releases: ['17.4'],
    });
    expect(asRunner.status).toBe(403);
  });

  it('queues scenario × releases, routes each by release, takes only a run of that release, and shows the matrix', async () => {
    const res = await call('POST', '/v1/jobs/releases', operator, {
      scenario: 'vacuum-index-cleanup',
      releases: ['17.0', '17.6'],
    });
    expect(res.status).toBe(201);
    const { items } = JobList.parse(await res.json());
    expect(items.map((j) => [j.release, j.server, j.state])).toEqual([
      ['17.0', 17, 'queued'],
      ['17.6', 17, 'queued'],
    ]);
    // An agent whose target runs 17.5 gets nothing; one of an older runner, announcing no release, neither.
    expect((await claim({ release: '17.5' })).status).toBe(204);
    expect((await claim({})).status).toBe(204);
    // A managed agent of 17 (any release): one of the two jobs (queues have no order among them), with its release.
    const got = await claim({ anyRelease: true });
    expect(got.status).toBe(200);
    const job = ClaimedJob.parse(await got.json());
    const asked = items.find((j) => j.id === job.id)!;
    expect(job.release).toBe(asked.release);
    const minor = Number(asked.release!.split('.')[1]);
    const other = items.find((j) => j.id !== job.id)!.release!;

    const runOn = (minor: number) => {
      const doc = clone(FIXTURE);
      doc.job = job.id;
      doc.database = { ...doc.database, version: `PostgreSQL 17.${minor}`, major: 17, minor };
      return doc;
    };
    const wrong = await post(api.url, runner, runOn(4), { 'idempotency-key': 'rel-wrong' });
    expect(wrong.status).toBe(422);
    const problem = (await wrong.json()) as { errors: { path: string; message: string }[] };
    expect(problem.errors[0]).toEqual({
      path: '/database/version',
      message: `the job asks for release ${asked.release}, the run is on 17.4`,
    });
    const right = await post(api.url, runner, runOn(minor), { 'idempotency-key': 'rel-right' });
    expect(right.status, await right.clone().text()).toBe(201);

    const coverage = Coverage.parse(
      await (await call('GET', '/v1/coverage?scenario=vacuum-index-cleanup', null)).json(),
    );
    const matrix = coverage.releaseMatrix!;
    expect(matrix.releases).toEqual([
      { engine: 'postgresql', release: '17.0' },
      { engine: 'postgresql', release: '17.6' },
    ]);
    const cellOf = (release: string) => matrix.cells.find((c) => c.release === release)!;
    expect(cellOf(asked.release!)).toMatchObject({ status: 'measured', runs: 1, pendingJobs: 0 });
    expect(cellOf(asked.release!).hardwareClasses).toEqual(coverage.hardwareClasses);
    expect(cellOf(other)).toMatchObject({ status: 'pending', runs: 0, pendingJobs: 1 });
    expect(matrix.cells).toHaveLength(2);
  });
});
