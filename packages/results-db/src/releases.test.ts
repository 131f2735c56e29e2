/**
 * Changes between PostgreSQL releases (releases.ts of @tunelab/answers) over runs stored through
 * the real ingest in a real PostgreSQL results database: a 15 % change of the pair's ratio planted
 * at one release is found there, and a flat series of twenty releases yields no change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswersQuery } from '@tunelab/contracts';
import { openResultsDb, ReleaseQueryError, type ResultsDb } from './index.ts';
import { SCENARIOS } from './real-runs.ts';
import { createTestDatabase, ingestDocument, releaseRuns, RELEASE_RUNS_SCENARIO, TWENTY_RELEASES } from './testing.ts';

async function databaseWith(prefix: string, runs: readonly unknown[]) {
  const pg = await createTestDatabase(prefix);
  const db = await openResultsDb(pg.url, { scenariosDir: SCENARIOS });
  await db.migrate();
  for (const [i, doc] of runs.entries()) await ingestDocument(db, doc, `${prefix}-${i}`);
  return {
    db,
    close: async () => {
      await db.close();
      await pg.drop();
    },
  };
}

const upgrade = async (db: ResultsDb, from: string, to: string) =>
  (await db.answers(AnswersQuery.parse({ scenario: RELEASE_RUNS_SCENARIO, from, to })))!.upgrade!;

describe('a 15 % change planted at PostgreSQL 17.3', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await databaseWith(
      'tl_otava_step',
      releaseRuns({ releases: TWENTY_RELEASES, stepAt: '17.3', step: 0.15 }),
    ));
  }, 300_000);
  afterAll(async () => close?.());

  it('is the one change of the series, named at 17.3, its interval holding +15 %', async () => {
    const u = await upgrade(db, '16.4', '17.6');
    expect(u.series).toHaveLength(1);
    const s = u.series[0]!;
    expect(s.releases.map((r) => r.release)).toEqual(TWENTY_RELEASES);
    expect(s.steps).toHaveLength(19);
    expect(s.threshold.basis).toBe('class-noise');
    const reported = s.steps.filter((x) => x.reported);
    expect(reported.map((x) => [x.from, x.to])).toEqual([['17.2', '17.3']]);
    const change = reported[0]!;
    expect(change.method).toBe('paired-blocks');
    expect(change.ci95.low!).toBeLessThan(0.15);
    expect(change.ci95.high!).toBeGreaterThan(0.15);
    expect(change.adjusted).toMatchObject({ method: 'benjamini-hochberg', family: 19 });
    expect(change.adjusted.p).toBeLessThan(0.05);
    expect(change.sentence).toMatch(/^17\.3 changed the ratio by \+1\d\.\d% /);
  });

  it('upgrading 16.4 → 17.6 crosses it: the ratio moves by about 15 %, introduced by 17.3', async () => {
    const u = await upgrade(db, '16.4', '17.6');
    const p = u.pairs[0]!;
    expect(p).toMatchObject({ baseline: '1-1', candidate: '1-2' });
    expect(p.changes.map((c) => c.to)).toEqual(['17.3']);
    expect(p.step.ci95.low!).toBeLessThan(0.15);
    expect(p.step.ci95.high!).toBeGreaterThan(0.15);
    // One run in three asked for no release: it counts at the release its server reported, and says so.
    expect(p.before).toMatchObject({ release: '16.4', runs: 3, fallbackRuns: 1, blocks: 18 });
    expect(p.sentence).toMatch(/introduced by 17\.3 \(\+1\d\.\d% from 17\.2\)/);
    expect(p.sentence).toMatch(/2 of these runs did not ask for a release/);
  });

  it('upgrading within the releases before it, or after it, changes nothing', async () => {
    for (const [from, to] of [
      ['16.0', '17.2'],
      ['17.3', '17.9'],
    ] as const) {
      const p = (await upgrade(db, from, to)).pairs[0]!;
      expect(p.changes).toEqual([]);
      expect(p.step.adjusted.p).toBeGreaterThan(0.05);
    }
  });

  it('refuses a release no run measured, naming the field', async () => {
    await expect(upgrade(db, '15.4', '17.6')).rejects.toThrow(ReleaseQueryError);
    await expect(upgrade(db, '16.4', '17.10')).rejects.toMatchObject({ field: 'to' });
  });
});

describe('a flat series of twenty releases', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await databaseWith('tl_otava_flat', releaseRuns({ releases: TWENTY_RELEASES, seed: 7 })));
  }, 300_000);
  afterAll(async () => close?.());

  it('yields no change', async () => {
    const u = await upgrade(db, '16.0', '17.9');
    const s = u.series[0]!;
    expect(s.steps).toHaveLength(19);
    expect(s.steps.filter((x) => x.reported)).toEqual([]);
    expect(u.pairs[0]!.changes).toEqual([]);
    expect(u.pairs[0]!.sentence).toMatch(/no change between adjacent releases on the way is above the noise/);
  });
});

describe('a 15 % change over time on one release (the machine, not the release)', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  beforeAll(async () => {
    // Twelve runs on 17.2, received in this order: six at the pair's ratio, six 15 % above it; and
    // three on 17.3, so the answer has a release line.
    const before = releaseRuns({ releases: ['17.2'], runsPerRelease: 6, seed: 11 });
    const after = releaseRuns({ releases: ['17.2'], runsPerRelease: 6, step: 0.15, stepAt: '17.2', seed: 12 });
    const next = releaseRuns({ releases: ['17.3'], seed: 13 });
    ({ db, close } = await databaseWith('tl_otava_drift', [...before, ...after, ...next]));
  }, 300_000);
  afterAll(async () => close?.());

  it('is found on that release at the first run after it, and not on a release of three runs', async () => {
    const line = (await db.answers(AnswersQuery.parse({ scenario: RELEASE_RUNS_SCENARIO })))!.releaseLine!;
    const points = line.series[0]!.releases;
    const on172 = points.find((p) => p.release === '17.2')!;
    expect(on172.drift!.runs).toBe(12);
    expect(on172.drift!.changes).toHaveLength(1);
    expect(on172.drift!.changes[0]!.runsBefore).toBe(6);
    expect(on172.drift!.changes[0]!.change).toBeGreaterThan(0.1);
    expect(on172.drift!.changes[0]!.change).toBeLessThan(0.2);
    expect(on172.drift!.sentence).toMatch(
      /changed over time on this release: .* — the machine or its kernel, not the release$/,
    );
    expect(points.find((p) => p.release === '17.3')!.drift).toBeNull();
  });
});
