import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot, startInjectable } from './helpers.ts';

let api: Awaited<ReturnType<typeof startInjectable>>;
beforeAll(async () => {
  api = await startInjectable('postgresql', { minRunnerVersion: '1.0.0' });
});
afterAll(async () => api?.close());

const me = (headers: Record<string, string>) => api.app.inject({ method: 'GET', url: '/v1/runners/me', headers });

describe('GET /v1/runners/me', () => {
  it('names the runner of a valid token and changes nothing', async () => {
    const before = await snapshot(api.db);
    const res = await me({ authorization: `Bearer ${api.token}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ name: expect.stringMatching(/^test-/) });
    expect(await snapshot(api.db)).toEqual(before);
  });

  it('refuses no token, an unknown or revoked token (401) and a runner older than the minimum (426)', async () => {
    expect((await me({})).statusCode).toBe(401);
    expect((await me({ authorization: 'Bearer tl_nope' })).statusCode).toBe(401);
    const old = await me({ authorization: `Bearer ${api.token}`, 'user-agent': 'tunelab-runner/0.0.1' });
    expect(old.statusCode).toBe(426);
    const name = (await me({ authorization: `Bearer ${api.token}` })).json<{ name: string }>().name;
    await api.db.revokeRunner(name);
    const revoked = await me({ authorization: `Bearer ${api.token}` });
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json()).toMatchObject({ detail: 'the runner token is unknown or revoked' });
  });
});
