/**
 * Reads that never wait on a slow computation: an expensive read whose fresh answer does not come
 * within the read budget (here: the results database stalled behind a TCP proxy, so it never
 * comes) gets the last answer computed for it, byte for byte, with its `Age` and a `Cache-Status`
 * saying it is stale; the fresh one goes on computing and the reads after it get it. A client that
 * sends `Cache-Control: no-cache` waits for the fresh answer (a 503 while the database is stalled).
 * Nothing here depends on the machine's speed: the stall never ends by itself, and the budget of
 * the second API is far longer than any computation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clone, FIXTURE, post, startApiThroughProxy, startInjectable } from './helpers.ts';

const at = (startedAt: string) => {
  const d = clone(FIXTURE);
  d.startedAt = startedAt;
  d.finishedAt = new Date(Date.parse(startedAt) + 60_000).toISOString();
  return d;
};
const READ = `/v1/answers?scenario=${FIXTURE.scenario.key}`;
const runsIn = (body: string) => (JSON.parse(body) as { noise: { runs: number } }).noise.runs;

describe('a read past its budget gets the last computed answer, with its age', () => {
  let api: Awaited<ReturnType<typeof startApiThroughProxy>>;
  beforeAll(async () => {
    api = await startApiThroughProxy(
      'read-budget',
      { timeouts: { statementMs: 1000, connectMs: 1000 } },
      { readBudgetMs: 300, readRateLimitPerMinute: 100_000 },
    );
  });
  afterAll(() => api?.close());

  it('answers from the last computation while the database is stalled, and afresh once it is back', async () => {
    expect((await post(api.url, api.token, at('2026-11-28T05:00:00.000Z'), { 'idempotency-key': 'one' })).status).toBe(
      201,
    );
    const first = await fetch(`${api.url}${READ}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('age')).toBeNull();
    const etag = first.headers.get('etag')!;
    const body = await first.text();

    // New data: the cached answer is out of date, and the database then stops answering.
    expect((await post(api.url, api.token, at('2026-11-28T06:00:00.000Z'), { 'idempotency-key': 'two' })).status).toBe(
      201,
    );
    api.proxy.stall();
    const stale = await fetch(`${api.url}${READ}`);
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(body);
    expect(stale.headers.get('etag')).toBe(etag);
    expect(Number(stale.headers.get('age'))).toBeGreaterThanOrEqual(0);
    expect(stale.headers.get('cache-status')).toMatch(/^tunelab; hit; detail="stale: computed before the latest data/);
    // The client that has it already: 304, still with its age.
    const notModified = await fetch(`${api.url}${READ}`, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('age')).not.toBeNull();
    // A client that takes nothing stale waits for the fresh answer, which the stall turns into a 503.
    const fresh = await fetch(`${api.url}${READ}`, { headers: { 'cache-control': 'no-cache' } });
    expect(fresh.status).toBe(503);
    expect(fresh.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    api.proxy.heal();
    let after: { status: number; etag: string | null; age: string | null; body: string } | undefined;
    for (let i = 0; i < 200 && (after === undefined || after.etag === etag); i++) {
      if (after) await new Promise((r) => setTimeout(r, 100));
      const r = await fetch(`${api.url}${READ}`);
      after = { status: r.status, etag: r.headers.get('etag'), age: r.headers.get('age'), body: await r.text() };
    }
    expect(after?.status).toBe(200);
    expect(after?.etag).not.toBe(etag);
    expect(after?.age).toBeNull();
    expect(runsIn(after!.body)).toBe(runsIn(body) + 1);
  });
});

describe('a fresh answer within the budget', () => {
  let api: Awaited<ReturnType<typeof startInjectable>>;
  beforeAll(async () => {
    api = await startInjectable('postgresql', { readBudgetMs: 600_000 });
  });
  afterAll(() => api?.close());

  it('is what a read after an ingest gets, computed once for every read waiting on it', async () => {
    const submit = (key: string, startedAt: string) =>
      api.app.inject({
        method: 'POST',
        url: '/v1/runs',
        headers: { authorization: `Bearer ${api.token}`, 'idempotency-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify(at(startedAt)),
      });
    expect((await submit('a', '2026-11-28T05:00:00.000Z')).statusCode).toBe(201);
    const first = await api.app.inject({ method: 'GET', url: READ });
    expect((await submit('b', '2026-11-28T06:00:00.000Z')).statusCode).toBe(201);
    const reads = await Promise.all(Array.from({ length: 5 }, () => api.app.inject({ method: 'GET', url: READ })));
    for (const r of reads) {
      expect(r.statusCode).toBe(200);
      expect(r.headers.age).toBeUndefined();
      expect(r.headers['cache-status']).toBeUndefined();
      expect(r.body).toBe(reads[0]!.body);
      expect(runsIn(r.body)).toBe(runsIn(first.body) + 1);
    }
  });
});
