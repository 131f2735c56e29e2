/**
 * Changes over time within one release through GET /v1/release-events and POST …/acknowledge
 * (`app.inject()` over a real PostgreSQL results database): twelve runs on 17.2, the pair's ratio
 * 15 % higher from the seventh on, are one `over-time` event the `kind` filter finds; an operator
 * acknowledges it; an unknown `kind` is a 400 problem naming `querystring:/kind`.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem, ReleaseEvent, ReleaseEventList } from '@tunelab/contracts';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { createTestDatabase, ingestDocument, releaseRuns } from '@tunelab/results-db/testing';
import { buildTestApp } from '../src/testing.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));

describe('changes over time through the API', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: ResultsDb;
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  let operator: string;

  beforeAll(async () => {
    database = await createTestDatabase('tl_api_drift');
    db = await openResultsDb(database.url, { scenariosDir: SCENARIOS });
    await db.migrate();
    const runs = [
      ...releaseRuns({ releases: ['17.2'], runsPerRelease: 6, seed: 11 }),
      ...releaseRuns({ releases: ['17.2'], runsPerRelease: 6, step: 0.15, stepAt: '17.2', seed: 12 }),
      ...releaseRuns({ releases: ['17.3'], seed: 13 }),
    ];
    for (const [i, doc] of runs.entries()) await ingestDocument(db, doc, `api-drift-${i}`);
    app = await buildTestApp(db, {});
    await app.ready();
    operator = (await db.createRunner('ops-drift', { kind: 'operator' })).token;
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await database?.drop();
  });

  const list = async (query: string) => {
    const res = await app.inject({ method: 'GET', url: `/v1/release-events${query}` });
    return { status: res.statusCode, type: res.headers['content-type'], body: res.json<ReleaseEventList & Problem>() };
  };

  it('lists the step within 17.2 as one new over-time event, apart from the change between releases', async () => {
    const drift = await list('?scenario=vacuum-index-cleanup&kind=over-time');
    expect(drift.status).toBe(200);
    expect(drift.body.items.map((e) => e.kind === 'over-time' && [e.release, e.runsBefore, e.state])).toEqual([
      ['17.2', 6, 'new'],
    ]);
    const between = await list('?kind=between-releases');
    expect(between.body.items.every((e) => e.kind === 'between-releases')).toBe(true);
  });

  it('an operator acknowledges the over-time event', async () => {
    const [event] = (await list('?kind=over-time')).body.items;
    const res = await app.inject({
      method: 'POST',
      url: `/v1/release-events/${event!.id}/acknowledge`,
      headers: { authorization: `Bearer ${operator}` },
      payload: { note: 'the host moved racks' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<ReleaseEvent>()).toMatchObject({
      id: event!.id,
      kind: 'over-time',
      state: 'acknowledged',
      reason: 'the host moved racks',
    });
    expect((await list('?kind=over-time&state=new')).body.items).toEqual([]);
  });

  it('refuses an unknown kind with a problem naming the field', async () => {
    const bad = await list('?kind=drift');
    expect(bad.status).toBe(400);
    expect(bad.type).toMatch(/application\/problem\+json/);
    expect(bad.body.errors?.map((e) => e.path)).toEqual(['querystring:/kind']);
  });
});
