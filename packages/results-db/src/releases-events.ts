/**
 * Changes between PostgreSQL releases as events (GET /v1/release-events): every change a scenario's
 * release line reports (answers.ts → `releaseLine`, computed by @tunelab/answers' releases.ts) is
 * recorded once in `release_events`, keyed by what it is a change of. Recording happens when the
 * scenario's default kept answers are computed (kept-answers.ts: after an ingest, or by a read, from
 * the answers it has just computed) and when the events are read (the API's list, unless that kept
 * answer is current; a site build, from the answers it computed), so an event is there as soon as
 * anyone could see the change; later computations refresh its figures and `current`, never its
 * state or first sighting.
 * A step to a new major is `expected`; every other change is `new` until an operator acknowledges it.
 *
 * A change over time within one release (a release point's `drift`, @tunelab/answers' drift.ts) is an
 * event of kind `over-time`, keyed by its release, series and direction and its ordinal among the
 * release's changes in that direction — not by the run where it was found, which more runs can move
 * by one or two: the same drift stays one event, its start run, date and figures updated in place.
 */
import { randomUUID } from 'node:crypto';
import {
  AnswersQuery,
  majorOfRelease,
  type ReleaseEvent,
  type ReleaseEventList,
  type ReleaseEventsQuery,
  type ReleasePoint,
  type ReleaseSeries,
  type ReleaseStep,
  type ScenarioAnswersRecord,
  SweepPoint,
} from '@tunelab/contracts';
import { sha256Hex } from '@tunelab/scenarios';
import { formatP, formatPercent } from '@tunelab/stats';
import type { Prisma, ReleaseEvent as ReleaseEventRow } from './generated/prisma/client.ts';
import { answerScenarioQuery } from './answers.ts';
import type { DbContext, Queries } from './context.ts';
import { defaultAnswerCurrent } from './kept-keys.ts';

type Change = { scenario: string; metric: string; series: ReleaseSeries; step: ReleaseStep };
type DriftChange = NonNullable<ReleasePoint['drift']>['changes'][number];
/** A change over time on `release`, the `nth` of the release's changes in its direction. */
type Drift = { scenario: string; metric: string; series: ReleaseSeries; release: string; nth: number; c: DriftChange };

const sortedParams = (params: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(params).sort(([a], [b]) => a.localeCompare(b)));

/** Parameters as stored: the answers' values (strings, numbers, booleans) in key order. */
function storedParams(params: Record<string, unknown>): Prisma.InputJsonObject {
  const stored: Record<string, Prisma.InputJsonValue | null> = {};
  for (const [k, v] of Object.entries(sortedParams(params)))
    stored[k] =
      typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? v
        : v === null
          ? null
          : JSON.stringify(v);
  return stored;
}

/** The series a change is of: scenario, its version, class, engine, parameters, sweep point, metric and pair. */
const seriesIdentity = (scenario: string, metric: string, s: ReleaseSeries) => [
  scenario,
  s.scenarioVersion,
  s.hardwareClass,
  s.engine,
  sortedParams(s.params),
  s.point,
  metric,
  s.baseline,
  s.candidate,
];

/** What a change is of: the same pair of the same series between the same two releases is one event. */
const eventKey = (c: Change) =>
  sha256Hex(JSON.stringify([...seriesIdentity(c.scenario, c.metric, c.series), c.step.from, c.step.to]));

/**
 * What a drift is of: its series, release, direction and ordinal — the start run left out, so a
 * computation over more runs that finds the same change a run earlier or later is the same event.
 */
const driftKey = (d: Drift) =>
  sha256Hex(
    JSON.stringify([
      'over-time',
      ...seriesIdentity(d.scenario, d.metric, d.series),
      d.release,
      d.c.change >= 0 ? 'up' : 'down',
      d.nth,
    ]),
  );

const newMajor = (from: string, to: string) => majorOfRelease(from) !== majorOfRelease(to);

function toEvent(r: ReleaseEventRow): ReleaseEvent {
  // The migration's check holds each kind's columns non-null; a row without them is a broken table.
  const need = <T>(v: T | null, column: string): T => {
    if (v === null) throw new Error(`release event ${r.id} (${r.kind}) has no ${column}`);
    return v;
  };
  const point = SweepPoint.nullable().safeParse(r.point);
  const common = {
    id: r.id,
    scenario: r.scenarioKey,
    scenarioVersion: r.scenarioVersion,
    hardwareClass: r.hardwareClass,
    engine: r.engine,
    params: r.params !== null && typeof r.params === 'object' && !Array.isArray(r.params) ? r.params : {},
    point: point.success ? point.data : null,
    metric: r.metric,
    baseline: r.baseline,
    candidate: r.candidate,
    change: r.change,
    sentence: r.sentence,
    state: r.state === 'acknowledged' || r.state === 'expected' ? r.state : 'new',
    current: r.current,
    firstSeenAt: r.firstSeenAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
    acknowledgedAt: r.acknowledgedAt?.toISOString() ?? null,
  } as const;
  if (r.kind === 'over-time')
    return {
      ...common,
      kind: 'over-time',
      reason: r.note,
      release: need(r.release, 'release'),
      run: need(r.runId, 'run_id'),
      receivedAt: need(r.receivedAt, 'received_at').toISOString(),
      runsBefore: need(r.runsBefore, 'runs_before'),
      before: need(r.ratioBefore, 'ratio_before'),
      after: need(r.ratioAfter, 'ratio_after'),
      p: need(r.p, 'p'),
      nth: need(r.nth, 'nth'),
    };
  const from = need(r.fromRelease, 'from_release');
  const to = need(r.toRelease, 'to_release');
  return {
    ...common,
    kind: 'between-releases',
    from,
    to,
    ci95: { low: r.ciLow, high: r.ciHigh },
    adjustedP: need(r.pAdjusted, 'p_adjusted'),
    reason: r.state === 'expected' ? `a new major: PostgreSQL ${majorOfRelease(from)} → ${majorOfRelease(to)}` : r.note,
  };
}

/** The query whose answers' release line the events come from: the scenario's default answers. */
export const releaseEventsQuery = (scenario: string) => AnswersQuery.parse({ scenario });

/**
 * The changes a scenario's release line reports now, between releases and over time (none without a
 * folder or two measured releases), from its default answers (`computed`: computed already, null
 * when it has none; else computed now).
 */
async function reportedChanges(
  db: DbContext,
  scenario: string,
  computed?: ScenarioAnswersRecord | null,
): Promise<{ steps: Change[]; drifts: Drift[] }> {
  const answers =
    computed !== undefined ? computed : await answerScenarioQuery(db.prisma, db.catalog, releaseEventsQuery(scenario));
  const line = answers?.releaseLine;
  if (!answers || !line) return { steps: [], drifts: [] };
  const metric = answers.metric.key;
  const steps = line.series.flatMap((series) =>
    series.steps.filter((s) => s.reported).map((step) => ({ scenario, metric, series, step })),
  );
  const drifts = line.series.flatMap((series) =>
    series.releases.flatMap(({ release, drift }) => {
      const seen = { up: 0, down: 0 };
      return (drift?.changes ?? []).map((c) => {
        const nth = (seen[c.change >= 0 ? 'up' : 'down'] += 1);
        return { scenario, metric, series, release, nth, c };
      });
    }),
  );
  return { steps, drifts };
}

type EventColumns = Partial<Prisma.ReleaseEventCreateInput>;

/** What a change of either kind is recorded under: the series, as the first sighting stores it. */
const seriesColumns = (scenario: string, metric: string, s: ReleaseSeries) => ({
  scenarioKey: scenario,
  scenarioVersion: s.scenarioVersion,
  hardwareClass: s.hardwareClass,
  engine: s.engine,
  params: storedParams(s.params),
  point: s.point ?? undefined,
  metric,
  baseline: s.baseline,
  candidate: s.candidate,
});

/**
 * Records an event once under `key`: created with what it is of (`first`: series, kind, state and
 * the releases) and its figures; a later sighting refreshes only the figures. Returns the key.
 */
async function recordEvent(
  db: DbContext,
  key: string,
  now: Date,
  first: ReturnType<typeof seriesColumns> & Pick<Prisma.ReleaseEventCreateInput, 'kind' | 'state'> & EventColumns,
  figures: Pick<Prisma.ReleaseEventCreateInput, 'change' | 'sentence'> & EventColumns,
): Promise<string> {
  const refreshed = { ...figures, current: true, lastSeenAt: now };
  await db.prisma.releaseEvent.upsert({
    where: { key },
    update: refreshed,
    create: { id: randomUUID(), key, firstSeenAt: now, ...first, ...refreshed },
  });
  return key;
}

/** Records a change between releases: once, later sightings refreshing its figures; returns its key. */
const recordStep = (db: DbContext, c: Change, now: Date) =>
  recordEvent(
    db,
    eventKey(c),
    now,
    {
      kind: 'between-releases',
      ...seriesColumns(c.scenario, c.metric, c.series),
      fromRelease: c.step.from,
      toRelease: c.step.to,
      state: newMajor(c.step.from, c.step.to) ? 'expected' : 'new',
    },
    {
      change: c.step.change,
      ciLow: c.step.ci95.low,
      ciHigh: c.step.ci95.high,
      pAdjusted: c.step.adjusted.p,
      sentence: c.step.sentence,
    },
  );

/** Records a change over time: once, later sightings moving its start run and refreshing its figures; returns its key. */
function recordDrift(db: DbContext, d: Drift, now: Date): Promise<string> {
  const { c } = d;
  const pair = `${d.series.candidate} / ${d.series.baseline}`;
  return recordEvent(
    db,
    driftKey(d),
    now,
    {
      kind: 'over-time',
      ...seriesColumns(d.scenario, d.metric, d.series),
      release: d.release,
      nth: d.nth,
      state: 'new',
    },
    {
      runId: c.run,
      receivedAt: new Date(c.at),
      runsBefore: c.runsBefore,
      ratioBefore: c.before,
      ratioAfter: c.after,
      change: c.change,
      p: c.p,
      sentence: `On ${d.release}, ${pair} changed over time by ${c.change >= 0 ? '+' : '−'}${formatPercent(Math.abs(c.change))} (×${c.before.toPrecision(3)} to ×${c.after.toPrecision(3)}, ${formatP(c.p)}) from the run received ${c.at.slice(0, 10)}, after ${c.runsBefore} runs — the machine or its kernel, not the release`,
    },
  );
}

/**
 * Records the scenario's reported changes: new ones once, known ones refreshed; the rest no longer
 * current. `answers`: the scenario's default answers when the caller has just computed them (the
 * kept answers' recomputation after an ingest), else they are computed here.
 */
export async function recordReleaseEvents(
  db: DbContext,
  scenario: string,
  answers?: ScenarioAnswersRecord | null,
): Promise<void> {
  const { steps, drifts } = await reportedChanges(db, scenario, answers);
  const now = new Date();
  const keys: string[] = [];
  for (const c of steps) keys.push(await recordStep(db, c, now));
  for (const d of drifts) keys.push(await recordDrift(db, d, now));
  await db.prisma.releaseEvent.updateMany({
    where: { scenarioKey: scenario, current: true, key: { notIn: keys } },
    data: { current: false },
  });
}

/**
 * A scenario's default answers (`releaseEventsQuery`) as the caller has them already: a site build
 * computes them from the comparison inputs it holds instead of reading every sample again.
 */
export type DefaultAnswersOf = (scenario: string) => Promise<ScenarioAnswersRecord | null>;

/**
 * The events of one scenario or of every scenario in the catalog, recorded first where the
 * scenario's default kept answer is not current (from the answers `answersOf` gives, else
 * computed from the database); newest first.
 */
export async function listReleaseEvents(
  db: DbContext,
  q: ReleaseEventsQuery = {},
  answersOf?: DefaultAnswersOf,
): Promise<ReleaseEventList> {
  // A database migrated before release events, or before their kinds, existed (a site build reads
  // it without migrating) has none to show yet.
  const [table] = await db.prisma.$queryRaw<{ kinds: boolean }[]>`SELECT EXISTS (
    SELECT 1 FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name = 'release_events' AND column_name = 'kind') AS kinds`;
  if (!table?.kinds) return { items: [] };
  const scenarios = q.scenario ? [q.scenario] : [...(await db.catalog.docs()).keys()];
  for (const scenario of scenarios) {
    // A current default kept answer recorded its events when it was computed: nothing to compute.
    if (await defaultAnswerCurrent(db, scenario)) continue;
    await recordReleaseEvents(db, scenario, answersOf ? await answersOf(scenario) : undefined);
  }
  const rows = await db.prisma.releaseEvent.findMany({
    where: {
      ...(q.scenario ? { scenarioKey: q.scenario } : {}),
      ...(q.state ? { state: q.state } : {}),
      ...(q.kind ? { kind: q.kind } : {}),
    },
    orderBy: [
      { firstSeenAt: 'desc' },
      { scenarioKey: 'asc' },
      { toRelease: { sort: 'asc', nulls: 'last' } },
      { release: { sort: 'asc', nulls: 'last' } },
      { id: 'asc' },
    ],
  });
  return { items: rows.map(toEvent) };
}

/**
 * An operator acknowledges an event (any state: an expected step may deserve a note too); the first
 * acknowledgement's time is kept, a later note replaces the earlier. Null when no event has this id.
 */
export async function acknowledgeReleaseEvent(
  db: DbContext,
  id: string,
  by: { operatorId: string; note?: string },
): Promise<ReleaseEvent | null> {
  const found = await db.prisma.releaseEvent.findUnique({ where: { id } });
  if (!found) return null;
  const row = await db.prisma.releaseEvent.update({
    where: { id },
    data: {
      state: 'acknowledged',
      acknowledgedAt: found.acknowledgedAt ?? new Date(),
      acknowledgedBy: by.operatorId,
      ...(by.note !== undefined ? { note: by.note } : {}),
    },
  });
  return toEvent(row);
}

export const releaseEventQueries = {
  /** Changes between releases and over time within one as events (recorded once), of one scenario or all; newest first. */
  releaseEvents: (db: DbContext, q?: ReleaseEventsQuery) => listReleaseEvents(db, q),
  /** Marks an event acknowledged by an operator, with an optional note; null for an unknown id. */
  acknowledgeReleaseEvent: (db: DbContext, id: string, by: { operatorId: string; note?: string }) =>
    acknowledgeReleaseEvent(db, id, by),
} satisfies Queries;
