/**
 * GET /v1/answers?from=…&to=…: what upgrading between two PostgreSQL releases changes, over runs
 * POSTed through /v1/runs into a real PostgreSQL results database — vacuum-index-cleanup's pair
 * 1-1 → 1-2 measured in paired blocks on six releases, its ratio 15 % higher from 17.3 on. The
 * figures are checked against a recomputation from the submitted samples in this file: each
 * release's block log ratios ln(1-2 / 1-1), their geometric mean, and Welch's test between the two
 * releases (`welchTTest` of @tunelab/stats on the raw log ratios, checked against SciPy there).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem, ScenarioAnswers } from '@tunelab/contracts';
import { releaseRuns } from '@tunelab/results-db/testing';
import { welchTTest } from '@tunelab/stats';
import { startApi } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const RELEASES = ['16.4', '16.8', '17.0', '17.3', '17.4', '17.6'];
const RUNS = releaseRuns({ releases: RELEASES, stepAt: '17.3', step: 0.15, seed: 11 });

type Doc = {
  database: { major: number; minor: number };
  samples: { variant: string; repetition: number; value: number }[];
};

/** Every block's ln(1-2 / 1-1) of the runs on `release`, straight from the submissions. */
function logRatios(release: string): number[] {
  return (RUNS as Doc[])
    .filter((r) => `${r.database.major}.${r.database.minor}` === release)
    .flatMap((r) => {
      const of = (variant: string, repetition: number) =>
        r.samples.find((s) => s.variant === variant && s.repetition === repetition)!.value;
      const blocks = [...new Set(r.samples.map((s) => s.repetition))];
      return blocks.map((b) => Math.log(of('1-2', b) / of('1-1', b)));
    });
}
const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('GET /v1/answers from one PostgreSQL release to another', () => {
  let url: string;
  let close: () => Promise<void>;
  const get = async <T>(path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as T };
  };

  beforeAll(async () => {
    const api = await startApi({}, 'tl_otava_upgrade_api', {
      scenariosDir: SCENARIOS,
      runs: RUNS.map((body, i) => ({ key: `upgrade-${i}`, body })),
    });
    url = api.url;
    close = api.close;
  }, 300_000);
  afterAll(async () => close?.());

  it('answers 16.4 → 17.6 with the ratios, the change and its test as the samples give them', async () => {
    const { status, body } = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&from=16.4&to=17.6');
    expect(status).toBe(200);
    const u = body.upgrade!;
    expect(u).toMatchObject({ from: '16.4', to: '17.6', metric: 'duration' });
    expect(u.pairs).toHaveLength(1);
    const p = u.pairs[0]!;
    const before = logRatios('16.4');
    const after = logRatios('17.6');
    expect(before).toHaveLength(18);
    expect(p.before.blocks).toBe(18);
    expect(p.before.ratio).toBeCloseTo(Math.exp(meanOf(before)), 9);
    expect(p.after.ratio).toBeCloseTo(Math.exp(meanOf(after)), 9);
    expect(p.step.change).toBeCloseTo(Math.exp(meanOf(after) - meanOf(before)) - 1, 9);
    const welch = welchTTest(after, before);
    expect(p.step.p).toBeCloseTo(welch.p, 12);
    expect(p.step.change).toBeGreaterThan(0.1);
    expect(p.step.change).toBeLessThan(0.2);
    // One test in the upgrade's family: the adjusted p is the raw one, its interval the 95 % one.
    expect(p.step.adjusted).toEqual({
      method: 'benjamini-hochberg',
      p: p.step.p,
      family: 1,
      ci: p.step.ci95,
      level: 0.95,
    });
    expect(p.changes.map((c) => [c.from, c.to])).toEqual([['17.0', '17.3']]);
    expect(p.sentence).toMatch(/^On .*, upgrading PostgreSQL 16\.4 → 17\.6 moves 1-2 vs 1-1 from 0\.\d{3}× /);
    expect(p.sentence).toMatch(/introduced by 17\.3/);
  });

  it('names every adjacent step of the series, BH-adjusted over the five, the change at 17.3 only', async () => {
    const { body } = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&from=16.4&to=16.8');
    const s = body.upgrade!.series[0]!;
    expect(s.releases.map((r) => r.release)).toEqual(RELEASES);
    expect(s.steps.map((x) => x.adjusted.family)).toEqual([5, 5, 5, 5, 5]);
    const at173 = s.steps.find((x) => x.to === '17.3')!;
    const d0 = logRatios('17.0');
    const d3 = logRatios('17.3');
    expect(at173.change).toBeCloseTo(Math.exp(meanOf(d3) - meanOf(d0)) - 1, 9);
    expect(at173.p).toBeCloseTo(welchTTest(d3, d0).p, 12);
    expect(s.steps.filter((x) => x.reported).map((x) => x.to)).toEqual(['17.3']);
    expect(body.upgrade!.pairs[0]!.changes).toEqual([]);
  });

  it('leaves the answers without from and to as they were', async () => {
    const { body } = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup');
    expect(body.upgrade).toBeUndefined();
  });

  it.each([
    ['from=15.4&to=17.6', 'querystring:/from', /no measured run of vacuum-index-cleanup on PostgreSQL 15\.4/],
    ['from=16.4&to=17.5', 'querystring:/to', /PostgreSQL 17\.5 .*measured: 16\.4, 16\.8, 17\.0, 17\.3, 17\.4, 17\.6/],
    ['from=17.6&to=16.4', 'querystring:/to', /must not be a release before from/],
    ['from=17&to=17.6', 'querystring:/from', /MAJOR\.MINOR/],
    ['from=16.4', 'querystring:/to', /from and to go together/],
  ])('answers %s with a 400 problem naming the field', async (query, path, message) => {
    const { status, type, body } = await get<Problem>(`/v1/answers?scenario=vacuum-index-cleanup&${query}`);
    expect(status).toBe(400);
    expect(type).toMatch(/application\/problem\+json/);
    expect(body.errors!.map((e) => e.path)).toEqual([path]);
    expect(JSON.stringify(body)).toMatch(message);
  });
});
