/**
 * Every error the API sends is problem+json with the request id
 * (also those Fastify and Node's HTTP parser answer before any route), JSON with a charset
 * parameter is accepted and a Content-Encoding the API does not decode is refused, and
 * idempotency keys are scoped per runner.
 */
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, clone, FIXTURE, snapshot, startApi, startInjectable } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));

/** Sends raw bytes and returns what came back before the server closed (or `waitMs` passed). */
function rawRequest(port: number, data: string, waitMs = 5000): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ms: performance.now() - started });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (d) => (text += d.toString('utf8')));
    socket.on('close', done);
    socket.on('error', done);
    socket.write(data);
  });
}

function problemOf(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  return { head, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: JSON.parse(body) };
}

describe('errors before any route are problem+json with the request id', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let port: number;
  beforeAll(async () => {
    api = await startApi({ requestTimeoutMs: 1000 });
    port = Number(new URL(api.url).port);
  });
  afterAll(async () => api?.close());

  it.each([
    ['a path parameter over 200 characters', `/v1/runs/${'a'.repeat(300)}`, 414],
    ['a %-escape that does not decode', '/v1/runs/%ZZ', 400],
    ['a %-escape that does not decode, in a hardware path', '/v1/hardware/%E0%A4%A', 400],
  ])('%s (%s) → %i', async (_name, path, status) => {
    const res = await fetch(`${api.url}${path}`, { headers: { 'x-request-id': 'edge-1' } });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('x-request-id')).toBe('edge-1');
    expect(await res.json()).toMatchObject({
      status,
      requestId: 'edge-1',
      type: expect.stringContaining('tunelab.dev/problems/'),
    });
  });

  it('headers over the size limit → 431 problem+json', async () => {
    const { text } = await rawRequest(port, `GET /v1/runs HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const p = problemOf(text);
    expect(p.status).toBe(431);
    expect(p.head).toMatch(/content-type: application\/problem\+json/i);
    expect(p.body).toMatchObject({ status: 431, requestId: expect.any(String) });
    expect(p.head).toContain(`X-Request-Id: ${p.body.requestId}`);
  });

  it('malformed HTTP → 400 problem+json', async () => {
    const p = problemOf((await rawRequest(port, 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n')).text);
    expect(p.status).toBe(400);
    expect(p.body).toMatchObject({ status: 400, requestId: expect.any(String) });
  });

  it('headers and a partial body that never completes → 408 problem+json within the request timeout, nothing stored', async () => {
    const before = await snapshot(api.db);
    const body = JSON.stringify(FIXTURE);
    const { text, ms } = await rawRequest(
      port,
      `POST /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 100)}`,
      10_000,
    );
    const p = problemOf(text);
    expect(p.status).toBe(408);
    expect(p.body).toMatchObject({
      status: 408,
      type: expect.stringContaining('request-timeout'),
      requestId: expect.any(String),
    });
    // requestTimeout 1 s, checked every 250 ms: answered well before Node's 30 s default.
    expect(ms).toBeLessThan(3000);
    expect(await snapshot(api.db)).toEqual(before);
  });
});

for (const backend of BACKENDS) {
  describe(`content type and encoding on ${backend}`, () => {
    let api: Awaited<ReturnType<typeof startInjectable>>;
    beforeAll(async () => {
      api = await startInjectable(backend);
    });
    afterAll(async () => api?.close());

    const send = (headers: Record<string, string>, key: string, body = JSON.stringify(FIXTURE)) =>
      api.app.inject({
        method: 'POST',
        url: '/v1/runs',
        headers: { authorization: `Bearer ${api.token}`, 'idempotency-key': key, ...headers },
        payload: body,
      });

    it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"'])(
      'Content-Type %s → 201',
      async (type) => {
        const res = await send({ 'content-type': type }, `ct-${type.replace(/[^a-z0-9]/gi, '')}`);
        expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(300);
      },
    );

    it.each([
      [
        'Content-Type application/json; charset=iso-8859-1',
        { 'content-type': 'application/json; charset=iso-8859-1' },
        'headers:/content-type',
      ],
      [
        'Content-Encoding gzip',
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        'headers:/content-encoding',
      ],
      [
        'Content-Encoding br',
        { 'content-type': 'application/json', 'content-encoding': 'br' },
        'headers:/content-encoding',
      ],
    ])('%s → 415 problem+json, nothing stored', async (_name, headers, path) => {
      const before = await snapshot(api.db);
      const res = await send(headers, 'refused-1');
      expect(res.statusCode).toBe(415);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
      expect(await snapshot(api.db)).toEqual(before);
    });

    it('Content-Encoding identity is plain', async () => {
      const d = clone(FIXTURE);
      d.startedAt = '2026-11-22T02:00:00.000Z';
      const res = await send(
        { 'content-type': 'application/json', 'content-encoding': 'identity' },
        'identity-1',
        JSON.stringify(d),
      );
      expect(res.statusCode).toBe(201);
    });
  });

  describe(`idempotency keys are scoped per runner on ${backend}`, () => {
    let api: Awaited<ReturnType<typeof startInjectable>>;
    let tokenB: string;
    beforeAll(async () => {
      api = await startInjectable(backend);
      tokenB = (await api.db.createRunner('runner-b')).token;
    });
    afterAll(async () => api?.close());

    const submit = (token: string, key: string, body: unknown) =>
      api.app.inject({
        method: 'POST',
        url: '/v1/runs',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        payload: JSON.stringify(body),
      });

    it("runner B replaying runner A's key gets its own run, not A's", async () => {
      const a = await submit(api.token, 'shared-1', FIXTURE);
      expect(a.statusCode).toBe(201);
      const b = await submit(tokenB, 'shared-1', FIXTURE);
      expect(b.statusCode).toBe(201);
      expect(b.json().id).not.toBe(a.json().id);
      expect(b.json().idempotencyKey).toBe('shared-1');
      // Each runner's own replay still returns its own run.
      const again = await submit(api.token, 'shared-1', FIXTURE);
      expect(again.statusCode).toBe(200);
      expect(again.json().id).toBe(a.json().id);
      const other = clone(FIXTURE);
      other.startedAt = '2026-11-22T02:30:00.000Z';
      expect((await submit(tokenB, 'shared-1', other)).statusCode).toBe(409);
    });

    it("a runner cannot take the published import's key: import:published still imports", async () => {
      const taken = await submit(api.token, 'published:vacuum-index-cleanup:server-1', FIXTURE);
      expect([200, 201]).toContain(taken.statusCode);
      const result = await api.db.importPublished(SCENARIOS);
      expect(result.imported.find((i) => i.idempotencyKey === 'published:vacuum-index-cleanup:server-1')?.outcome).toBe(
        'created',
      );
    });
  });
}
