/**
 * GET /v1/answers?at=rows:N over real `tunelab run vacuum-index-cleanup` runs of the local
 * PostgreSQL 15 at four table sizes (tests/fixtures/real-runs/scale/): answered inside the
 * measured range, refused far outside it, and a 400 naming `at` for a query it cannot answer.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem, ScenarioAnswers } from '@tunelab/contracts';
import { answerCurvesAtScale } from '@tunelab/answers';
import { startApi } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const DIR = new URL('../../../tests/fixtures/real-runs/scale/', import.meta.url);
const RUNS = readdirSync(DIR)
  .filter((f) => f.startsWith('vacuum-index-cleanup-rows-'))
  .map((f) => (JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as { submission: unknown }).submission);
/** A real recovery-init-sync run: the table count swept over 3,000, 10,000 and 30,000 in one run. */
const RECOVERY = (
  JSON.parse(
    readFileSync(new URL('../../../tests/fixtures/real-runs/recovery-init-sync.json', import.meta.url), 'utf8'),
  ) as { submission: unknown }
).submission;

describe('answers at the user’s scale, over real runs at four table sizes', () => {
  let url: string;
  let close: () => Promise<void>;
  const get = async <T>(path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as T };
  };

  beforeAll(async () => {
    const api = await startApi({}, 'tl_answers_scale', {
      scenariosDir: SCENARIOS,
      runs: [...RUNS, RECOVERY].map((body, i) => ({ key: `scale-${i}`, body })),
    });
    url = api.url;
    close = api.close;
  });
  afterAll(async () => close?.());

  it('holds four sizes of one class and major', () => {
    expect(RUNS).toHaveLength(4);
  });

  it('answers inside the measured range with both intervals, and the fit’s held-out errors', async () => {
    const { status, body } = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&at=rows:120000');
    expect(status).toBe(200);
    const at = body.atScale!;
    expect(at).toMatchObject({ param: 'rows', value: 120_000, metric: 'duration', unit: 's', limit: 4, minScales: 3 });
    expect(at.groups).toHaveLength(1);
    expect(at.groups[0]).toMatchObject({ engine: 'postgresql', major: 15, runs: 4 });
    for (const pair of at.groups[0]!.pairs) {
      expect(pair.status).toBe('answered');
      expect(pair.extrapolation).toBe(1);
      expect(pair.ci95!.low!).toBeGreaterThan(0);
      expect(pair.pi95!.low!).toBeLessThanOrEqual(pair.ci95!.low!);
      expect(pair.pi95!.high!).toBeGreaterThanOrEqual(pair.ci95!.high!);
      expect(pair.ratio!).toBeGreaterThan(pair.ci95!.low!);
      expect(pair.sentence).toMatch(/^At 120,000 rows, fitted from 25,000–200,000 rows \(4 sizes, n = 12 \+ 12\): /);
      expect(pair.fits.map((f) => f.scales)).toEqual([
        [25_000, 50_000, 100_000, 200_000],
        [25_000, 50_000, 100_000, 200_000],
      ]);
      expect(pair.fits.every((f) => f.heldOut.length === 4)).toBe(true);
      expect(pair.heldOutMaxAbsErrorPct).not.toBeNull();
      // Every variant's time grows with the table.
      expect(pair.fits.every((f) => f.slope > 0)).toBe(true);
    }
  });

  it('refuses 40 million rows with the measured range and the command that measures it', async () => {
    const { status, body } = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&at=rows:40000000');
    expect(status).toBe(200);
    const pair = body.atScale!.groups[0]!.pairs[0]!;
    expect(pair).toMatchObject({ status: 'refused', ratio: null, ci95: null, extrapolation: 200 });
    expect(pair.sentence).toBe(
      'Measured from 25,000–200,000 rows; 40,000,000 is 200× beyond the largest (answers go at most 4× outside the measured range). Measure it: tunelab run vacuum-index-cleanup --param rows=40000000 --server 15',
    );
  });

  it('serves the fitted curves `atScale` is computed from, which answer any scale the same way without the samples', async () => {
    const { body: plain } = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup');
    const curves = plain.scaleCurves!;
    expect(curves).toMatchObject({ scenario: 'vacuum-index-cleanup', param: 'rows', limit: 4, minScales: 3 });
    expect(curves.groups).toHaveLength(1);
    expect(curves.groups[0]).toMatchObject({ server: 'PostgreSQL 15', serverFlags: '--server 15' });
    expect(curves.groups[0]!.curves.every((c) => c.line !== null && c.scales.length === 4)).toBe(true);
    for (const value of [120_000, 40_000_000, 3_000])
      expect(answerCurvesAtScale(curves, value)).toEqual(
        (await get<ScenarioAnswers>(`/v1/answers?scenario=vacuum-index-cleanup&at=rows:${value}`)).body.atScale,
      );
    // A scenario without a scale parameter has none.
    expect(
      (await get<ScenarioAnswers>('/v1/answers?scenario=fillfactor-hot-updates')).body.scaleCurves,
    ).toBeUndefined();
  });

  it.each([
    ['at=tables:5', /scale parameter is rows, not tables/],
    ['at=rows:0', /PARAM:VALUE with a positive number/],
    ['at=rows:many', /PARAM:VALUE with a positive number/],
    ['at=rows', /PARAM:VALUE with a positive number/],
    // Doubles no fit's arithmetic survives: a 500 for every one of them before.
    ['at=rows:1e309', /positive number up to 1e\+15/],
    ['at=rows:9e999', /positive number up to 1e\+15/],
    ['at=rows:1e308', /positive number up to 1e\+15/],
    ['at=rows:1e16', /positive number up to 1e\+15/],
  ])('answers %s with a 400 naming at', async (query, message) => {
    const { status, type, body } = await get<Problem>(`/v1/answers?scenario=vacuum-index-cleanup&${query}`);
    expect(status).toBe(400);
    expect(type).toMatch(/application\/problem\+json/);
    expect(body.errors!.map((e) => e.path)).toEqual(['querystring:/at']);
    expect(JSON.stringify(body)).toMatch(message);
  });

  it('answers at a table count from the swept points of one run', async () => {
    const { status, body } = await get<ScenarioAnswers>('/v1/answers?scenario=recovery-init-sync&at=tables:20000');
    expect(status).toBe(200);
    const pair = body.atScale!.groups[0]!.pairs[0]!;
    expect(pair).toMatchObject({ baseline: 'fsync', candidate: 'syncfs', status: 'answered' });
    expect(pair.fits.map((f) => f.scales)).toEqual([
      [3000, 10_000, 30_000],
      [3000, 10_000, 30_000],
    ]);
    // syncfs took 8–333 ms where fsync took 4.9–88 s: far below 1 at 20,000 tables.
    expect(pair.ci95!.high!).toBeLessThan(0.1);
    expect(pair.sentence).toMatch(/^At 20,000 tables, fitted from 3,000–30,000 tables \(3 sizes, n = 9 \+ 9\): /);
  });

  it('answers a scenario without a scale parameter with a 400 naming at', async () => {
    const { status, body } = await get<Problem>('/v1/answers?scenario=fillfactor-hot-updates&at=rows:5');
    expect(status).toBe(400);
    expect(body.errors!.map((e) => e.path)).toEqual(['querystring:/at']);
    expect(body.detail).toMatch(/declares no scale parameter/);
  });
});
