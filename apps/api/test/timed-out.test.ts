/**
 * A request the handler timeout (TUNELAB_HANDLER_TIMEOUT_MS) cut short is told how to
 * retry. Only a submission (POST /v1/runs) is told to keep its Idempotency-Key; a read is told to
 * retry later. The results database stalls behind a TCP proxy so that both outlast the timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, post, startApiThroughProxy } from './helpers.ts';

describe('a request that did not finish in time', () => {
  let api: Awaited<ReturnType<typeof startApiThroughProxy>>;

  beforeAll(async () => {
    api = await startApiThroughProxy(
      'timed-out',
      { timeouts: { statementMs: 10_000, connectMs: 10_000 } },
      { handlerTimeoutMs: 500 },
    );
    // Before the stall the database answers: a read succeeds. The first reads on a busy machine
    // can outlast 500 ms themselves (cold connections and plans), so it is asked until one
    // finishes in time — a minute of tries, not one.
    const deadline = Date.now() + 60_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) status = (await fetch(`${api.url}/v1/runs`)).status;
    expect(status).toBe(200);
    api.proxy.stall();
  });
  afterAll(() => api?.close());

  const problem = async (res: Response) => {
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    return (await res.json()) as { type: string; detail: string };
  };

  it('a read: retry later, no Idempotency-Key', async () => {
    const body = await problem(await fetch(`${api.url}/v1/runs`));
    expect(body.type).toMatch(/timed-out$/);
    expect(body.detail).toBe('The request did not finish in time; retry later.');
  });

  it('a submission: retry with the same Idempotency-Key', async () => {
    const body = await problem(await post(api.url, api.token, FIXTURE, { 'idempotency-key': 'slow-1' }));
    expect(body.type).toMatch(/timed-out$/);
    expect(body.detail).toMatch(/retry later with the same Idempotency-Key/);
  });
});
