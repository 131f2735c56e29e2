/**
 * Changes between PostgreSQL releases as events (GET /v1/release-events): every change a scenario's
 * release line reports (answers.ts → `releaseLine`, computed by @tunelab/answers' releases.ts) is
 * recorded once in `release_events`, keyed by what it is a change of. Recording happens when the
 * events are read (the API's list, a site build), so an event is there as soon as anyone could see
 * the change; later computations refresh its figures and `current`, never its state or first sighting.
 * A step to a new major is `expected`; every other change is `new` until an operator acknowledges it.
 */
import { randomUUID } from 'node:crypto';
import {
  AnswersQuery,
  majorOfRelease,
  type ReleaseEvent,
  type ReleaseEventList,
  type ReleaseEventsQuery,
  type ReleaseSeries,
  type ReleaseStep,
  SweepPoint,
} from '@tunelab/contracts';
import { sha256Hex } from '@tunelab/scenarios';
import type { Prisma, ReleaseEvent as ReleaseEventRow } from './generated/prisma/client.ts';
import { answerScenarioQuery } from './answers.ts';
import type { DbContext, Queries } from './context.ts';

type Change = { scenario: string; metric: string; series: ReleaseSeries; step: ReleaseStep };

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

/** What a change is of: the same pair of the same series between the same two releases is one event. */
function eventKey(c: Change): string {
  const s = c.series;
  return sha256Hex(
    JSON.stringify([
      c.scenario,
      s.scenarioVersion,
      s.hardwareClass,
      s.engine,
      sortedParams(s.params),
      s.point,
      c.metric,
      s.baseline,
      s.candidate,
      c.step.from,
      c.step.to,
    ]),
  );
}

const newMajor = (from: string, to: string) => majorOfRelease(from) !== majorOfRelease(to);

function toEvent(r: ReleaseEventRow): ReleaseEvent {
  const point = SweepPoint.nullable().safeParse(r.point);
  return {
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
    from: r.fromRelease,
    to: r.toRelease,
    change: r.change,
    ci95: { low: r.ciLow, high: r.ciHigh },
    adjustedP: r.pAdjusted,
    sentence: r.sentence,
    state: r.state === 'acknowledged' || r.state === 'expected' ? r.state : 'new',
    reason:
      r.state === 'expected'
        ? `a new major: PostgreSQL ${majorOfRelease(r.fromRelease)} → ${majorOfRelease(r.toRelease)}`
        : r.note,
    current: r.current,
    firstSeenAt: r.firstSeenAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
    acknowledgedAt: r.acknowledgedAt?.toISOString() ?? null,
  };
}

/** The changes a scenario's release line reports now (none without a folder or two measured releases). */
async function reportedChanges(db: DbContext, scenario: string): Promise<Change[]> {
  const answers = await answerScenarioQuery(db.prisma, db.catalog, AnswersQuery.parse({ scenario }));
  const line = answers?.releaseLine;
  if (!answers || !line) return [];
  return line.series.flatMap((series) =>
    series.steps.filter((s) => s.reported).map((step) => ({ scenario, metric: answers.metric.key, series, step })),
  );
}

/** Records the scenario's reported changes: new ones once, known ones refreshed; the rest no longer current. */
async function recordScenario(db: DbContext, scenario: string): Promise<void> {
  const changes = await reportedChanges(db, scenario);
  const now = new Date();
  const keys: string[] = [];
  for (const c of changes) {
    const key = eventKey(c);
    keys.push(key);
    const figures = {
      change: c.step.change,
      ciLow: c.step.ci95.low,
      ciHigh: c.step.ci95.high,
      pAdjusted: c.step.adjusted.p,
      sentence: c.step.sentence,
      current: true,
      lastSeenAt: now,
    };
    await db.prisma.releaseEvent.upsert({
      where: { key },
      update: figures,
      create: {
        id: randomUUID(),
        key,
        scenarioKey: scenario,
        scenarioVersion: c.series.scenarioVersion,
        hardwareClass: c.series.hardwareClass,
        engine: c.series.engine,
        params: storedParams(c.series.params),
        point: c.series.point ?? undefined,
        metric: c.metric,
        baseline: c.series.baseline,
        candidate: c.series.candidate,
        fromRelease: c.step.from,
        toRelease: c.step.to,
        state: newMajor(c.step.from, c.step.to) ? 'expected' : 'new',
        firstSeenAt: now,
        ...figures,
      },
    });
  }
  await db.prisma.releaseEvent.updateMany({
    where: { scenarioKey: scenario, current: true, key: { notIn: keys } },
    data: { current: false },
  });
}

/** The events of one scenario or of every scenario in the catalog, recorded first; newest first. */
export async function listReleaseEvents(db: DbContext, q: ReleaseEventsQuery = {}): Promise<ReleaseEventList> {
  // A database migrated before release events existed (a site build reads it without migrating) has none yet.
  const [table] = await db.prisma.$queryRaw<
    { t: string | null }[]
  >`SELECT to_regclass('public.release_events')::text AS t`;
  if (table?.t == null) return { items: [] };
  const scenarios = q.scenario ? [q.scenario] : [...(await db.catalog.docs()).keys()];
  for (const scenario of scenarios) await recordScenario(db, scenario);
  const rows = await db.prisma.releaseEvent.findMany({
    where: { ...(q.scenario ? { scenarioKey: q.scenario } : {}), ...(q.state ? { state: q.state } : {}) },
    orderBy: [{ firstSeenAt: 'desc' }, { scenarioKey: 'asc' }, { toRelease: 'asc' }, { id: 'asc' }],
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
  /** Changes between releases as events (recorded once), of one scenario or all; newest first. */
  releaseEvents: (db: DbContext, q?: ReleaseEventsQuery) => listReleaseEvents(db, q),
  /** Marks an event acknowledged by an operator, with an optional note; null for an unknown id. */
  acknowledgeReleaseEvent: (db: DbContext, id: string, by: { operatorId: string; note?: string }) =>
    acknowledgeReleaseEvent(db, id, by),
} satisfies Queries;
