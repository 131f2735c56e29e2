import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, clone, post, startApi } from './helpers.ts';
import { prismaOf } from '@tunelab/results-db/testing';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi({ rateLimitPerMinute: 2 });
});
afterAll(async () => api?.close());

describe('OpenAPI and docs', () => {
  it('serves a valid OpenAPI 3 document generated from the zod schemas', async () => {
    const doc = await (await fetch(`${api.url}/openapi.json`)).json();
    expect(doc.openapi).toMatch(/^3\./);
    await SwaggerParser.validate(structuredClone(doc));
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/runs',
        '/v1/runs/{id}',
        '/v1/hardware',
        '/v1/hardware/{fingerprint}',
        '/v1/scenarios',
        '/healthz',
        '/readyz',
      ]),
    );
    const post = doc.paths['/v1/runs'].post;
    expect(Object.keys(post.responses)).toEqual(
      expect.arrayContaining(['200', '201', '400', '401', '409', '413', '429', '503']),
    );
    expect(post.requestBody.content['application/json'].schema.properties.samples).toBeDefined();
  });

  it('serves interactive docs at /docs', async () => {
    const res = await fetch(`${api.url}/docs/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/swagger/i);
  });

  it('health and readiness', async () => {
    expect(await (await fetch(`${api.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${api.url}/readyz`)).json()).toMatchObject({
      status: 'ok',
      database: 'ok',
      queue: { tables: expect.any(Number), deadRows: expect.any(Number) },
    });
  });
});

describe('rate limit per token', () => {
  it('answers 429 problem+json with Retry-After past the limit, per token', async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      const body = clone(FIXTURE);
      body.startedAt = `2026-11-22T03:00:0${i}.000Z`;
      last = await post(api.url, api.token, body, { 'idempotency-key': `rl-${i}` });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await last!.json()).toMatchObject({ status: 429, type: expect.stringContaining('rate-limited') });
    expect(await prismaOf(api.db).run.count({ where: { idempotencyKey: { endsWith: ':rl-2' } } })).toBe(0);
    // Another runner's token has its own budget.
    const other = await api.db.createRunner('other-runner');
    const body = clone(FIXTURE);
    body.startedAt = '2026-11-22T03:00:09.000Z';
    expect((await post(api.url, other.token, body, { 'idempotency-key': 'rl-other' })).status).toBe(201);
  });
});
