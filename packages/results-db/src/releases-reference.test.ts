/**
 * GET /v1/answers?from=&to= checked against an independent recomputation: runs on six releases
 * (scripts/release-reference.py draws them, a +15 % step of the pair's ratio at 16.1) go through
 * the real ingest into a real PostgreSQL results database, and every figure of the upgrade answer —
 * each release's ratio and interval, each adjacent step's change, interval, p and BH-adjusted p, each
 * upgrade's direct step — is compared with SciPy's (release-reference-values.json).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswersQuery, compareReleases } from '@tunelab/contracts';
import { openResultsDb, type ResultsDb } from './index.ts';
import { SCENARIOS } from './real-runs.ts';
import { createTestDatabase, ingestDocument, releaseSubmission, RELEASE_RUNS_SCENARIO } from './testing.ts';

type Step = {
  from: string;
  to: string;
  change: number;
  low: number;
  high: number;
  p: number;
  adjustedP: number;
  level: number;
  adjustedLow: number;
  adjustedHigh: number;
};
type Reference = {
  stepAt: string;
  runs: { release: string; blocks: [number, number][] }[];
  points: { release: string; blocks: number; ratio: number; low: number; high: number }[];
  steps: Step[];
  upgrades: Step[];
};

const REF = JSON.parse(readFileSync(new URL('./release-reference-values.json', import.meta.url), 'utf8')) as Reference;

/** Equal to a relative tolerance: the p-values span 1e-9 to 1. */
const close = (actual: number | null | undefined, expected: number, rel = 1e-6) =>
  expect(Math.abs((actual ?? Number.NaN) - expected)).toBeLessThanOrEqual(rel * Math.max(Math.abs(expected), 1e-12));

let db: ResultsDb;
let drop: () => Promise<void>;

beforeAll(async () => {
  const pg = await createTestDatabase('tl_release_reference');
  drop = pg.drop;
  db = await openResultsDb(pg.url, { scenariosDir: SCENARIOS });
  await db.migrate();
  for (const [i, run] of REF.runs.entries())
    await ingestDocument(db, releaseSubmission(run.release, run.blocks), `release-reference-${i}`);
}, 300_000);
afterAll(async () => {
  await db?.close();
  await drop?.();
});

const upgrade = async (from: string, to: string) =>
  (await db.answers(AnswersQuery.parse({ scenario: RELEASE_RUNS_SCENARIO, from, to })))!.upgrade!;

describe('the release answer against SciPy', () => {
  it('every release’s ratio and its always-valid interval', async () => {
    const [series] = (await upgrade('15.3', '17.0')).series;
    expect(series!.releases.map((r) => r.release)).toEqual(REF.points.map((p) => p.release));
    for (const [i, p] of REF.points.entries()) {
      const got = series!.releases[i]!;
      expect(got.blocks).toBe(p.blocks);
      close(got.ratio, p.ratio, 1e-9);
      close(got.ratioCi.low, p.low);
      close(got.ratioCi.high, p.high);
    }
  });

  it('every adjacent step: change, interval, p and BH-adjusted p; reported where adjusted and above the noise', async () => {
    const [series] = (await upgrade('15.3', '17.0')).series;
    expect(series!.steps.map((s) => [s.from, s.to])).toEqual(REF.steps.map((s) => [s.from, s.to]));
    for (const [i, want] of REF.steps.entries()) {
      const got = series!.steps[i]!;
      close(got.change, want.change, 1e-9);
      close(got.ci95.low, want.low);
      close(got.ci95.high, want.high);
      close(got.p, want.p);
      close(got.adjusted.p, want.adjustedP);
      expect(got.adjusted).toMatchObject({ method: 'benjamini-hochberg', family: REF.steps.length });
      close(got.adjusted.level, want.level, 1e-12);
      close(got.adjusted.ci.low, want.adjustedLow);
      close(got.adjusted.ci.high, want.adjustedHigh);
      // The adjusted interval excludes 0 exactly when the step is significant after the adjustment.
      const excludes0 = got.adjusted.ci.low! > 0 || got.adjusted.ci.high! < 0;
      expect(excludes0).toBe(want.adjustedP <= 0.05);
      expect(got.reported).toBe(want.adjustedP <= 0.05 && Math.abs(want.change) > series!.threshold.value);
    }
    const planted = series!.steps.find((s) => s.to === REF.stepAt)!;
    expect(planted.reported).toBe(true);
  });

  it('each upgrade’s before, after and direct step, and the reported changes on its way', async () => {
    for (const want of REF.upgrades) {
      const u = await upgrade(want.from, want.to);
      expect(u.pairs).toHaveLength(1);
      const pair = u.pairs[0]!;
      const ref = (release: string) => REF.points.find((p) => p.release === release)!;
      close(pair.before.ratio, ref(want.from).ratio, 1e-9);
      close(pair.after.ratio, ref(want.to).ratio, 1e-9);
      close(pair.step.change, want.change, 1e-9);
      close(pair.step.ci95.low, want.low);
      close(pair.step.ci95.high, want.high);
      close(pair.step.p, want.p);
      // One pair: the family of the upgrade's direct step is one, its adjusted p its p and its
      // adjusted interval the 95 % one.
      close(pair.step.adjusted.p, want.p);
      close(pair.step.adjusted.level, 0.95, 1e-12);
      close(pair.step.adjusted.ci.low, want.adjustedLow);
      close(pair.step.adjusted.ci.high, want.adjustedHigh);
      const series = u.series[0]!;
      const onTheWay = series.steps.filter(
        (s) => s.reported && compareReleases(s.to, want.from) > 0 && compareReleases(s.to, want.to) <= 0,
      );
      expect(pair.changes.map((c) => c.to)).toEqual(onTheWay.map((s) => s.to));
    }
  });
});
