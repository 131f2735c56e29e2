import { z } from 'zod';
import { HardwareSpec } from './hardware.ts';
import { DatabaseEnvironment } from './database.ts';
import {
  boundedRecord,
  boundedString,
  finiteNumber,
  identifier,
  isoDateTime,
  LIMITS,
  scalar,
  sha256Hex,
} from './primitives.ts';

export const Sample = z.strictObject({
  variant: identifier,
  repetition: z.number().int().min(1).max(100_000),
  metric: identifier,
  unit: boundedString(32),
  value: finiteNumber,
});
export type Sample = z.infer<typeof Sample>;

export const TimeSeriesPoint = z.strictObject({
  variant: identifier,
  repetition: z.number().int().min(1).max(100_000),
  metric: identifier,
  x: finiteNumber,
  value: finiteNumber,
});
export type TimeSeriesPoint = z.infer<typeof TimeSeriesPoint>;

export const RunNote = z.strictObject({
  variant: identifier.optional(),
  repetition: z.number().int().min(1).max(100_000).optional(),
  kind: boundedString(64),
  text: z.string().max(LIMITS.note),
});
export type RunNote = z.infer<typeof RunNote>;

export const runnerVersion = z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'must be a semantic version x.y.z');

/** One finished run of one scenario version on one machine, as a runner submits it. */
export const RunSubmission = z
  .strictObject({
    scenario: z.strictObject({
      key: identifier,
      version: sha256Hex,
      title: boundedString(300).optional(),
      /** The comparison pairs the scenario declares; comparisons use them instead of every pair. */
      comparisons: z.array(z.strictObject({ baseline: identifier, candidate: identifier })).max(50).optional(),
    }),
    params: boundedRecord(scalar, 200),
    hardware: HardwareSpec,
    database: DatabaseEnvironment,
    runnerVersion,
    startedAt: isoDateTime,
    finishedAt: isoDateTime,
    samples: z.array(Sample).min(1).max(LIMITS.samples),
    timeSeries: z.array(TimeSeriesPoint).max(LIMITS.timeSeriesPoints).default([]),
    notes: z.array(RunNote).max(LIMITS.notes).default([]),
    warnings: z.array(z.string().max(LIMITS.note)).max(LIMITS.notes).default([]),
    /** Order in which variant × repetition ran (interleaved A B A B …). */
    order: z.array(z.strictObject({ variant: identifier, repetition: z.number().int().min(1) })).max(LIMITS.samples).optional(),
  })
  .superRefine((run, ctx) => {
    if (Date.parse(run.finishedAt) < Date.parse(run.startedAt)) {
      ctx.addIssue({ code: 'custom', path: ['finishedAt'], message: 'must not be before startedAt' });
    }
    const seen = new Set<string>();
    run.samples.forEach((s, i) => {
      const key = `${s.variant}\u0000${s.repetition}\u0000${s.metric}`;
      if (seen.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['samples', i],
          message: `duplicate sample for variant ${s.variant}, repetition ${s.repetition}, metric ${s.metric}`,
        });
      }
      seen.add(key);
    });
    // A metric has one unit within a run; mixing seconds and milliseconds would corrupt comparisons.
    const units = new Map<string, string>();
    run.samples.forEach((s, i) => {
      const u = units.get(s.metric);
      if (u !== undefined && u !== s.unit) {
        ctx.addIssue({ code: 'custom', path: ['samples', i, 'unit'], message: `metric ${s.metric} already uses unit ${u}` });
      }
      units.set(s.metric, s.unit);
    });
  });
export type RunSubmission = z.infer<typeof RunSubmission>;
export type RunSubmissionInput = z.input<typeof RunSubmission>;
