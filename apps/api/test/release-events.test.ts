/**
 * GET /v1/release-events and POST /v1/release-events/:id/acknowledge over runs POSTed through
 * /v1/runs into a real PostgreSQL results database (vacuum-index-cleanup's pair on six releases,
 * its ratio 15 % higher from 17.3 on): the change is one `new` event, read again it is the same
 * event; an operator acknowledges it with a note; bad input is a 4xx problem+json naming the field,
 * a runner token 403, no token 401, an unknown id 404 — and none of them changes the event.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem, ReleaseEvent, ReleaseEventList } from '@tunelab/contracts';
import { releaseRuns } from '@tunelab/results-db/testing';
import { startApi } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const RELEASES = ['17.0', '17.1', '17.2', '17.3', '17.4', '17.5'];

describe('release events through the API', () => {
  let url: string;
  let operator: string;
  let runner: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const api = await startApi({}, 'tl_release_events_api', {
      scenariosDir: SCENARIOS,
      runs: releaseRuns({ releases: RELEASES, stepAt: '17.3', step: 0.15, seed: 3 }).map((body, i) => ({
        key: `events-${i}`,
        body,
      })),
    });
    ({ url, close } = api);
    runner = api.token;
    operator = (await api.db.createRunner('ops-events', { kind: 'operator' })).token;
  }, 300_000);
  afterAll(async () => close?.());

  const list = async (query = '') => {
    const res = await fetch(`${url}/v1/release-events${query}`);
    return { status: res.status, body: (await res.json()) as ReleaseEventList & Problem };
  };
  const acknowledge = async (id: string, body: unknown, token: string | null = operator) => {
    const res = await fetch(`${url}/v1/release-events/${id}/acknowledge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      body: (await res.json()) as ReleaseEvent & Problem,
    };
  };

  it('lists the change at 17.3 as one new event, the same one when read again', async () => {
    const first = await list('?scenario=vacuum-index-cleanup');
    expect(first.status).toBe(200);
    expect(first.body.items.map((e) => e.kind === 'between-releases' && [e.from, e.to, e.state])).toEqual([
      ['17.2', '17.3', 'new'],
    ]);
    const again = await list();
    expect(again.body.items.map((e) => [e.id, e.firstSeenAt])).toEqual([
      [first.body.items[0]!.id, first.body.items[0]!.firstSeenAt],
    ]);
  });

  it('refuses bad input with a problem naming the field, and other tokens, changing nothing', async () => {
    const [event] = (await list()).body.items;
    const badState = await list('?state=seen');
    expect(badState.status).toBe(400);
    expect(badState.body.errors?.map((e) => e.path)).toEqual(['querystring:/state']);
    const badId = await acknowledge('not-a-uuid', {});
    expect(badId.status).toBe(400);
    expect(badId.type).toMatch(/application\/problem\+json/);
    expect(badId.body.errors?.map((e) => e.path)).toEqual(['params:/id']);
    const badNote = await acknowledge(event!.id, { note: 'x'.repeat(501) });
    expect(badNote.status).toBe(400);
    expect(badNote.body.errors?.map((e) => e.path)).toContain('/note');
    const extra = await acknowledge(event!.id, { note: 'ok', state: 'expected' });
    expect(extra.status).toBe(400);
    expect((await acknowledge(event!.id, {}, runner)).status).toBe(403);
    expect((await acknowledge(event!.id, {}, null)).status).toBe(401);
    const unknown = await acknowledge('00000000-0000-4000-8000-000000000000', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/no release event with id/);
    expect((await list()).body.items[0]!.state).toBe('new');
  });

  it('an operator acknowledges it with a note, which the list then shows as its reason', async () => {
    const [event] = (await list()).body.items;
    const res = await acknowledge(event!.id, { note: 'expected: 17.3 changed index cleanup' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: event!.id,
      state: 'acknowledged',
      reason: 'expected: 17.3 changed index cleanup',
    });
    const acked = await list('?state=acknowledged');
    expect(acked.body.items.map((e) => e.id)).toEqual([event!.id]);
    expect((await list('?state=new')).body.items).toEqual([]);
  });
});
