import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clone, FIXTURE, setAt, snapshot, startApi } from './helpers.ts';

type Doc = typeof FIXTURE;
const SAME_METRIC: number = FIXTURE.samples.findIndex(
  (s: { metric: string }, i: number) => i > 0 && s.metric === FIXTURE.samples[0].metric,
);
type Case = {
  name: string;
  status: number;
  /** JSON Pointer expected among the problem's errors[].path (omit when the body as a whole is bad). */
  path?: string;
  /** A mutation of a fresh copy of the sample submission, or the raw bytes to send … */
  body?: ((d: Doc) => void) | string | Uint8Array;
  /** … or the value `path` is set to in a fresh copy. */
  value?: unknown;
  contentType?: string | null;
  headers?: Record<string, string>;
};

const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

const CASES: Case[] = [
  { name: 'not JSON', status: 400, path: '/', body: '{"scenario": ' },
  { name: 'empty body', status: 400, path: '/', body: '' },
  { name: 'JSON null', status: 400, path: '/', body: 'null' },
  { name: 'JSON array', status: 400, path: '/', body: '[]' },
  { name: 'text/plain', status: 415, body: JSON.stringify(FIXTURE), contentType: 'text/plain' },
  { name: 'form encoded', status: 415, body: 'a=1', contentType: 'application/x-www-form-urlencoded' },
  {
    name: 'invalid UTF-8',
    status: 400,
    path: '/',
    body: new Uint8Array([...Buffer.from('{"scenario":"'), 0xc3, 0x28, ...Buffer.from('"}')]),
  },
  { name: 'NaN literal', status: 400, path: '/', body: JSON.stringify(FIXTURE).replace('"value":2', '"value":NaN') },
  {
    name: 'Infinity literal',
    status: 400,
    path: '/',
    body: JSON.stringify(FIXTURE).replace('"value":2', '"value":Infinity'),
  },
  {
    name: 'number overflowing to Infinity',
    status: 400,
    path: '/samples/0/value',
    body: JSON.stringify(FIXTURE).replace(/"value":[0-9.]+/, '"value":1e999'),
  },
  {
    name: 'negative overflow in a time series',
    status: 400,
    path: '/timeSeries/0/x',
    body: JSON.stringify({
      ...FIXTURE,
      timeSeries: [{ variant: '1-1', repetition: 1, metric: 'dead_tuples', x: 0, value: 1 }],
    }).replace('"x":0', '"x":-1e999'),
  },
  {
    name: '__proto__ key',
    status: 400,
    path: '/',
    body: JSON.stringify(FIXTURE).replace('"params":{', '"params":{"__proto__":{"admin":true},'),
  },
  { name: 'value as string', status: 400, path: '/samples/0/value', value: '1.5' },
  { name: 'repetition as string', status: 400, path: '/samples/0/repetition', value: '1' },
  { name: 'memory as string', status: 400, path: '/hardware/memoryBytes', value: '25769803776' },
  { name: 'negative core count', status: 400, path: '/hardware/physicalCores', value: -2 },
  { name: 'zero logical cpus', status: 400, path: '/hardware/logicalCpus', value: 0 },
  { name: 'repetition 0', status: 400, path: '/samples/0/repetition', value: 0 },
  { name: 'fractional repetition', status: 400, path: '/samples/1/repetition', value: 1.5 },
  { name: 'negative database major', status: 400, path: '/database/major', value: -15 },
  { name: 'unknown top-level key', status: 400, path: '/extra', value: 1 },
  { name: 'unknown nested key', status: 400, path: '/hardware/gpu', value: 'none' },
  { name: 'unknown key in a sample', status: 400, path: '/samples/2/bogus', value: true },
  { name: 'scenario version not a sha256', status: 400, path: '/scenario/version', value: 'v1' },
  { name: 'scenario key with spaces', status: 400, path: '/scenario/key', value: 'drop table' },
  { name: 'unknown engine', status: 400, path: '/database/engine', value: 'oracle' },
  { name: 'unknown storage kind', status: 400, path: '/hardware/storage/kind', value: 'floppy' },
  { name: 'finished before started', status: 400, path: '/finishedAt', value: '2026-11-22T02:00:00.000Z' },
  { name: 'start time not ISO 8601', status: 400, path: '/startedAt', value: 'yesterday' },
  { name: 'no samples', status: 400, path: '/samples', value: [] },
  {
    name: 'samples missing',
    status: 400,
    path: '/samples',
    body: (d) => {
      delete d.samples;
    },
  },
  { name: 'duplicate sample', status: 400, path: '/samples/3', value: { ...FIXTURE.samples[0] } },
  // The first later sample of samples[0]'s metric, given another unit.
  { name: 'one metric in two units', status: 400, path: `/samples/${SAME_METRIC}/unit`, value: 'ms' },
  { name: 'over-long string', status: 400, path: '/hardware/cpuModel', value: 'x'.repeat(10_000) },
  { name: 'runner version not semver', status: 400, path: '/runnerVersion', value: 'latest' },
  {
    name: 'too many params',
    status: 400,
    path: '/params',
    value: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, i])),
  },
  { name: 'object as a param value', status: 400, path: '/params/rows', value: { n: 1 } },
  {
    name: 'deeply nested param',
    status: 400,
    path: '/params/deep',
    body: JSON.stringify(FIXTURE).replace('"params":{', `"params":{"deep":${nest(5000)},`),
  },
  { name: 'pathologically deep nesting', status: 400, body: `{"params":${nest(200_000)}}` },
  { name: '10^6-element array', status: 400, path: '/warnings', value: Array.from({ length: 1_000_000 }, () => 'w') },
  { name: 'note text over 64 KiB', status: 400, path: '/notes/0/text', value: 'n'.repeat(70_000) },
  {
    name: 'oversized body',
    status: 413,
    body: (d) => {
      d.warnings = Array.from({ length: 300 }, () => 'w'.repeat(60_000));
    },
  },
  {
    name: 'bad Idempotency-Key',
    status: 400,
    path: 'headers:/idempotency-key',
    body: () => {},
    headers: { 'idempotency-key': 'has spaces in it' },
  },
];

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi({ bodyLimitBytes: 16 * 1024 * 1024 });
});
afterAll(async () => api?.close());

describe('malformed submissions', () => {
  it(`has a table of at least 30 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CASES)('$name → $status problem+json naming the field, database unchanged', async (c) => {
    const before = await snapshot(api.db);
    let payload: string | Uint8Array;
    if (typeof c.body === 'function' || 'value' in c) {
      const d = clone(FIXTURE);
      d.startedAt = '2026-11-22T03:00:00.000Z';
      if (typeof c.body === 'function') c.body(d);
      else setAt(d, c.path ?? '', c.value);
      payload = JSON.stringify(d);
    } else payload = c.body ?? '';
    const headers: Record<string, string> = { authorization: `Bearer ${api.token}`, ...c.headers };
    if (c.contentType !== null) headers['content-type'] = c.contentType ?? 'application/json';
    const res = await fetch(`${api.url}/v1/runs`, { method: 'POST', headers, body: payload });
    const text = await res.text();
    expect(res.status, text.slice(0, 500)).toBe(c.status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(text);
    expect(problem).toMatchObject({ status: c.status, title: expect.any(String), requestId: expect.any(String) });
    if (c.path) {
      expect(
        problem.errors?.map((e: { path: string }) => e.path),
        text.slice(0, 500),
      ).toContain(c.path);
    }
    expect(await snapshot(api.db)).toEqual(before);
  });

  it('the valid sample is accepted by the same server (the table tests the field, not the setup)', async () => {
    const res = await fetch(`${api.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(FIXTURE),
    });
    expect(res.status).toBe(201);
  });
});
