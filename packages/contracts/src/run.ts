import { z } from 'zod';
import { HardwareSpec } from './hardware.ts';
import { DatabaseEnvironment, ServerRelease } from './database.ts';
import { RunNoise } from './noise.ts';
import {
  boundedRecord,
  boundedString,
  finiteNumber,
  identifier,
  isoDateTime,
  LIMITS,
  scalar,
  sha256Hex,
  text,
} from './primitives.ts';
import { checkValueInRange, SERIES_LIMIT } from './units.ts';

/** The sweep point a sample or time-series point was measured at, e.g. `{ param: 'vus', value: 4 }`. */
export const SweepPoint = z.strictObject({
  param: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a parameter name (letters, digits, _)'),
  value: finiteNumber,
});
export type SweepPoint = z.infer<typeof SweepPoint>;

/** A sample: its value must be plausible for its unit (see units.ts), when submitted and when read back. */
export const Sample = z
  .strictObject({
    variant: identifier,
    repetition: z.number().int().min(1).max(100_000),
    metric: identifier,
    unit: boundedString(32),
    value: finiteNumber,
    /** Absent when the scenario declares no sweep. */
    point: SweepPoint.optional(),
    /**
     * The sample's place in its block (the repetition is the block: every variant once, at one
     * sweep point, in a random order): 1 = its variant ran first. Absent in runs from before
     * blocks, whose fixed order makes their answers independent samples (Welch), not pairs.
     */
    position: z.number().int().min(1).max(1000).optional(),
  })
  .superRefine((s, ctx) => {
    const problem = checkValueInRange(s.value, s.unit);
    if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: problem });
  });
export type Sample = z.infer<typeof Sample>;

export const TimeSeriesPoint = z.strictObject({
  variant: identifier,
  repetition: z.number().int().min(1).max(100_000),
  metric: identifier,
  x: finiteNumber.min(-SERIES_LIMIT).max(SERIES_LIMIT),
  value: finiteNumber.min(-SERIES_LIMIT).max(SERIES_LIMIT),
  point: SweepPoint.optional(),
});
export type TimeSeriesPoint = z.infer<typeof TimeSeriesPoint>;

export const RunNote = z.strictObject({
  variant: identifier.optional(),
  repetition: z.number().int().min(1).max(100_000).optional(),
  kind: boundedString(64),
  text: text(LIMITS.note),
});
export type RunNote = z.infer<typeof RunNote>;

/**
 * How the run was made, apart from the scenario's parameters: repetitions, the until-stable rule
 * and the scale. Reproducing a run means the same scenario, `params` and `options`.
 */
export const RunSubmissionOptions = z.strictObject({
  /** Repetitions of each variant actually run. */
  repetitions: z.number().int().min(1).max(100_000),
  /** `published`: the scenario's published parameter values and repetitions were the base. */
  scale: z.enum(['default', 'published']).default('default'),
  /**
   * --until-stable, or the scenario's default stopping rule (`source: scenario`, scenario.yaml
   * `repetitions.until_stable`): started at `startRepetitions`, stopped at stability, at
   * `maxRepetitions`, or before a round that would pass `budgetSeconds` of measuring.
   */
  untilStable: z
    .strictObject({
      startRepetitions: z.number().int().min(1).max(100_000),
      maxRepetitions: z.number().int().min(1).max(100_000),
      cvThreshold: finiteNumber.refine((x) => x > 0, 'must be positive'),
      budgetSeconds: z.number().int().min(1).max(10_000_000).optional(),
      source: z.enum(['option', 'scenario']).optional(),
    })
    .optional(),
  /**
   * The sequential design (scenario.yaml `decision`, or `--budget`): blocks were added until every
   * declared pair's `metric` was decided against `margin`, or `budgetSeconds` or `maxBlocks` ran
   * out; `stopped` says which.
   */
  sequential: z
    .strictObject({
      metric: identifier,
      margin: finiteNumber.refine((x) => x > 0 && x < 1, 'must be in (0, 1)'),
      budgetSeconds: z.number().int().min(1).max(10_000_000),
      maxBlocks: z.number().int().min(1).max(100_000),
      source: z.enum(['option', 'scenario']),
      stopped: z.enum(['decided', 'time-budget', 'max-blocks']),
    })
    .optional(),
  /**
   * `--server MAJOR` (or `--server MAJOR.MINOR`): a throwaway PostgreSQL server of that major, its
   * build from the npm registry. For a release it holds the release's major, so runs group by
   * major as before.
   */
  server: z.number().int().min(1).max(1000).optional(),
  /**
   * `--server MAJOR.MINOR`: the release that was asked for (e.g. "17.4"); absent when `--server`
   * named a major alone (its newest build). The release the server ran is the run's
   * databaseEnvironment.
   */
  serverRelease: ServerRelease.optional(),
  /** `--set name=value`: settings of the server the runner managed (restart-only ones included). */
  serverSettings: boundedRecord(text(LIMITS.shortString * 10)).optional(),
});
export type RunSubmissionOptions = z.infer<typeof RunSubmissionOptions>;

export const runnerVersion = z
  .string()
  .regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'must be a semantic version x.y.z');

/** One finished run of one scenario version on one machine, as a runner submits it. */
export const RunSubmission = z
  .strictObject({
    scenario: z.strictObject({
      key: identifier,
      version: sha256Hex,
      title: boundedString(300).optional(),
      /** The comparison pairs the scenario declares; comparisons use them instead of every pair. */
      comparisons: z
        .array(z.strictObject({ baseline: identifier, candidate: identifier }))
        .max(50)
        .optional(),
    }),
    /** The scenario's declared parameters only (a swept one as `1,2,4`). */
    params: boundedRecord(scalar, 200),
    /** Absent in runs from before options had their own field, and in imported published figures. */
    options: RunSubmissionOptions.optional(),
    hardware: HardwareSpec,
    database: DatabaseEnvironment,
    runnerVersion,
    startedAt: isoDateTime,
    finishedAt: isoDateTime,
    samples: z.array(Sample).min(1).max(LIMITS.samples),
    timeSeries: z.array(TimeSeriesPoint).max(LIMITS.timeSeriesPoints).default([]),
    notes: z.array(RunNote).max(LIMITS.notes).default([]),
    warnings: z.array(text(LIMITS.note)).max(LIMITS.notes).default([]),
    /** Order in which variant × repetition ran (interleaved A B A B …). */
    order: z
      .array(z.strictObject({ variant: identifier, repetition: z.number().int().min(1).max(100_000) }))
      .max(LIMITS.samples)
      .optional(),
    /** How noisy the machine was while the run measured (noise.ts); absent in runs from before it was measured. */
    noise: RunNoise.optional(),
    /** The fleet job this run answers (`tunelab agent`); the job completes when the run is stored. */
    job: z.uuid().optional(),
  })
  .superRefine((run, ctx) => {
    if (Date.parse(run.finishedAt) < Date.parse(run.startedAt)) {
      ctx.addIssue({ code: 'custom', path: ['finishedAt'], message: 'must not be before startedAt' });
    }
    const o = run.options;
    if (o?.serverRelease !== undefined && Number(o.serverRelease.split('.')[0]) !== o.server) {
      ctx.addIssue({
        code: 'custom',
        path: ['options', 'serverRelease'],
        message: `is a release of PostgreSQL ${o.serverRelease.split('.')[0]}; options.server must be that major (it is ${o.server ?? 'absent'})`,
      });
    }
    // Unique per (variant, repetition, metric, sweep point). Nested maps, not one joined string
    // per sample: building and hashing 160 such keys was a fifth of validating a submission.
    const seen = new Map<string, Map<string, Set<number | string>>>();
    run.samples.forEach((s, i) => {
      let byMetric = seen.get(s.variant);
      if (!byMetric) seen.set(s.variant, (byMetric = new Map<string, Set<number | string>>()));
      let taken = byMetric.get(s.metric);
      if (!taken) byMetric.set(s.metric, (taken = new Set<number | string>()));
      // The repetition, with its sweep point as text when it has one (0 and -0 print alike: one point).
      const key = s.point ? `${s.repetition}\u0000${s.point.param}=${s.point.value}` : s.repetition;
      if (taken.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['samples', i],
          message: `duplicate sample for variant ${s.variant}, repetition ${s.repetition}, metric ${s.metric}${s.point ? `, ${s.point.param} = ${s.point.value}` : ''}`,
        });
      }
      taken.add(key);
    });
    // A block (repetition × sweep point) runs each variant once: one place per variant, none shared.
    const places = new Map<string, Map<number, string>>();
    const placeOf = new Map<string, number>();
    run.samples.forEach((s, i) => {
      if (s.position === undefined) return;
      const block = `${s.repetition}\u0000${s.point ? `${s.point.param}=${s.point.value}` : ''}`;
      const mine = `${block}\u0000${s.variant}`;
      const had = placeOf.get(mine);
      const taken = places.get(block) ?? new Map<number, string>();
      const holder = taken.get(s.position);
      if (had !== undefined && had !== s.position) {
        ctx.addIssue({
          code: 'custom',
          path: ['samples', i, 'position'],
          message: `variant ${s.variant} already has position ${had} in block ${s.repetition}`,
        });
      } else if (holder !== undefined && holder !== s.variant) {
        ctx.addIssue({
          code: 'custom',
          path: ['samples', i, 'position'],
          message: `position ${s.position} of block ${s.repetition} is already variant ${holder}'s`,
        });
      }
      placeOf.set(mine, s.position);
      taken.set(s.position, s.variant);
      places.set(block, taken);
    });
    // A metric has one unit within a run; mixing seconds and milliseconds would corrupt comparisons.
    const units = new Map<string, string>();
    run.samples.forEach((s, i) => {
      const u = units.get(s.metric);
      if (u !== undefined && u !== s.unit) {
        ctx.addIssue({
          code: 'custom',
          path: ['samples', i, 'unit'],
          message: `metric ${s.metric} already uses unit ${u}`,
        });
      }
      units.set(s.metric, s.unit);
    });
  });
export type RunSubmission = z.infer<typeof RunSubmission>;
export type RunSubmissionInput = z.input<typeof RunSubmission>;
