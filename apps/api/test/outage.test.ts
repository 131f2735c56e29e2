import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clone, FIXTURE, post, startApiThroughProxy } from './helpers.ts';

/**
 * The results database going away mid-request: the API reaches PostgreSQL through a TCP proxy
 * that cuts every connection as soon as the API sends the statement that writes the samples.
 */
describe('results database stopping mid-request', () => {
  let api: Awaited<ReturnType<typeof startApiThroughProxy>>;
  let database: typeof api.database;
  let proxy: typeof api.proxy;
  let url: string;
  let token: string;

  beforeAll(async () => {
    api = await startApiThroughProxy('outage');
    ({ database, proxy, url, token } = api);
  });
  afterAll(() => api?.close());

  async function countDirect(key: string) {
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    try {
      const runs = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM runs WHERE idempotency_key LIKE '%:' || $1`,
        [key],
      );
      const samples = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM samples`);
      const hardware = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM hardware_profiles`);
      return { runs: runs.rows[0]!.n, samples: samples.rows[0]!.n, hardware: hardware.rows[0]!.n };
    } finally {
      await c.end();
    }
  }

  it('answers 503 problem+json, writes nothing, and recovers when the database is back', async () => {
    const body = clone(FIXTURE);
    body.startedAt = '2026-11-22T10:00:00.000Z';
    body.finishedAt = '2026-11-22T10:05:00.000Z';
    let cut: Promise<void> | undefined;
    let seen = '';
    proxy.watch((chunk) => {
      // The statement text may straddle two chunks: look at the end of the last one too.
      const text = seen + chunk.toString('latin1');
      seen = text.slice(-100);
      if (!cut && /INSERT INTO (?:"public"\.")?samples/.test(text)) cut = proxy.cut();
    });
    const res = await post(url, token, body, { 'idempotency-key': 'outage-1' });
    expect(cut, `the proxy saw the sample insert and cut the connection (HTTP ${res.status})`).toBeDefined();
    await cut;
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('retry-after')).toBe('5');
    const problem = await res.json();
    expect(problem).toMatchObject({
      status: 503,
      type: expect.stringContaining('database-unavailable'),
      requestId: expect.any(String),
    });
    expect(JSON.stringify(problem)).not.toMatch(/ECONN|terminated|stack|at /);

    // The transaction died with its connection: the run's hardware profile, run and samples are all absent.
    expect(await countDirect('outage-1')).toEqual({ runs: 0, samples: 0, hardware: 0 });

    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).status).toBe(503);

    proxy.watch(undefined);
    await proxy.restore();
    let readyAgain = 0;
    for (let i = 0; i < 20 && readyAgain !== 200; i++) {
      readyAgain = (await fetch(`${url}/readyz`)).status;
      if (readyAgain !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(readyAgain).toBe(200);
    const retry = await post(url, token, body, { 'idempotency-key': 'outage-1' });
    expect(retry.status).toBe(201);
    expect(await countDirect('outage-1')).toEqual({ runs: 1, samples: body.samples.length, hardware: 1 });
  });
});
