/**
 * Input that is schema-valid by shape but poisons storage or reads. Each
 * case is refused at the contract (400 naming the field, nothing stored). No data from before
 * these checks was kept (development data was reset), so reads have no compatibility
 * path for it: a run read back obeys the same contract. Values at the edge of the statistics
 * (written here straight through ingestRun, which trusts its caller) must not break a comparison.
 * Runs on PostgreSQL and PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, clone, FIXTURE, setAt, snapshot, startInjectable } from './helpers.ts';

type Doc = typeof FIXTURE;
/** The field `path` set to `value` in a copy of the fixture, or another `mutate`, or a `raw` edit of its JSON. */
type Refusal = {
  name: string;
  path: string;
  value?: unknown;
  mutate?: (d: Doc) => void;
  raw?: (json: string) => string;
};

const MAX = 1.7976931348623157e308;
/** The first duration sample of the fixture (a real run: its layout is the runner's). */
const FIRST_DURATION: number = FIXTURE.samples.findIndex((s: { metric: string }) => s.metric === 'duration');
const REFUSALS: Refusal[] = [
  { name: 'a duration of 1.8e308 s', path: '/samples/0/value', value: MAX },
  {
    name: 'durations of 1e155 × repetition',
    path: `/samples/${FIRST_DURATION}/value`,
    mutate: (d) => {
      d.samples.forEach((s: { metric: string; value: number; repetition: number }) => {
        if (s.metric === 'duration') s.value = 1e155 * s.repetition;
      });
    },
  },
  { name: 'a negative duration', path: '/samples/0/value', value: -1 },
  { name: 'bytes beyond 2^63', path: '/samples/1/value', value: 1e20 },
  {
    name: 'an unknown unit beyond the generic bound',
    path: '/samples/2/value',
    mutate: (d) => {
      d.samples[2].unit = 'widgets';
      d.samples[5].unit = 'widgets';
      d.samples[8].unit = 'widgets';
      d.samples[11].unit = 'widgets';
      d.samples[2].value = 1e300;
    },
  },
  {
    name: 'a time-series value of 1.8e308',
    path: '/timeSeries/0/value',
    mutate: (d) => {
      d.timeSeries = [{ variant: '1-1', repetition: 1, metric: 'dead_tuples', x: 0, value: MAX }];
    },
  },
  { name: 'startedAt 0001-01-01T00:30:00+01:00', path: '/startedAt', value: '0001-01-01T00:30:00+01:00' },
  { name: 'finishedAt 9999-12-31T23:59:59-12:00', path: '/finishedAt', value: '9999-12-31T23:59:59-12:00' },
  { name: 'year 0000', path: '/startedAt', value: '0000-01-01T00:00:00Z' },
  { name: 'a UTC offset of +16:00', path: '/startedAt', value: '2026-11-22T19:00:00+16:00' },
  { name: 'a UTC offset of -23:59', path: '/finishedAt', value: '2026-11-22T03:01:05-23:59' },
  { name: 'NUL in the CPU model', path: '/hardware/cpuModel', value: 'AMD\u0000EPYC' },
  { name: 'NUL in a note', path: '/notes/0/text', value: 'a\u0000b' },
  {
    name: 'NUL in a warning',
    path: '/warnings/0',
    mutate: (d) => {
      d.warnings = ['\u0000'];
    },
  },
  { name: 'NUL in a param value', path: '/params/rows', value: 'x\u0000' },
  { name: 'NUL in a setting value', path: '/database/settings/shared_buffers', value: '128\u0000MB' },
  { name: 'NUL in a scenario title', path: '/scenario/title', value: 'x\u0000' },
  {
    name: 'a lone high surrogate in the OS name',
    path: '/hardware/os',
    raw: (j) => j.replace(`"os":${JSON.stringify(FIXTURE.hardware.os)}`, '"os":"Debian \\ud800"'),
  },
  {
    name: 'a lone low surrogate in the kernel',
    path: '/hardware/kernel',
    raw: (j) => j.replace(`"kernel":${JSON.stringify(FIXTURE.hardware.kernel)}`, '"kernel":"\\udc00 6.1"'),
  },
  {
    name: 'a lone surrogate in a param key',
    path: '/params/\ud800',
    raw: (j) => j.replace('"params":{', '"params":{"\\ud800":1,'),
  },
  // JSON.parse keeps a repeated key's last copy: the first must never reach storage unchecked.
  {
    name: 'a repeated key whose first copy holds a lone surrogate',
    path: '/hardware/os',
    raw: (j) => j.replace('"os":', '"os":"Debian \\ud800","os":'),
  },
  {
    name: 'a repeated key whose first copy holds a NUL',
    path: '/hardware/cpuModel',
    raw: (j) => j.replace('"cpuModel":', '"cpuModel":"AMD\\u0000","cpuModel":'),
  },
  {
    name: 'a repeated key spelled with an escape',
    path: '/scenario',
    raw: (j) => j.replace('"scenario":', '"\\u0073cenario":{"key":"x"},"scenario":'),
  },
];

for (const backend of BACKENDS) {
  describe(`poisoned submissions on ${backend}`, () => {
    let api: Awaited<ReturnType<typeof startInjectable>>;
    beforeAll(async () => {
      api = await startInjectable(backend);
    });
    afterAll(async () => api?.close());

    it.each(REFUSALS)('$name → 400 naming $path, nothing stored', async (c) => {
      const before = await snapshot(api.db);
      const d = clone(FIXTURE);
      if ('value' in c) setAt(d, c.path, c.value);
      c.mutate?.(d);
      let payload = JSON.stringify(d);
      if (c.raw) {
        const changed = c.raw(payload);
        expect(changed, 'the raw edit applies').not.toBe(payload);
        payload = changed;
      }
      const res = await api.app.inject({
        method: 'POST',
        url: '/v1/runs',
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, res.body.slice(0, 400)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = res.json();
      expect(problem.requestId).toEqual(expect.any(String));
      expect(
        problem.errors.map((e: { path: string }) => e.path),
        res.body.slice(0, 400),
      ).toContain(c.path);
      expect(await snapshot(api.db)).toEqual(before);
    });

    it('GET /v1/runs?class=%ED%A0%80 (an encoded lone surrogate) is no 5xx', async () => {
      const res = await api.app.inject({ method: 'GET', url: '/v1/runs?class=%ED%A0%80' });
      expect(res.statusCode).toBeLessThan(500);
    });

    it.each([
      ['/v1/runs?class=%00', 'querystring:/class'],
      ['/v1/hardware?class=%00', 'querystring:/class'],
      [
        `/v1/runs?cursor=${Buffer.from('-000001-01-01T00:00:00.000Z|00000000-0000-0000-0000-000000000000').toString('base64url')}`,
        'querystring:/cursor',
      ],
      [
        `/v1/runs?cursor=${Buffer.from('+010000-01-01T00:00:00.000Z|00000000-0000-0000-0000-000000000000').toString('base64url')}`,
        'querystring:/cursor',
      ],
    ])('GET %s → 4xx problem+json, not 500', async (url, path) => {
      const res = await api.app.inject({ method: 'GET', url });
      expect(res.statusCode, res.body.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      if (path) expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    });
  });

  describe(`reads over values at the edge of the statistics, on ${backend}`, () => {
    let api: Awaited<ReturnType<typeof startInjectable>>;
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      api = await startInjectable(backend);
      // Straight into the results database: the API refuses such values (above).
      const store = async (name: string, version: string, edit: (d: Doc) => void) => {
        const d = clone(FIXTURE);
        d.scenario.version = version.repeat(64);
        edit(d);
        const r = await api.db.ingestRun({ submission: d, document: d, idempotencyKey: `old-${name}`, runnerId: null });
        ids[name] = r.run.id;
      };
      // A healthy group next to the poisoned ones: it must keep its verdict.
      for (let i = 0; i < 3; i++) {
        await store(`good-${i}`, 'a', (d) => {
          d.startedAt = `2026-11-2${i}T03:00:00.000Z`;
        });
      }
      await store('max', 'b', (d) => {
        d.samples.forEach((s: { metric: string; value: number }) => {
          if (s.metric === 'duration') s.value = MAX;
        });
      });
      await store('max2', 'b', (d) => {
        d.startedAt = '2026-11-23T03:00:00.000Z';
        d.samples.forEach((s: { metric: string; value: number; repetition: number }) => {
          if (s.metric === 'duration') s.value = s.repetition % 2 ? MAX : -MAX;
        });
      });
      await store('e155', 'c', (d) => {
        d.samples.forEach((s: { metric: string; value: number; repetition: number }) => {
          if (s.metric === 'duration') s.value = 1e155 * s.repetition;
        });
      });
    });
    afterAll(async () => api?.close());

    it('GET /v1/comparisons answers 200: the overflowing group says so, the healthy one keeps its verdict', async () => {
      const res = await api.app.inject({
        method: 'GET',
        url: '/v1/comparisons?scenario=vacuum-index-cleanup&groupBy=hardware',
      });
      expect(res.statusCode, res.body.slice(0, 400)).toBe(200);
      const groups: {
        scenario: { version: string };
        warnings: string[];
        comparisons: { verdict: { kind: string } }[];
        variants: { sd: number | null; ci95: unknown }[];
      }[] = res.json().groups;
      const byVersion = (c: string) => groups.find((g) => g.scenario.version === c.repeat(64));
      expect(byVersion('a')?.comparisons[0]?.verdict.kind).not.toBe('insufficient-data');
      expect(byVersion('b')?.warnings.join(' ')).toMatch(/too large for their spread/);
      expect(byVersion('b')?.variants.some((v) => v.sd === null || v.ci95 === null)).toBe(true);
      expect(byVersion('c')?.variants.every((v) => v.sd !== null)).toBe(true);
    });

    it('GET /v1/findings answers 200 with the healthy finding', async () => {
      const res = await api.app.inject({ method: 'GET', url: '/v1/findings' });
      expect(res.statusCode, res.body.slice(0, 400)).toBe(200);
      expect(res.json().items.length).toBeGreaterThan(0);
    });

    it('GET /v1/runs answers 200 and pages through every run', async () => {
      const list = await api.app.inject({ method: 'GET', url: '/v1/runs?limit=500' });
      expect(list.statusCode, list.body.slice(0, 400)).toBe(200);
      expect(list.json().items).toHaveLength(Object.keys(ids).length);
      for (const url of ['/v1/hardware', '/v1/scenarios']) {
        expect((await api.app.inject({ method: 'GET', url })).statusCode).toBe(200);
      }
      // Paging through every run works too (the cursor of a page is built from what was read).
      let cursor: string | null = null;
      let seen = 0;
      do {
        const page: { statusCode: number; json: () => { items: unknown[]; nextCursor: string | null } } =
          await api.app.inject({ method: 'GET', url: `/v1/runs?limit=2${cursor ? `&cursor=${cursor}` : ''}` });
        expect(page.statusCode).toBe(200);
        const body = page.json();
        seen += body.items.length;
        cursor = body.nextCursor;
      } while (cursor);
      expect(seen).toBe(Object.keys(ids).length);
    });
  });
}
