/**
 * The site validates run details with the contract compiled by zod (source.ts, RunDetailCompiled).
 * Compiling must change no verdict: over the real runs and the published figures as the results
 * database gives them, and over those details mutated at a random field (a wrong type, a value out
 * of range, a field removed or added), the compiled schema accepts exactly what RunDetail accepts
 * and returns the same value, or refuses with the same issues.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { linkRun, RunDetail } from '@tunelab/contracts';
import { fc } from '@tunelab/contracts/testing';
import { fuzzSettings } from '@tunelab/env/testing';
import { databaseWithRealRuns } from '@tunelab/results-db/real-runs';
import { RunDetailCompiled } from './source.ts';

const { numRuns: NUM_RUNS, seed: SEED } = fuzzSettings(600);

let details: unknown[] = [];
let close: (() => Promise<void>) | undefined;
beforeAll(async () => {
  const real = await databaseWithRealRuns('site_compiled');
  close = real.close;
  const { items } = await real.db.listRuns({ limit: 100, source: 'all' });
  details = (await real.db.getRuns(items.map((r) => r.id))).map((r) => JSON.parse(JSON.stringify(linkRun(r))));
}, 120_000);
afterAll(async () => close?.());

/** Every path into a JSON value (objects' keys, arrays' indices), the root left out. */
function pathsOf(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...at, i], ...pathsOf(x, [...at, i])]);
  if (v !== null && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [[...at, k], ...pathsOf(x, [...at, k])]);
  return [];
}

const odd = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, -0, 1e308 * 10, '', ' ', 'x'.repeat(300), null, {}, []),
);

it('holds the real details valid, with the same value', () => {
  expect(details.length).toBeGreaterThanOrEqual(5);
  for (const d of details) {
    const plain = RunDetail.safeParse(d);
    expect(plain.success, JSON.stringify(plain.error?.issues)).toBe(true);
    expect(RunDetailCompiled.safeParse(d)).toEqual(plain);
  }
});

it(`gives RunDetail's verdict and value on ${NUM_RUNS} mutated details (seed ${SEED})`, () => {
  expect(RunDetailCompiled).not.toBe(RunDetail); // z.compile hands back the schema when it cannot compile it
  let refused = 0;
  fc.assert(
    fc.property(fc.nat(), fc.nat(), fc.constantFrom('set', 'delete', 'add'), odd, (which, where, how, value) => {
      const doc = structuredClone(details[which % details.length]) as Record<string, unknown>;
      const paths = pathsOf(doc);
      const path = paths[where % paths.length] ?? [];
      let parent: Record<string | number, unknown> = doc;
      for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
      const last = path.at(-1) as string | number;
      if (how === 'set') parent[last] = value;
      else if (how === 'delete') delete parent[last];
      else if (parent[last] !== null && typeof parent[last] === 'object' && !Array.isArray(parent[last]))
        (parent[last] as Record<string, unknown>).unexpectedKey = value;
      else parent[last] = value;
      const plain = RunDetail.safeParse(doc);
      const compiled = RunDetailCompiled.safeParse(doc);
      expect(compiled.success).toBe(plain.success);
      if (plain.success) expect(compiled.data).toEqual(plain.data);
      else {
        refused++;
        expect(compiled.error?.issues).toEqual(plain.error.issues);
      }
    }),
    { numRuns: NUM_RUNS, seed: SEED },
  );
  // Both sides of the contract were exercised.
  expect(refused).toBeGreaterThan(NUM_RUNS / 10);
  expect(refused).toBeLessThan(NUM_RUNS);
});
