/**
 * Changes between releases as events, over runs stored through the real ingest in a real PostgreSQL
 * results database: a change is recorded once (the same id and first sighting however often the
 * events are read), `new` within a major and `expected` at a new major; an operator's acknowledgement
 * keeps its note; the answers carry the release line only where two releases or more are measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswersQuery } from '@tunelab/contracts';
import { openResultsDb, type ResultsDb } from './index.ts';
import { SCENARIOS } from './real-runs.ts';
import { createTestDatabase, ingestDocument, releaseRuns, RELEASE_RUNS_SCENARIO } from './testing.ts';

async function databaseWith(prefix: string, runs: readonly unknown[]) {
  const pg = await createTestDatabase(prefix);
  const db = await openResultsDb(pg.url, { scenariosDir: SCENARIOS });
  await db.migrate();
  for (const [i, doc] of runs.entries()) await ingestDocument(db, doc, `${prefix}-${i}`);
  return { db, close: async () => (await db.close(), await pg.drop()) };
}

const WITHIN = ['17.0', '17.1', '17.2', '17.3', '17.4', '17.5'];
const ACROSS = ['16.7', '16.8', '16.9', '17.0', '17.1', '17.2'];

describe('a +15 % change at 17.3', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await databaseWith(
      'tl_release_events',
      releaseRuns({ releases: WITHIN, stepAt: '17.3', step: 0.15 }),
    ));
  }, 300_000);
  afterAll(async () => close?.());

  it('is one new event, recorded once however often the events are read', async () => {
    const first = await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO });
    expect(first.items).toHaveLength(1);
    const e = first.items[0]!;
    if (e.kind !== 'between-releases') throw new Error(`a ${e.kind} event`);
    expect(e).toMatchObject({
      scenario: RELEASE_RUNS_SCENARIO,
      from: '17.2',
      to: '17.3',
      baseline: '1-1',
      candidate: '1-2',
      metric: 'duration',
      state: 'new',
      reason: null,
      current: true,
      acknowledgedAt: null,
    });
    expect(e.change).toBeGreaterThan(0.1);
    expect(e.adjustedP).toBeLessThan(0.05);
    const again = await db.releaseEvents();
    expect(again.items.filter((x) => x.scenario === RELEASE_RUNS_SCENARIO)).toEqual([
      { ...e, lastSeenAt: again.items[0]!.lastSeenAt },
    ]);
  });

  it('is what a site build records from its comparison inputs, without reading every sample again', async () => {
    const read = await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO });
    const inputs = await db.loadInputs(['duration']);
    const fromInputs = await db.releaseEventsFromInputs(inputs, { scenario: RELEASE_RUNS_SCENARIO });
    expect(fromInputs.items).toHaveLength(1);
    expect(fromInputs.items).toEqual(read.items.map((e, i) => ({ ...e, lastSeenAt: fromInputs.items[i]!.lastSeenAt })));
    // Inputs without the runs of the change report none: the events come from them, not from the database.
    const none = await db.loadInputs(['duration'], []);
    expect((await db.releaseEventsFromInputs(none, { scenario: RELEASE_RUNS_SCENARIO })).items).toEqual([
      { ...fromInputs.items[0]!, current: false },
    ]);
    // Read from the database again, the change is current again.
    expect((await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO })).items[0]!.current).toBe(true);
  });

  it('an operator acknowledges it with a note; the state filter finds it there and not among the new', async () => {
    const [e] = (await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO })).items;
    const operator = await db.createRunner('ops-events', { kind: 'operator' });
    const acked = await db.acknowledgeReleaseEvent(e!.id, { operatorId: operator.id, note: 'known: see 17.3 notes' });
    expect(acked).toMatchObject({ id: e!.id, state: 'acknowledged', reason: 'known: see 17.3 notes' });
    expect(acked!.acknowledgedAt).not.toBeNull();
    expect((await db.releaseEvents({ state: 'new' })).items).toEqual([]);
    const listed = await db.releaseEvents({ state: 'acknowledged' });
    expect(listed.items.map((x) => x.id)).toEqual([e!.id]);
    // A later reading refreshes the figures, never the state.
    expect(listed.items[0]!.state).toBe('acknowledged');
    expect(await db.acknowledgeReleaseEvent('00000000-0000-4000-8000-000000000000', { operatorId: operator.id })).toBe(
      null,
    );
  });

  it('the answers carry the release line of the six releases with the change reported at 17.3', async () => {
    const a = (await db.answers(AnswersQuery.parse({ scenario: RELEASE_RUNS_SCENARIO })))!;
    expect(a.releaseLine!.releases).toEqual(WITHIN);
    const [series] = a.releaseLine!.series;
    expect(series!.steps.filter((s) => s.reported).map((s) => s.to)).toEqual(['17.3']);
  });

  it('a current kept answer recorded the events: listing them computes nothing until a run changes the scenario', async () => {
    const q = AnswersQuery.parse({ scenario: RELEASE_RUNS_SCENARIO });
    expect(await db.computeKeptAnswer(q)).not.toBeNull();
    const [recorded] = (await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO })).items;
    // Not recorded again (its last sighting stays the kept computation's) while the answer is current.
    const [listed] = (await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO })).items;
    expect(listed).toEqual(recorded);
    // A site build's inputs are not read either while the kept answer is current (these, empty,
    // would have made the event no longer current).
    const none = await db.loadInputs(['duration'], []);
    expect((await db.releaseEventsFromInputs(none, { scenario: RELEASE_RUNS_SCENARIO })).items).toEqual([recorded]);
    expect((await db.keptAnswer(q))?.state).toBe('current');
    // One more run on 17.5: the kept answer is stale, so the list computes and records again.
    const [extra] = releaseRuns({ releases: ['17.5'], runsPerRelease: 1, seed: 7 });
    await ingestDocument(db, extra, 'tl_release_events-extra');
    expect((await db.keptAnswer(q))?.state).toBe('stale');
    const [again] = (await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO })).items;
    expect(again!.id).toBe(recorded!.id);
    expect(Date.parse(again!.lastSeenAt)).toBeGreaterThan(Date.parse(recorded!.lastSeenAt));
  });
});

describe('a +15 % change at the first release of a new major', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await databaseWith(
      'tl_release_events_major',
      releaseRuns({ releases: ACROSS, stepAt: '17.0', step: 0.15 }),
    ));
  }, 300_000);
  afterAll(async () => close?.());

  it('is expected, and says why', async () => {
    const { items } = await db.releaseEvents({ scenario: RELEASE_RUNS_SCENARIO });
    expect(items.map((e) => e.kind === 'between-releases' && [e.from, e.to, e.state, e.reason])).toEqual([
      ['16.9', '17.0', 'expected', 'a new major: PostgreSQL 16 → 17'],
    ]);
  });
});

describe('runs on one release', () => {
  let db: ResultsDb;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await databaseWith('tl_release_events_one', releaseRuns({ releases: ['17.4'] })));
  }, 300_000);
  afterAll(async () => close?.());

  it('have no release line and no events', async () => {
    const a = (await db.answers(AnswersQuery.parse({ scenario: RELEASE_RUNS_SCENARIO })))!;
    expect(a.releaseLine).toBeUndefined();
    expect((await db.releaseEvents()).items).toEqual([]);
  });
});
