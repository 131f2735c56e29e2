import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clone, FIXTURE, post, snapshot, startApi } from './helpers.ts';
import { prismaOf } from '@tunelab/results-db/testing';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api?.close());

describe('POST /v1/runs then GET', () => {
  it('round-trips a submission and reuses the hardware profile on the second run from the same machine', async () => {
    const res = await post(api.url, api.token, FIXTURE, { 'idempotency-key': 'roundtrip-1' });
    expect(res.status).toBe(201);
    const accepted = await res.json();
    expect(res.headers.get('location')).toBe(`/v1/runs/${accepted.id}`);
    expect(accepted).toMatchObject({
      status: 'stored',
      samples: FIXTURE.samples.length,
      timeSeriesPoints: FIXTURE.timeSeries.length,
    });

    const got = await (await fetch(`${api.url}/v1/runs/${accepted.id}`)).json();
    const key = (s: { variant: string; repetition: number; metric: string }) =>
      `${s.variant}|${s.repetition}|${s.metric}`;
    const sorted = (xs: typeof FIXTURE.samples) => [...xs].sort((a, b) => key(a).localeCompare(key(b)));
    expect(sorted(got.samples)).toEqual(sorted(FIXTURE.samples));
    expect(got.timeSeries).toEqual(FIXTURE.timeSeries);
    expect(got.notes).toEqual(FIXTURE.notes);
    expect(got.hardwareSpec).toEqual(FIXTURE.hardware);
    expect(got.databaseEnvironment.settings).toEqual(FIXTURE.database.settings);

    const second = clone(FIXTURE);
    second.startedAt = '2026-11-22T05:00:00.000Z';
    second.finishedAt = '2026-11-22T05:01:00.000Z';
    second.hardware.cpuSpeedGhz = 3.5; // volatile: must not split the machine
    const res2 = await post(api.url, api.token, second, { 'idempotency-key': 'roundtrip-2' });
    expect(res2.status).toBe(201);
    const accepted2 = await res2.json();
    expect(accepted2.hardware.fingerprint).toBe(accepted.hardware.fingerprint);

    const hw = await (await fetch(`${api.url}/v1/hardware/${accepted.hardware.fingerprint}`)).json();
    expect(hw.runs).toBe(2);
    expect(hw.scenarios).toEqual([{ key: 'vacuum-index-cleanup', runs: 2 }]);
    const list = await (await fetch(`${api.url}/v1/hardware`)).json();
    expect(list.items.map((h: { fingerprint: string }) => h.fingerprint)).toEqual([accepted.hardware.fingerprint]);

    const runs = await (
      await fetch(`${api.url}/v1/runs?scenario=vacuum-index-cleanup&hardware=${accepted.hardware.fingerprint}&limit=1`)
    ).json();
    expect(runs.items).toHaveLength(1);
    expect(runs.items[0].id).toBe(accepted2.id); // newest first
    const next = await (
      await fetch(`${api.url}/v1/runs?scenario=vacuum-index-cleanup&limit=1&cursor=${runs.nextCursor}`)
    ).json();
    expect(next.items[0].id).toBe(accepted.id);
    expect(next.nextCursor).toBeNull();

    const byEngine = await (await fetch(`${api.url}/v1/runs?engine=mysql`)).json();
    expect(byEngine.items).toEqual([]);
    const byClass = await (
      await fetch(`${api.url}/v1/runs?class=${encodeURIComponent('2 cores / 24 GB / SSD')}`)
    ).json();
    expect(byClass.items.length).toBeGreaterThanOrEqual(2);

    const scenarios = await (await fetch(`${api.url}/v1/scenarios`)).json();
    expect(scenarios.items).toEqual([
      expect.objectContaining({
        key: 'vacuum-index-cleanup',
        runs: 2,
        versions: [expect.objectContaining({ version: FIXTURE.scenario.version, runs: 2 })],
      }),
    ]);
  });

  it('stores SQL and HTML in strings verbatim and returns them as JSON, never as markup', async () => {
    const evil = clone(FIXTURE);
    evil.hardware.cpuModel = `Robert'); DROP TABLE runs; --`;
    evil.notes = [
      { kind: 'vacuum-verbose', text: '<script>alert("x")</script><img src=x onerror=alert(1)> \u2028 ünïcødé' },
    ];
    evil.warnings = ["'; DELETE FROM samples WHERE '1'='1"];
    const res = await post(api.url, api.token, evil, { 'idempotency-key': 'evil-1' });
    expect(res.status).toBe(201);
    const { id } = await res.json();
    const got = await fetch(`${api.url}/v1/runs/${id}`);
    expect(got.headers.get('content-type')).toMatch(/^application\/json/);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    const body = await got.json();
    expect(body.hardwareSpec.cpuModel).toBe(evil.hardware.cpuModel);
    expect(body.notes).toEqual(evil.notes);
    expect(body.warnings).toEqual(evil.warnings);
    expect((await snapshot(api.db)).runs).toBeGreaterThan(0); // the tables are still there
  });

  it('answers 404 problem+json for unknown runs and hardware', async () => {
    for (const path of [
      '/v1/runs/00000000-0000-0000-0000-000000000000',
      '/v1/runs/not-a-uuid',
      `/v1/hardware/${'a'.repeat(64)}`,
      '/v1/nope',
    ]) {
      const res = await fetch(api.url + path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const p = await res.json();
      expect(p).toMatchObject({ status: 404, type: expect.stringContaining('not-found') });
      expect(p.requestId).toBe(res.headers.get('x-request-id'));
    }
  });

  it('rejects bad query parameters naming them', async () => {
    for (const [query, path] of [
      ['limit=0', 'querystring:/limit'],
      ['limit=abc', 'querystring:/limit'],
      ['engine=oracle', 'querystring:/engine'],
      ['hardware=xyz', 'querystring:/hardware'],
      ['cursor=%25%25', 'querystring:/cursor'],
      ['cursor=bm90LWEtY3Vyc29y', 'querystring:/cursor'],
      ['bogus=1', 'querystring:/bogus'],
    ] as const) {
      const res = await fetch(`${api.url}/v1/runs?${query}`);
      expect(res.status, query).toBe(400);
      const p = await res.json();
      expect(
        p.errors.map((e: { path: string }) => e.path),
        query,
      ).toContain(path);
    }
    const bad = await fetch(`${api.url}/v1/hardware/zzz`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].path).toBe('params:/fingerprint');
  });
});

describe('idempotency', () => {
  it('50 concurrent identical POSTs store exactly one run and all get its answer', async () => {
    const body = clone(FIXTURE);
    body.startedAt = '2026-11-22T06:00:00.000Z';
    body.finishedAt = '2026-11-22T06:05:00.000Z';
    const before = await snapshot(api.db);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => post(api.url, api.token, body, { 'idempotency-key': 'concurrent-50' })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    const after = await snapshot(api.db);
    expect(after.runs).toBe(before.runs + 1);
    expect(after.samples).toBe(before.samples + body.samples.length);
    expect(await prismaOf(api.db).run.count({ where: { idempotencyKey: { endsWith: ':concurrent-50' } } })).toBe(1);
  });

  it('a replay returns the original answer; the same key with another body is 409 and stores nothing', async () => {
    const body = clone(FIXTURE);
    body.startedAt = '2026-11-22T07:00:00.000Z';
    body.finishedAt = '2026-11-22T07:05:00.000Z';
    const first = await post(api.url, api.token, body, { 'idempotency-key': 'replay-1' });
    expect(first.status).toBe(201);
    const original = await first.json();
    // Key order in the JSON text does not matter: the body is compared canonically.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const replay = await post(api.url, api.token, reordered, { 'idempotency-key': 'replay-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(original);

    const before = await snapshot(api.db);
    const other = clone(body);
    other.samples[0].value += 1;
    const conflict = await post(api.url, api.token, other, { 'idempotency-key': 'replay-1' });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await conflict.json()).detail).toMatch(/replay-1/);
    expect(await snapshot(api.db)).toEqual(before);
  });

  it('without the header, the key is derived from the body, so an identical resubmission is not stored twice', async () => {
    const body = clone(FIXTURE);
    body.startedAt = '2026-11-22T08:00:00.000Z';
    body.finishedAt = '2026-11-22T08:05:00.000Z';
    const a = await post(api.url, api.token, body);
    const b = await post(api.url, api.token, body);
    expect([a.status, b.status]).toEqual([201, 200]);
    expect((await a.json()).id).toBe((await b.json()).id);
  });
});

describe('auth', () => {
  it('refuses missing, malformed, unknown and revoked tokens with 401 and stores nothing', async () => {
    const revoked = await api.db.createRunner('to-revoke');
    expect(await api.db.revokeRunner('to-revoke')).toBe(true);
    const body = clone(FIXTURE);
    body.startedAt = '2026-11-22T09:00:00.000Z';
    body.finishedAt = '2026-11-22T09:05:00.000Z';
    const before = await snapshot(api.db);
    const cases: [string, Record<string, string>][] = [
      ['missing', {}],
      ['not bearer', { authorization: `Token ${api.token}` }],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['garbage', { authorization: 'Bearer !!!' }],
      ['unknown', { authorization: `Bearer tlr_${'A'.repeat(43)}` }],
      ['truncated', { authorization: `Bearer ${api.token.slice(0, -1)}` }],
      ['revoked', { authorization: `Bearer ${revoked.token}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await post(api.url, null, body, { 'idempotency-key': `auth-${name.replace(' ', '-')}`, ...headers });
      expect(res.status, name).toBe(401);
      expect(res.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
      const p = await res.json();
      expect(p).toMatchObject({ status: 401, type: expect.stringContaining('unauthorized') });
      expect(JSON.stringify(p)).not.toContain(revoked.token);
    }
    expect(await snapshot(api.db)).toEqual(before);
  });

  it('sees a revocation at once, also for a token it has already accepted (and remembered)', async () => {
    const runner = await api.db.createRunner('revoked-later');
    const body = clone(FIXTURE);
    body.startedAt = '2026-11-22T09:10:00.000Z';
    body.finishedAt = '2026-11-22T09:15:00.000Z';
    const first = await post(api.url, runner.token, body, { 'idempotency-key': 'revoked-later-1' });
    expect(first.status).toBe(201);
    expect(await api.db.revokeRunner('revoked-later')).toBe(true);
    const before = await snapshot(api.db);
    for (const key of ['revoked-later-2', 'revoked-later-1', 'revoked-later-3']) {
      const res = await post(api.url, runner.token, body, { 'idempotency-key': key });
      expect(res.status, key).toBe(401);
      expect(res.headers.get('www-authenticate'), key).toBe('Bearer error="invalid_token"');
      expect(await res.json()).toMatchObject({ status: 401, type: expect.stringContaining('unauthorized') });
    }
    expect(await snapshot(api.db)).toEqual(before);
  });

  it('stores only a hash of the token', async () => {
    const r = await api.db.createRunner('hash-only');
    const row = await prismaOf(api.db).runner.findUniqueOrThrow({ where: { name: 'hash-only' } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(r.token);
  });

  it('refuses runners older than the minimum version with a clear message', async () => {
    const res = await post(api.url, api.token, FIXTURE, {
      'user-agent': 'tunelab-runner/0.0.9',
      'idempotency-key': 'old-runner',
    });
    expect(res.status).toBe(426);
    expect((await res.json()).detail).toMatch(/0\.0\.9 is older than the minimum 0\.1\.0/);
    const ok = await post(api.url, api.token, FIXTURE, {
      'user-agent': 'tunelab-runner/0.1.0',
      'idempotency-key': 'min-version-ok',
    });
    expect(ok.status).toBe(201);
  });
});
