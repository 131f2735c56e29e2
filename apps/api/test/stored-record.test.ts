/**
 * A stored record that no longer satisfies the response contract (written around the API, by
 * hand or by an older version): the API answers 500 problem+json, never a body that breaks its
 * own schema, and the problem names the field, so an operator knows which row to look at.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prismaOf } from '@tunelab/results-db/testing';
import { FIXTURE, clone, post, startApi } from './helpers.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api?.close());

it('a stored sample of NaN: 500 problem+json naming /samples/…/value, and the other runs still answer', async () => {
  const bad = await post(api.url, api.token, clone(FIXTURE), { 'idempotency-key': 'stored-nan' });
  expect(bad.status).toBe(201);
  const { id } = (await bad.json()) as { id: string };
  const good = await post(
    api.url,
    api.token,
    { ...clone(FIXTURE), startedAt: '2026-01-02T00:00:00Z' },
    { 'idempotency-key': 'stored-ok' },
  );
  expect(good.status).toBe(201);
  const { id: goodId } = (await good.json()) as { id: string };
  await prismaOf(api.db).$executeRawUnsafe(`UPDATE samples SET value = 'NaN' WHERE run_id = $1::uuid`, id);

  const res = await fetch(`${api.url}/v1/runs/${id}`);
  expect(res.status).toBe(500);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = (await res.json()) as { type: string; detail: string; requestId?: string };
  expect(problem.type).toBe('https://tunelab.dev/problems/stored-record-invalid');
  expect(problem.detail).toMatch(/does not satisfy its contract at \/samples\/\d+\/value\b/);
  // The field, never its stored value.
  expect(problem.detail).not.toMatch(/NaN/);
  expect((await fetch(`${api.url}/v1/runs/${goodId}`)).status).toBe(200);
});
