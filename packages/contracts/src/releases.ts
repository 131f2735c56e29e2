/**
 * The server release as an answer axis (GET /v1/answers with `from` and `to`): per hardware class,
 * scenario version, parameter values, sweep point and declared pair, the pair's ratio on every
 * measured PostgreSQL release, the changes between adjacent releases, and what upgrading from one
 * release to another changes. Computed by @tunelab/answers (releases.ts).
 */
import { z } from 'zod';
import { Bounds } from './comparisons.ts';
import { SweepPoint } from './run.ts';
import { Engine, ServerRelease } from './database.ts';

/** The pair on one release: its runs, blocks (or samples) and the ratio candidate / baseline. */
export const ReleasePoint = z.object({
  release: z.string(),
  runs: z.number().int(),
  /** Runs that did not ask for this release (`--server MAJOR`, or a server of their own): placed at the release their server reported. */
  fallbackRuns: z.number().int(),
  /** Paired blocks behind the ratio; null when the runs have no blocks (the ratio of means then). */
  blocks: z.number().int().nullable(),
  ratio: z.number(),
  ratioCi: Bounds,
});
export type ReleasePoint = z.infer<typeof ReleasePoint>;

/** The pair's ratio from one release to the next one measured. */
export const ReleaseStep = z.object({
  from: z.string(),
  to: z.string(),
  /** ratio on `to` ÷ ratio on `from` − 1, with its 95 % interval. */
  change: z.number(),
  ci95: Bounds,
  /** `paired-blocks`: Welch on the two releases' block log ratios; `ratio-of-means`: the interaction test on their means. */
  method: z.enum(['paired-blocks', 'ratio-of-means']),
  p: z.number(),
  /** Benjamini–Hochberg over every step of the answer (`family` steps). */
  adjusted: z.object({ method: z.literal('benjamini-hochberg'), p: z.number(), family: z.number().int() }),
  /** Significant after adjustment and larger than the class's noise threshold. */
  reported: z.boolean(),
  sentence: z.string(),
});
export type ReleaseStep = z.infer<typeof ReleaseStep>;

export const ReleaseSeries = z.object({
  hardwareClass: z.string(),
  engine: Engine,
  scenarioVersion: z.string(),
  params: z.record(z.string(), z.unknown()),
  point: SweepPoint.nullable(),
  baseline: z.string(),
  candidate: z.string(),
  /** The change a step must exceed to be reported, relative, and where it comes from. */
  threshold: z.object({ value: z.number(), basis: z.enum(['class-noise', 'margin']), sentence: z.string() }),
  releases: z.array(ReleasePoint),
  steps: z.array(ReleaseStep),
});
export type ReleaseSeries = z.infer<typeof ReleaseSeries>;

/** What upgrading changes for one pair on one class. */
export const UpgradePair = z.object({
  hardwareClass: z.string(),
  params: z.record(z.string(), z.unknown()),
  point: SweepPoint.nullable(),
  baseline: z.string(),
  candidate: z.string(),
  before: ReleasePoint,
  after: ReleasePoint,
  /** The pair's ratio on `to` against that on `from`, tested directly (adjusted over the upgrade's pairs). */
  step: ReleaseStep,
  /** The reported changes between adjacent releases in (from, to], each naming the release that introduced it. */
  changes: z.array(ReleaseStep),
  sentence: z.string(),
});
export type UpgradePair = z.infer<typeof UpgradePair>;

export const UpgradeAnswer = z.object({
  from: z.string(),
  to: z.string(),
  metric: z.string(),
  pairs: z.array(UpgradePair),
  /** Every release series of the answer (class × conditions × pair), with its steps. */
  series: z.array(ReleaseSeries),
  sentence: z.string(),
});
export type UpgradeAnswer = z.infer<typeof UpgradeAnswer>;

/** `from` and `to` of GET /v1/answers: both or neither, `from` not after `to`. */
export const releaseRangeParams = {
  /** "On hardware like yours, upgrading from this release …": a PostgreSQL release MAJOR.MINOR. */
  from: ServerRelease.optional(),
  /** "… to this one". */
  to: ServerRelease.optional(),
};

function releaseParts(release: string): [number, number] {
  const [major, minor] = release.split('.').map(Number);
  return [major!, minor!];
}

export function checkReleaseRange(q: { from?: string; to?: string }, ctx: z.RefinementCtx): void {
  if ((q.from === undefined) !== (q.to === undefined)) {
    ctx.addIssue({ code: 'custom', path: [q.from === undefined ? 'from' : 'to'], message: 'from and to go together' });
    return;
  }
  if (q.from === undefined || q.to === undefined) return;
  const [fm, fn] = releaseParts(q.from);
  const [tm, tn] = releaseParts(q.to);
  if (fm > tm || (fm === tm && fn > tn))
    ctx.addIssue({ code: 'custom', path: ['to'], message: `must not be a release before from (${q.from})` });
}
