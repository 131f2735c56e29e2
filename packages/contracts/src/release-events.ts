/**
 * Changes between PostgreSQL releases as events (GET /v1/release-events): each reported change of a
 * release series (releases.ts) is recorded once, of one of two kinds — `between-releases` (from one
 * release to the next) or `over-time` (within one release: its `drift`, the machine or its kernel)
 * — with a state: `new`, `expected` (the step to a new major: other code, other defaults) or
 * `acknowledged` (an operator looked at it, with a note: POST /v1/release-events/:id/acknowledge).
 * A scenario version is part of a series' identity, so a new scenario version starts a new series
 * and is never a step of one. The release line the site draws per scenario and class is
 * `ReleaseLine` in a scenario's answers.
 */
import { z } from 'zod';
import { Bounds } from './comparisons.ts';
import { identifier } from './primitives.ts';
import { ReleaseSeries } from './releases.ts';
import { SweepPoint } from './run.ts';

export const ReleaseEventState = z.enum(['new', 'acknowledged', 'expected']);
export type ReleaseEventState = z.infer<typeof ReleaseEventState>;

/** A change from one release to the next, or a change over time within one release (the machine drifting). */
export const ReleaseEventKind = z.enum(['between-releases', 'over-time']);
export type ReleaseEventKind = z.infer<typeof ReleaseEventKind>;

/** What every event has: the series it is a change of, its sentence and its state. */
const EventCommon = {
  id: z.uuid(),
  scenario: z.string(),
  scenarioVersion: z.string(),
  hardwareClass: z.string(),
  engine: z.string(),
  params: z.record(z.string(), z.unknown()),
  point: SweepPoint.nullable(),
  metric: z.string(),
  baseline: z.string(),
  candidate: z.string(),
  sentence: z.string(),
  state: ReleaseEventState,
  /** Why the state: the new major for `expected`, the operator's note for `acknowledged`. */
  reason: z.string().nullable(),
  /** False once the series no longer reports the change (more runs put it within the noise). */
  current: z.boolean(),
  firstSeenAt: z.string(),
  lastSeenAt: z.string(),
  acknowledgedAt: z.string().nullable(),
};

export const BetweenReleasesEvent = z.object({
  ...EventCommon,
  kind: z.literal('between-releases'),
  /** The release before the change and the release that introduced it. */
  from: z.string(),
  to: z.string(),
  /** The pair's ratio on `to` ÷ on `from` − 1, its 95 % interval and BH-adjusted p, as last computed. */
  change: z.number(),
  ci95: Bounds,
  adjustedP: z.number(),
});
export type BetweenReleasesEvent = z.infer<typeof BetweenReleasesEvent>;

/**
 * A change over time within one release (the release line's `drift`): one event per release, series
 * and direction of the change (the first rise, the first fall…), so more runs that move where the
 * change is found by a run or two update its start run in place rather than make another event.
 */
export const OverTimeEvent = z.object({
  ...EventCommon,
  kind: z.literal('over-time'),
  release: z.string(),
  /** The first run of the new segment, when it was received, and how many of the release's runs came before it. */
  run: z.uuid(),
  receivedAt: z.string(),
  runsBefore: z.number().int(),
  /** The mean per-run ratio before and after, after ÷ before − 1 and Otava's t-test p, as last computed. */
  before: z.number(),
  after: z.number(),
  change: z.number(),
  p: z.number(),
  /** The direction's ordinal: 1 for the release's first change in this direction, 2 for the second. */
  nth: z.number().int().min(1),
});
export type OverTimeEvent = z.infer<typeof OverTimeEvent>;

export const ReleaseEvent = z.discriminatedUnion('kind', [BetweenReleasesEvent, OverTimeEvent]);
export type ReleaseEvent = z.infer<typeof ReleaseEvent>;

export const ReleaseEventList = z.object({ items: z.array(ReleaseEvent) });
export type ReleaseEventList = z.infer<typeof ReleaseEventList>;

export const ReleaseEventsQuery = z.strictObject({
  scenario: identifier.optional(),
  state: ReleaseEventState.optional(),
  kind: ReleaseEventKind.optional(),
});
export type ReleaseEventsQuery = z.infer<typeof ReleaseEventsQuery>;

export const AcknowledgeReleaseEvent = z.strictObject({
  /** What the operator found (a release note, a known regression); shown as the event's reason. */
  note: z.string().trim().min(1).max(500).optional(),
});
export type AcknowledgeReleaseEvent = z.infer<typeof AcknowledgeReleaseEvent>;

/** Every release series of a scenario's answers, shown where two releases or more are measured. */
export const ReleaseLine = z.object({
  /** The measured releases, oldest first. */
  releases: z.array(z.string()),
  series: z.array(ReleaseSeries),
});
export type ReleaseLine = z.infer<typeof ReleaseLine>;
