/**
 * The server release as an answer axis (GET /v1/answers with `from` and `to`): per hardware class,
 * scenario version, parameter values, sweep point and declared pair, the pair's ratio on every
 * measured PostgreSQL release, the changes between adjacent releases, and what upgrading from one
 * release to another changes. Computed by @tunelab/answers (releases.ts).
 */
import { z } from 'zod';
import { Bounds, variantPair } from './comparisons.ts';
import { SweepPoint } from './run.ts';
import { Engine, ServerRelease } from './database.ts';

/**
 * Changes over time within one release (the machine or its kernel drifting): the pair's per-run
 * ratio in the order the runs were received, with the change points Apache Otava's method finds.
 */
export const ReleaseDrift = z.object({
  /** Runs in the dated series. */
  runs: z.number().int(),
  changes: z.array(
    z.object({
      /** The first run of the new segment (its id) and when it was received. */
      run: z.string(),
      at: z.string(),
      /** Runs before the change. */
      runsBefore: z.number().int(),
      /** Mean per-run ratio before and after. */
      before: z.number(),
      after: z.number(),
      /** after ÷ before − 1. */
      change: z.number(),
      /** The t-test between the two segments (Otava's). */
      p: z.number(),
    }),
  ),
  sentence: z.string(),
});
export type ReleaseDrift = z.infer<typeof ReleaseDrift>;

/** The pair on one release: its runs, blocks (or samples) and the ratio candidate / baseline. */
export const ReleasePoint = z.object({
  release: z.string(),
  runs: z.number().int(),
  /** Runs that did not ask for this release (`--server MAJOR`, or a server of their own): placed at the release their server reported. */
  fallbackRuns: z.number().int(),
  /** Runs flagged noisy (contracts' judgeNoise) among `runs`: when all are, no step from or to this release is reported. */
  noisyRuns: z.number().int(),
  /** Paired blocks behind the ratio; null when the runs have no blocks (the ratio of means then). */
  blocks: z.number().int().nullable(),
  ratio: z.number(),
  ratioCi: Bounds,
  /** Changes over time on this release; null with fewer than 6 runs (3 on each side of a change at least). */
  drift: ReleaseDrift.nullable(),
});
export type ReleasePoint = z.infer<typeof ReleasePoint>;

/** From one PostgreSQL release (MAJOR.MINOR) to another. */
const RELEASE_RANGE = { from: z.string(), to: z.string() };

/** The pair's ratio from one release to the next one measured. */
export const ReleaseStep = z.object({
  ...RELEASE_RANGE,
  /** ratio on `to` ÷ ratio on `from` − 1, with its own 95 % interval (not adjusted: `adjusted.ci` is). */
  change: z.number(),
  ci95: Bounds,
  /** `paired-blocks`: Welch on the two releases' block log ratios; `ratio-of-means`: the interaction test on their means. */
  method: z.enum(['paired-blocks', 'ratio-of-means']),
  p: z.number(),
  /**
   * Benjamini–Hochberg over every step of the answer (`family` steps), and the interval that goes
   * with it: `ci` at `level` = 1 − max(R, 1) × 0.05 ÷ family, R the steps significant after the
   * adjustment — Benjamini & Yekutieli's false-coverage-rate interval (2005). It excludes 0 exactly
   * when the adjusted p is ≤ 0.05, so the words and the interval printed say one thing.
   */
  adjusted: z.object({
    method: z.literal('benjamini-hochberg'),
    p: z.number(),
    family: z.number().int(),
    ci: Bounds,
    level: z.number(),
  }),
  /** Significant after adjustment, larger than the class's noise threshold, and neither release's runs all flagged noisy. */
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
  ...variantPair,
  /** The change a step must exceed to be reported, relative, and where it comes from. */
  threshold: z.object({ value: z.number(), basis: z.enum(['class-noise', 'margin']), sentence: z.string() }),
  releases: z.array(ReleasePoint),
  steps: z.array(ReleaseStep),
});
export type ReleaseSeries = z.infer<typeof ReleaseSeries>;

/** What upgrading changes for one pair on one class. */
export const UpgradePair = z.object({
  /** The series the pair is on: its class, conditions and pair. */
  ...ReleaseSeries.pick({ hardwareClass: true, params: true, point: true, baseline: true, candidate: true }).shape,
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
  ...RELEASE_RANGE,
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
