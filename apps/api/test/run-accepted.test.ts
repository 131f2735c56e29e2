import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunAccepted } from '@tunelab/contracts';
import { FIXTURE, post, startApi } from './helpers.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi({}, 'tl_run_accepted');
});
afterAll(async () => api?.close());

describe('POST /v1/runs answer', () => {
  it('is the contract, as the zod serializer writes it, when stored (201) and replayed (200)', async () => {
    for (const status of [201, 200]) {
      const res = await post(api.url, api.token, FIXTURE, { 'idempotency-key': 'accepted-1' });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await res.text();
      const accepted = RunAccepted.strict().parse(JSON.parse(text));
      expect(text).toBe(JSON.stringify(RunAccepted.encode(accepted)));
      expect(accepted).toMatchObject({
        status: 'stored',
        idempotencyKey: 'accepted-1',
        samples: FIXTURE.samples.length,
      });
    }
  });
});
