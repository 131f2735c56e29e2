/**
 * `POST /v1/runs` over generated bodies — valid ones (from `@tunelab/contracts/testing`)
 * and the same bodies mutated (out-of-range numbers, NaN-ish strings, NUL, lone surrogates,
 * extreme dates and offsets, missing, extra and mistyped fields, prototype names, grown arrays,
 * broken JSON). For every body: no 5xx; a refusal is problem+json with the request id; the
 * contract decides which bodies are stored; a stored run reads back through every read endpoint.
 *
 * `npm test` runs a few hundred bodies with a fixed seed; `npm run fuzz` runs thousands
 * (FUZZ_RUNS, FUZZ_SEED). A failure prints fast-check's seed and path, and the shrunk body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedStatusOf, fc, runSubmissionBody } from '@tunelab/contracts/testing';
import type { RunSubmissionInput } from '@tunelab/contracts';
import { startInjectable } from './helpers.ts';
import { fuzzSettings } from '@tunelab/env/testing';

/** The seed is fixed in `npm test`; `npm run fuzz` draws one (FUZZ_SEED=random) and the test name shows it. */
const { numRuns: NUM_RUNS, seed: SEED } = fuzzSettings(400);

type Api = Awaited<ReturnType<typeof startInjectable>>;
type Accepted = {
  id: string;
  hardware: { fingerprint: string; class: string };
  samples: number;
  timeSeriesPoints: number;
};

let api: Api;
/** What the API logged at level error: a 5xx is reported with its cause. */
const serverErrors: string[] = [];
beforeAll(async () => {
  api = await startInjectable('postgresql', {
    logger: { level: 'error', stream: { write: (line: string) => serverErrors.push(line) } },
  });
});
const lastError = () => serverErrors.at(-1)?.slice(0, 2000) ?? '';
afterAll(async () => api?.close());

async function read(url: string) {
  const res = await api.app.inject({ method: 'GET', url });
  expect(res.statusCode, `GET ${url}: ${res.body.slice(0, 400)} ${res.statusCode >= 500 ? lastError() : ''}`).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.json();
}

const q = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(params).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])),
  ).toString();
/** JSON has no -0; the comparison should not care either. */
const plain = (x: number) => x + 0;

/** Every read endpoint that can show this run answers 200, and the run reads back as it was sent. */
async function readBack(run: Accepted, doc: RunSubmissionInput) {
  const detail = await read(`/v1/runs/${run.id}`);
  expect(detail.samples).toHaveLength(doc.samples.length);
  expect(detail.timeSeries).toHaveLength(doc.timeSeries?.length ?? 0);
  expect(detail.samples.map((s: { value: number }) => plain(s.value)).sort()).toEqual(
    doc.samples.map((s) => plain(s.value)).sort(),
  );
  expect(Date.parse(detail.startedAt)).toBe(Date.parse(doc.startedAt));
  expect(Date.parse(detail.finishedAt)).toBe(Date.parse(doc.finishedAt));
  expect(detail.params).toEqual(doc.params);

  const { fingerprint, class: cls } = run.hardware;
  const key = doc.scenario.key;
  const runs = await read(`/v1/runs?${q({ scenario: key, hardware: fingerprint, limit: 500 })}`);
  if (runs.nextCursor === null) expect(runs.items.map((r: { id: string }) => r.id)).toContain(run.id);
  await read(`/v1/runs?${q({ class: cls, engine: doc.database.engine })}`);
  await read(`/v1/hardware/${fingerprint}`);
  await read(`/v1/hardware/${fingerprint}/similar?${q({ scenario: key })}`);
  const hardware = await read(`/v1/hardware?${q({ class: cls, storage: doc.hardware.storage.kind, limit: 500 })}`);
  if (hardware.nextCursor === null)
    expect(hardware.items.map((h: { fingerprint: string }) => h.fingerprint)).toContain(fingerprint);

  const first = doc.samples[0];
  const metrics = [...new Set(doc.samples.map((s) => s.metric))].slice(0, 2);
  for (const metric of metrics) {
    await read(`/v1/comparisons?${q({ scenario: key, metric, hardware: fingerprint })}`);
    await read(`/v1/findings?${q({ scenario: key, metric })}`);
  }
  // The query refuses a pair of one variant with itself (a declared pair may be one).
  const pair = doc.scenario.comparisons?.find((c) => c.baseline !== c.candidate);
  await read(
    `/v1/comparisons?${q({ scenario: key, metric: first?.metric, groupBy: 'class', source: 'all', point: first?.point?.value, baseline: pair?.baseline, candidate: pair?.candidate })}`,
  );
}

/** Pages through a list endpoint to its end; every page answers 200. */
async function readAll(path: string) {
  let cursor: string | null = null;
  let items = 0;
  do {
    const page: { items: unknown[]; nextCursor: string | null } = await read(
      `${path}?${q({ limit: 500, cursor: cursor ?? undefined })}`,
    );
    items += page.items.length;
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

describe(`POST /v1/runs over ${NUM_RUNS} generated bodies (seed ${SEED}), on PostgreSQL`, () => {
  it(
    'never 5xx; refusals are problem+json with a request id; the contract decides; stored runs read back everywhere',
    { timeout: 60_000 + NUM_RUNS * 400 },
    async () => {
      /** Run ids by body: the same body again is a replay of the same run. */
      const stored = new Map<string, string>();
      const tally = { stored: 0, replayed: 0, refused: 0 };
      await fc.assert(
        fc.asyncProperty(runSubmissionBody(), async (body) => {
          const res = await api.app.inject({
            method: 'POST',
            url: '/v1/runs',
            headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
            payload: body,
          });
          const expected = expectedStatusOf(body);
          expect(res.statusCode, `${res.body.slice(0, 600)} ${lastError()}`).toBeLessThan(500);
          if (res.statusCode >= 400) {
            expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
            const problem = res.json();
            expect(problem.requestId).toEqual(expect.any(String));
            expect(problem.requestId).toBe(res.headers['x-request-id']);
            expect(problem.status).toBe(res.statusCode);
          }
          if (expected.kind === 'too-large') {
            expect(res.statusCode, res.body.slice(0, 300)).toBe(413);
            tally.refused++;
            return;
          }
          if (expected.kind === 'refused') {
            expect(
              res.statusCode,
              `the contract refuses this body (${expected.path ?? 'not JSON'}): ${res.body.slice(0, 300)}`,
            ).toBe(400);
            expect(res.json().errors.length).toBeGreaterThan(0);
            tally.refused++;
            return;
          }
          expect([200, 201], `the contract accepts this body: ${res.body.slice(0, 600)}`).toContain(res.statusCode);
          const run: Accepted = res.json();
          const before = stored.get(body);
          if (res.statusCode === 200) {
            expect(res.headers['idempotent-replayed']).toBe('true');
            if (before) expect(run.id).toBe(before);
            tally.replayed++;
            return;
          }
          expect(before, 'the same body twice is a replay').toBeUndefined();
          stored.set(body, run.id);
          tally.stored++;
          // A leading byte order mark is allowed (the UTF-8 decoder drops it), not by JSON.parse.
          await readBack(run, JSON.parse(body.replace(/^\ufeff/, '')) as RunSubmissionInput);
        }),
        { numRuns: NUM_RUNS, seed: SEED },
      );
      // The lists over everything stored, and the aggregate reads over all of it.
      expect(await readAll('/v1/runs')).toBe(tally.stored);
      await readAll('/v1/hardware');
      await read('/v1/scenarios');
      await read('/v1/comparisons');
      await read(`/v1/comparisons?${q({ groupBy: 'class', source: 'all' })}`);
      await read('/v1/findings?limit=500');
      console.log(
        `fuzz: ${NUM_RUNS} bodies, seed ${SEED}: ${tally.stored} stored, ${tally.replayed} replayed, ${tally.refused} refused`,
      );
      // Both sides of the property were exercised.
      expect(tally.stored).toBeGreaterThan(NUM_RUNS / 10);
      expect(tally.refused).toBeGreaterThan(NUM_RUNS / 10);
    },
  );
});
