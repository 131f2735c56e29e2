/**
 * Changes over time within one release as events (kind `over-time`), over runs stored through the
 * real ingest in a real PostgreSQL results database: twelve runs on 17.2, the pair's ratio 15 %
 * higher from the seventh on, are one `new` event naming the seventh run and its date; a thirteenth
 * run keeps it one event (same id, first sighting); an operator acknowledges it; a flat series has
 * none. And the migration that adds kinds keeps the events a database already holds (which read
 * as none before it is applied).
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverTimeEvent, ReleaseEvent } from '@tunelab/contracts';
import { applyMigrations, openResultsDb, readMigrations, type ResultsDb } from './index.ts';
import { MIGRATIONS_DIR } from './migrate.ts';
import { SCENARIOS } from './real-runs.ts';
import { createTestDatabase, ingestDocument, releaseRuns, RELEASE_RUNS_SCENARIO, scriptsOf } from './testing.ts';

async function databaseWith(prefix: string, runs: readonly unknown[]) {
  const database = await createTestDatabase(prefix);
  const db = await openResultsDb(database.url, { scenariosDir: SCENARIOS });
  await db.migrate();
  for (const [i, doc] of runs.entries()) await ingestDocument(db, doc, `${prefix}-${i}`);
  return { db, url: database.url, close: async () => (await db.close(), await database.drop()) };
}

const overTime = (items: readonly ReleaseEvent[]) => items.filter((e): e is OverTimeEvent => e.kind === 'over-time');

/** The runs of the scenario on `release` in received order, as the database holds them. */
async function runsOn(url: string, release: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ id: string; received_at: Date }>(
      `SELECT r.id::text AS id, r.received_at FROM runs r
         JOIN database_environments d ON d.id = r.database_environment_id
       WHERE d.major || '.' || d.minor = $1 ORDER BY r.received_at, r.id`,
      [release],
    );
    return r.rows;
  } finally {
    await c.end();
  }
}

async function setReceivedAt(url: string, run: string, at: Date) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`UPDATE runs SET received_at = $2 WHERE id = $1`, [run, at]);
  } finally {
    await c.end();
  }
}

// Six runs on 17.2 at the pair's ratio, six 15 % above it, then three on 17.3 (so there is a release line).
const before = releaseRuns({ releases: ['17.2'], runsPerRelease: 6, seed: 11 });
const after = releaseRuns({ releases: ['17.2'], runsPerRelease: 7, step: 0.15, stepAt: '17.2', seed: 12 });
const next = releaseRuns({ releases: ['17.3'], seed: 13 });

describe('a 15 % step within 17.2 after six runs', () => {
  let db: ResultsDb;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, url, close } = await databaseWith('tl_drift_events', [...before, ...after.slice(0, 6), ...next]));
  }, 300_000);
  afterAll(async () => close?.());

  it("is recorded by the kept answers' recomputation the ingests queue, before anyone lists the events", async () => {
    const kinds = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return (await c.query<{ kind: string }>('SELECT kind FROM release_events ORDER BY kind')).rows.map(
          (r) => r.kind,
        );
      } finally {
        await c.end();
      }
    };
    expect(await kinds()).toEqual([]);
    const worker = db.openKeptAnswers();
    try {
      await worker.refresh(RELEASE_RUNS_SCENARIO);
    } finally {
      await worker.stop();
    }
    expect(await kinds()).toContain('over-time');
  }, 300_000);

  it('is one new over-time event starting at the seventh run of 17.2, with its date and size', async () => {
    const { items } = await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO, kind: 'over-time' });
    expect(items).toHaveLength(1);
    const [e] = overTime(items);
    const runs = await runsOn(url, '17.2');
    expect(runs).toHaveLength(12);
    expect(e).toMatchObject({
      kind: 'over-time',
      release: '17.2',
      run: runs[6]!.id,
      receivedAt: runs[6]!.received_at.toISOString(),
      runsBefore: 6,
      nth: 1,
      baseline: '1-1',
      candidate: '1-2',
      state: 'new',
      current: true,
    });
    expect(e!.change).toBeGreaterThan(0.1);
    expect(e!.change).toBeLessThan(0.2);
    expect(e!.p).toBeLessThan(0.001);
    expect(e!.sentence).toMatch(/^On 17\.2, 1-2 \/ 1-1 changed over time by \+1\d\.\d% .* after 6 runs/);
    // 17.3 measured at the ratio before the step is a change from 17.2's runs pooled: an event of the
    // other kind, which the kind filter keeps apart.
    const between = (await db.releaseEvents({ kind: 'between-releases' })).items;
    expect(between.map((x) => x.kind === 'between-releases' && [x.from, x.to])).toEqual([['17.2', '17.3']]);
    expect((await db.releaseEvents()).items.map((x) => x.id).sort()).toEqual([e!.id, between[0]!.id].sort());
  });

  it('stays one event, the same id and first sighting, when a thirteenth run is computed with it', async () => {
    const [first] = (await db.releaseEvents({ kind: 'over-time' })).items;
    await ingestDocument(db, after[6], 'tl_drift_events-late');
    const items = overTime((await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO })).items);
    expect(items).toEqual([
      {
        ...first,
        runsBefore: 6,
        change: items[0]!.change,
        after: items[0]!.after,
        p: items[0]!.p,
        sentence: items[0]!.sentence,
        lastSeenAt: items[0]!.lastSeenAt,
      },
    ]);
  });

  it('stays one event when more data moves the change by one run: its start run and date updated in place', async () => {
    const [first] = overTime((await db.releaseEvents({ kind: 'over-time' })).items);
    const runs = await runsOn(url, '17.2');
    // The first run of the step received before every other: one odd run at the start (no change of
    // its own), and the step now found one run later, at the next run.
    await setReceivedAt(url, runs[6]!.id, new Date(runs[0]!.received_at.getTime() - 60_000));
    const items = overTime((await db.releaseEvents({ kind: 'over-time' })).items);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      id: first!.id,
      firstSeenAt: first!.firstSeenAt,
      run: runs[7]!.id,
      receivedAt: runs[7]!.received_at.toISOString(),
      runsBefore: 7,
      current: true,
    });
  });

  it('an operator acknowledges it with a note', async () => {
    const [e] = (await db.releaseEvents({ kind: 'over-time' })).items;
    const operator = await db.createRunner('ops-drift', { kind: 'operator' });
    const acked = await db.acknowledgeReleaseEvent(e!.id, { operatorId: operator.id, note: 'host moved racks' });
    expect(acked).toMatchObject({ id: e!.id, kind: 'over-time', state: 'acknowledged', reason: 'host moved racks' });
    expect((await db.releaseEvents({ state: 'new', kind: 'over-time' })).items).toEqual([]);
    expect((await db.releaseEvents({ state: 'acknowledged', kind: 'over-time' })).items.map((x) => x.id)).toEqual([
      e!.id,
    ]);
  });
});

describe('a flat series of twelve runs on 17.2', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await databaseWith('tl_drift_flat', [
      ...releaseRuns({ releases: ['17.2'], runsPerRelease: 12, seed: 21 }),
      ...next,
    ]));
  }, 300_000);
  afterAll(async () => close?.());

  it('has no event of either kind', async () => {
    expect((await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO })).items).toEqual([]);
  });
});

describe('the migration adding kinds, on a database holding events', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dir: string;
  beforeAll(async () => {
    database = await createTestDatabase('tl_event_kind');
    dir = await mkdtemp(join(tmpdir(), 'tl_migrations-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('makes every event there a change between releases, read as before', async () => {
    const all = await readMigrations();
    const kinds = all.findIndex((m) => m.name.endsWith('_release_event_kind'));
    expect(kinds).toBeGreaterThan(0);
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
    await rm(join(dir, all[kinds]!.name), { recursive: true });
    const db = await openResultsDb(database.url, { scenariosDir: SCENARIOS });
    try {
      await applyMigrations(scriptsOf(db), dir);
      await scriptsOf(db).executeScript(`INSERT INTO release_events
        (id, key, scenario_key, scenario_version, hardware_class, engine, params, metric, baseline, candidate,
         from_release, to_release, change, ci_low, ci_high, p_adjusted, sentence, state)
        VALUES ('00000000-0000-4000-8000-0000000000e1', repeat('k', 64), 'old-scenario', repeat('e', 64), '2 cores',
         'postgresql', '{}', 'duration', '1-1', '1-2', '17.2', '17.3', 0.15, 0.1, 0.2, 0.01,
         '17.3 changed the ratio by +15.0%', 'new')`);
      // Read before the migration (a site build does not migrate): no events yet, not an error.
      expect(await db.releaseEvents({ scenario: 'old-scenario' })).toEqual({ items: [] });
      expect((await db.migrate()).applied).toEqual([all[kinds]!.name]);
      const { items } = await db.releaseEvents({ scenario: 'old-scenario' });
      expect(items).toMatchObject([
        {
          id: '00000000-0000-4000-8000-0000000000e1',
          kind: 'between-releases',
          from: '17.2',
          to: '17.3',
          adjustedP: 0.01,
        },
      ]);
      // A row of one kind with the other kind's columns is refused.
      await expect(
        scriptsOf(db).executeScript(`UPDATE release_events SET kind = 'over-time' WHERE scenario_key = 'old-scenario'`),
      ).rejects.toThrow(/release_events_kind_check/);
    } finally {
      await db.close();
    }
  });
});
