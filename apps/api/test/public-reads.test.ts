import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, clone, post, startApi } from './helpers.ts';

type Api = Awaited<ReturnType<typeof startApi>>;

describe('expensive reads: cached per data version, with ETag and 304', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ readRateLimitPerMinute: 10_000 }, 'tl_owner');
  });
  afterAll(async () => api?.close());

  it('answers repeats from the cache, 304 for a matching If-None-Match, and a new answer after an ingest', async () => {
    const path = `${api.url}/v1/comparisons?scenario=${FIXTURE.scenario.key}`;
    const first = await fetch(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-z]+-[A-Za-z0-9_-]{22}"$/);
    const before = (await first.json()) as { groups: unknown[] };
    expect(before.groups).toHaveLength(0);

    const again = await fetch(path);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.json()).toEqual(before);
    const notModified = await fetch(path, { headers: { 'if-none-match': `W/"x", ${etag}` } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');

    // A stored run changes the data version: the same URL is computed afresh, with a new ETag.
    expect((await post(api.url, api.token, FIXTURE, { 'idempotency-key': 'cache-1' })).status).toBe(201);
    const after = await fetch(path, { headers: { 'if-none-match': etag! } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(((await after.json()) as { groups: unknown[] }).groups.length).toBeGreaterThan(0);
    // A replay stores nothing and keeps the version.
    const etag2 = after.headers.get('etag')!;
    expect((await post(api.url, api.token, FIXTURE, { 'idempotency-key': 'cache-1' })).status).toBe(200);
    expect((await fetch(path, { headers: { 'if-none-match': etag2 } })).status).toBe(304);
  });

  it('computes once for many concurrent identical reads, and every one gets the same answer', async () => {
    const path = `${api.url}/v1/findings?scenario=${FIXTURE.scenario.key}&limit=7`;
    const answers = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const r = await fetch(path);
        return { status: r.status, etag: r.headers.get('etag'), body: await r.text() };
      }),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.etag)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
  });

  it('does not cache errors: a bad query is answered 400 every time', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await fetch(`${api.url}/v1/comparisons?groupBy=nonsense`);
      expect(r.status).toBe(400);
      expect(r.headers.get('etag')).toBeNull();
    }
  });
});

describe('per-client rate limits', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ readRateLimitPerMinute: 3, authFailuresPerMinute: 5 }, 'tl_owner');
  });
  afterAll(async () => api?.close());

  it('answers 429 problem+json with Retry-After past the read limit on expensive reads only', async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 5; i++) {
      last = await fetch(`${api.url}/v1/hardware?limit=${i + 1}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await last!.json()).toMatchObject({ status: 429, detail: expect.stringMatching(/reads .* per minute/) });
    // Cheap reads are not limited by it.
    for (let i = 0; i < 5; i++) expect((await fetch(`${api.url}/v1/runs?limit=1`)).status).toBe(200);
  });

  it('answers 429 to failed authentications past the limit: 40 bad tokens with the limit at 5', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await post(api.url, `tlr_${'x'.repeat(43)}${i}`, FIXTURE, { 'idempotency-key': `bad-${i}` });
      statuses.push(r.status);
      await r.arrayBuffer();
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual(new Array(35).fill(429));
    // The address is blocked whatever it sends next, so a guess that happens to be right is not told apart.
    const right = await post(api.url, api.token, clone(FIXTURE), { 'idempotency-key': 'good-after-bad' });
    expect(right.status).toBe(429);
    expect(await right.json()).toMatchObject({ detail: expect.stringMatching(/failed authentications/) });
  });
});

describe('GET and POST /v1/similar are limited like the other expensive reads, and the GET is cached', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ readRateLimitPerMinute: 3 }, 'tl_owner');
  });
  afterAll(async () => api?.close());

  it('700 requests no longer pass: the fourth read from one address within the minute is a 429', async () => {
    const probe = readFileSync(new URL('../../../tests/fixtures/probe-json.json', import.meta.url), 'utf8');
    const similar = (query: string) => fetch(`${api.url}/v1/similar?${query}`);
    const first = await similar('cores=2&memoryGb=24&storage=ssd');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    // The same read again, with its ETag: answered from the cache, no body.
    const again = await fetch(`${api.url}/v1/similar?cores=2&memoryGb=24&storage=ssd`, {
      headers: { 'if-none-match': etag! },
    });
    expect(again.status).toBe(304);
    const posted = await fetch(`${api.url}/v1/similar`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: probe,
    });
    expect(posted.status).toBe(200);
    const over = await fetch(`${api.url}/v1/similar`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: probe,
    });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await over.json()).toMatchObject({ status: 429, detail: expect.stringMatching(/similar hardware/) });
    expect((await similar('cores=4&memoryGb=24&storage=ssd')).status).toBe(429);
  });
});

describe('security headers and runner names', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({}, 'tl_owner');
  });
  afterAll(async () => api?.close());

  it('serves /docs with a CSP (scripts from itself only, frame-ancestors none) from helmet and swagger-ui', async () => {
    const res = await fetch(`${api.url}/docs/static/index.html`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    // The page works under it: every script it loads is a file of its own.
    expect(await res.text()).not.toMatch(/<script>(?!<\/script>)/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const json = await fetch(`${api.url}/v1/runs`);
    expect(json.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  });

  it('never publishes a runner name; a public label the operator set is shown instead', async () => {
    const name = 'db-host-17.corp.internal';
    const { token } = await api.db.createRunner(name);
    const res = await post(api.url, token, FIXTURE, { 'idempotency-key': 'label-1' });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const bodies = async () => [
      await (await fetch(`${api.url}/v1/runs?limit=100`)).text(),
      await (await fetch(`${api.url}/v1/runs/${id}`)).text(),
    ];
    for (const body of await bodies()) expect(body).not.toContain('corp.internal');
    expect(((await (await fetch(`${api.url}/v1/runs/${id}`)).json()) as { runner: unknown }).runner).toBeNull();

    expect(await api.db.setPublicLabel(name, 'Lab box (NVMe)')).toBe(true);
    for (const body of await bodies()) {
      expect(body).toContain('"runner":"Lab box (NVMe)"');
      expect(body).not.toContain('corp.internal');
    }
    await expect(api.db.setPublicLabel(name, '<script>')).rejects.toThrow(/public label "<script>" must be/);
  });
});
