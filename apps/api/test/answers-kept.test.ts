/**
 * GET /v1/answers from kept answers, on PostgreSQL and on the embedded PGlite, over the real runs
 * and the published figures: the kept body is the body of the same answers computed per request,
 * a stored run makes it stale (served with its Age while the queued job recomputes it), and a
 * client's `Cache-Control: no-cache` computes it now.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listScenarioDirs } from '@tunelab/scenarios';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { realRun, REAL_RUN_KEYS, SCENARIOS } from '@tunelab/results-db/real-runs';
import { buildTestApp } from '../src/testing.ts';
import type { App } from '../src/index.ts';
import { BACKENDS } from './helpers.ts';

describe.each(BACKENDS)('GET /v1/answers from kept answers (%s)', (backend) => {
  let db: ResultsDb;
  let app: App;
  let token: string;
  let drop: (() => Promise<void>) | undefined;
  let scenarios: string[];
  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
  const ingest = (body: unknown, key: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/runs',
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': key },
      payload: body as object,
    });

  beforeAll(async () => {
    const pg = backend === 'postgresql' ? await createTestDatabase('tl_h2_kept_api') : undefined;
    drop = pg?.drop;
    db = await openResultsDb(pg?.url, { dataDir: 'memory://', scenariosDir: SCENARIOS });
    await db.migrate();
    await db.importPublished(SCENARIOS);
    app = await buildTestApp(db, {
      fleet: false, // A stale kept answer is served at once (its recomputation takes longer than 1 ms); the
      // job starts 3 s after the ingest that queued it.
      keptAnswers: { readBudgetMs: 1, debounceSeconds: 3, pollSeconds: 0.5 },
    });
    await app.ready();
    ({ token } = await db.createRunner(`kept-${backend}`));
    for (const [i, key] of REAL_RUN_KEYS.entries())
      expect((await ingest(realRun(key), `kept-${i}`)).statusCode).toBe(201);
    scenarios = (await listScenarioDirs(SCENARIOS)).map((d) => d.replace(/\/+$/, '').split('/').pop()!).sort();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await drop?.();
  });

  it('answers every scenario’s plain query with the body of the same answers computed per request', async () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(5);
    for (const scenario of scenarios)
      for (const source of ['measured', 'published']) {
        const kept = await get(`/v1/answers?scenario=${scenario}&source=${source}`);
        expect(kept.statusCode, kept.body).toBe(200);
        expect(kept.headers['content-type']).toMatch(/^application\/json/);
        // Kept by the first read (computed then) or by the job an ingest queued.
        if (kept.headers['cache-status'] !== undefined) {
          expect(kept.headers['cache-status']).toBe('tunelab-kept; hit');
          expect(kept.headers['age']).toMatch(/^\d+$/);
        }
        expect((await db.keptAnswer({ scenario, source: source as 'measured' }))?.state).toBe('current');
        // `noisy=include` is the default: the same answers, computed per request and serialized by the route.
        const computed = await get(`/v1/answers?scenario=${scenario}&source=${source}&noisy=include`);
        expect(computed.statusCode).toBe(200);
        expect(computed.headers['cache-status']).toBeUndefined();
        expect(kept.body, `${scenario} ${source}`).toBe(computed.body);
      }
  }, 120_000);

  it('a stored run makes the kept answer stale: served with its Age and Cache-Status, then recomputed by the job', async () => {
    const scenario = 'vacuum-index-cleanup';
    const url = `/v1/answers?scenario=${scenario}`;
    await vi.waitFor(
      async () => expect(await db.keptAnswer({ scenario, source: 'measured' })).toMatchObject({ state: 'current' }),
      { timeout: 60_000, interval: 200 },
    );
    const before = await get(url);
    expect(before.headers['cache-status']).toBe('tunelab-kept; hit');
    // Read again, from the answers cached in memory: still said to be kept, with its age.
    const again = await get(url);
    expect(again.body).toBe(before.body);
    expect(again.headers['cache-status']).toBe('tunelab-kept; hit');
    expect(Number(again.headers['age'])).toBeGreaterThanOrEqual(Number(before.headers['age']));
    // The job starts a few seconds after the ingest (debounceSeconds): until then the answer is stale.
    expect((await ingest(realRun(scenario), 'kept-again')).statusCode).toBe(201);
    const stale = await get(url);
    expect(stale.statusCode).toBe(200);
    if (backend === 'pglite' && stale.headers['cache-status'] === undefined) {
      // PGlite runs every query on this thread: the computation ends before the budget's timer can.
      expect(stale.body).not.toBe(before.body);
    } else {
      expect(stale.headers['cache-status']).toBe(
        'tunelab-kept; hit; detail="stale: runs were stored, or the scenario or TuneLab changed, since it was computed; a recomputation is queued"',
      );
      expect(stale.headers['age']).toMatch(/^\d+$/);
      expect(stale.body).toBe(before.body);
    }
    await vi.waitFor(
      async () => expect(await db.keptAnswer({ scenario, source: 'measured' })).toMatchObject({ state: 'current' }),
      { timeout: 60_000, interval: 200 },
    );
    const fresh = await get(url);
    expect(fresh.body).not.toBe(before.body);
    expect(fresh.body).toBe((await get(`${url}&noisy=include`)).body);
    expect(await db.keptAnswer({ scenario, source: 'measured' })).toMatchObject({ state: 'current', body: fresh.body });
  }, 120_000);

  it('Cache-Control: no-cache computes now and keeps it', async () => {
    const res = await get('/v1/answers?scenario=vacuum-full-rewrite', { 'cache-control': 'no-cache' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-status']).toBeUndefined();
    expect(res.headers['age']).toBeUndefined();
    expect(await db.keptAnswer({ scenario: 'vacuum-full-rewrite', source: 'measured' })).toMatchObject({
      state: 'current',
      body: res.body,
    });
  });

  it('a bad query is still a 400 problem naming the field, an unknown scenario a 404', async () => {
    const bad = await get('/v1/answers?scenario=vacuum-index-cleanup&source=both');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(bad.json())).toContain('source');
    const missing = await get('/v1/answers?scenario=no-such-scenario');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
