import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi } from './helpers.ts';

type Api = Awaited<ReturnType<typeof startApi>>;

/** What @fastify/helmet 13 (helmet 8) sends with the API's options: every one must reach every answer. */
const HELMET = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'none';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'cross-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

const headersOf = (res: Response) => Object.fromEntries(Object.keys(HELMET).map((h) => [h, res.headers.get(h)]));

describe('security headers', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({}, 'tl_security');
  });
  afterAll(async () => api?.close());

  it("are helmet's on a read, a 404, a refused submission and a cached read", async () => {
    const answers = [
      await fetch(`${api.url}/v1/runs`),
      await fetch(`${api.url}/v1/no-such-route`),
      await fetch(`${api.url}/v1/runs`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }),
      await fetch(`${api.url}/v1/comparisons?scenario=none`),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 404, 401, 200]);
    for (const res of answers) expect(headersOf(res)).toEqual(HELMET);
  });

  it("are helmet's on /docs but for swagger-ui's CSP, which keeps frame-ancestors 'none'", async () => {
    const res = await fetch(`${api.url}/docs/static/index.html`);
    expect(res.status).toBe(200);
    const { 'content-security-policy': csp, ...rest } = headersOf(res);
    const { 'content-security-policy': _, ...helmetRest } = HELMET;
    expect(rest).toEqual(helmetRest);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/validator\.swagger\.io/);
  });
});
