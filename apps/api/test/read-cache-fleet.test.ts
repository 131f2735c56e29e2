import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, clone, startApi } from './helpers.ts';

type Api = Awaited<ReturnType<typeof startApi>>;

const claimBody = { hardware: FIXTURE.hardware, engine: 'postgresql', server: 15 };

/** A request on a real socket that the test cuts (`abort()`) as a departed client would. */
function openRequest(url: string, path: string, token: string, body: unknown) {
  const text = JSON.stringify(body);
  const req = httpRequest(`${url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    },
  });
  const done = new Promise<number | 'cut'>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve('cut'));
  });
  req.end(text);
  return { abort: () => req.destroy(), done };
}

/** One raw HTTP/1.1 request (so the request target is exactly `target`), answered with its status line and headers. */
function rawGet(url: string, target: string, method = 'GET') {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; headers: string }>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const head = text.split('\r\n\r\n')[0] ?? '';
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), headers: head.toLowerCase() });
    });
  });
}

describe('agents and departed clients never hold reads back', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ fleet: { pollMs: 100 } }, 'tl_readhold');
  });
  afterAll(async () => api?.close());

  it('answers uncached reads while two agents wait in their claim long poll', async () => {
    // The real claim, counted while it waits (a barrier on what the server does, not a sleep).
    const claim = api.app.fleet.claim.bind(api.app.fleet);
    let waiting = 0;
    api.app.fleet.claim = async (...args) => {
      waiting++;
      try {
        return await claim(...args);
      } finally {
        waiting--;
      }
    };
    const claims = [0, 1].map(() => {
      const r = openRequest(api.url, '/v1/agent/claim', api.token, { ...claimBody, waitSeconds: 50 });
      let settled = false;
      void r.done.then(() => (settled = true));
      return { ...r, settled: () => settled };
    });
    await expect.poll(() => waiting, { timeout: 30_000 }).toBe(2);
    for (const path of ['/v1/findings?limit=3', '/v1/answers?scenario=vacuum-index-cleanup', '/v1/hardware?limit=2']) {
      const r = await fetch(`${api.url}${path}`);
      expect(r.status, path).toBe(200);
    }
    expect(api.app.writesHoldingReads()).toBe(0);
    // The reads were answered while both polls still waited.
    expect(claims.map((c) => c.settled())).toEqual([false, false]);
    // Cut, the polls stop waiting (well before their 50 s): no job is claimed for a departed agent.
    for (const c of claims) c.abort();
    await Promise.all(claims.map((c) => c.done));
    await expect.poll(() => waiting, { timeout: 25_000 }).toBe(0);
    api.app.fleet.claim = claim;
  });

  it('counts an ingest whose client went away off at once, and stores its run', async () => {
    const ingest = api.app.resultsDb.ingestRun.bind(api.app.resultsDb);
    let entered!: () => void;
    const inIngest = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The real ingest, entered only when the test lets it (a barrier): the client leaves meanwhile.
    api.app.resultsDb.ingestRun = async (input) => {
      entered();
      await held;
      return ingest(input);
    };
    try {
      const body = clone(FIXTURE);
      const r = openRequest(api.url, '/v1/runs', api.token, body);
      await inIngest;
      expect(api.app.writesHoldingReads()).toBe(1);
      r.abort();
      expect(await r.done).toBe('cut');
      await expect.poll(() => api.app.writesHoldingReads(), { timeout: 30_000 }).toBe(0);
      release();
      expect((await fetch(`${api.url}/v1/findings?limit=4`)).status).toBe(200);
      // Nothing measured is lost: the run of the departed client is stored.
      await expect
        .poll(
          async () =>
            ((await (await fetch(`${api.url}/v1/runs?limit=100`)).json()) as { items: unknown[] }).items.length,
          {
            timeout: 30_000,
          },
        )
        .toBeGreaterThan(0);
    } finally {
      release();
      api.app.resultsDb.ingestRun = ingest;
    }
  });
});

describe('the read limit holds for HEAD, absolute-form and encoded targets, coverage and jobs', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ readRateLimitPerMinute: 3 }, 'tl_readlimit');
  });
  afterAll(async () => api?.close());

  it('counts HEADs of distinct URLs and answers them from the cache GET fills', async () => {
    const get = await fetch(`${api.url}/v1/hardware?limit=1`);
    const head = await fetch(`${api.url}/v1/hardware?limit=1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(await head.text()).toBe('');
    const statuses = [];
    for (let i = 2; i < 5; i++)
      statuses.push((await fetch(`${api.url}/v1/hardware?limit=${i}`, { method: 'HEAD' })).status);
    expect(statuses).toEqual([200, 429, 429]);
  });

  it('counts an absolute-form target and a percent-encoded path as the reads they are', async () => {
    const other = await startApi({ readRateLimitPerMinute: 2 }, 'tl_readlimit2');
    try {
      const host = new URL(other.url).host;
      const first = await rawGet(other.url, `http://${host}/v1/answers?scenario=vacuum-full-rewrite`);
      expect(first.status).toBe(200);
      expect(first.headers).toMatch(/\netag: "/);
      const second = await rawGet(other.url, '/%761/answers?scenario=vacuum-index-cleanup');
      expect(second.status).toBe(200);
      expect(second.headers).toMatch(/\netag: "/);
      expect((await rawGet(other.url, `http://${host}/v1/findings?limit=9`)).status).toBe(429);
      expect((await rawGet(other.url, '/%761/findings?limit=8')).status).toBe(429);
    } finally {
      await other.close();
    }
  });

  it('limits /v1/coverage and /v1/jobs, which are not cached', async () => {
    const other = await startApi({ readRateLimitPerMinute: 2 }, 'tl_readlimit3');
    try {
      const statuses = [];
      for (const path of [
        '/v1/coverage',
        '/v1/jobs?limit=1000',
        '/v1/coverage?scenario=vacuum-full-rewrite',
        '/v1/jobs/0f8e2c39-0000-4000-8000-000000000000',
      ]) {
        const r = await fetch(`${other.url}${path}`);
        expect(r.headers.get('etag'), path).toBeNull();
        statuses.push(r.status);
      }
      expect(statuses).toEqual([200, 200, 429, 429]);
    } finally {
      await other.close();
    }
  });
});
