import { z } from 'zod';
import { HardwareSpec, StorageKind } from './hardware.ts';
import { MeasuredHardware, StorageTier } from './measured-hardware.ts';
import { DatabaseEnvironment, Engine } from './database.ts';
import { RunNote, RunSubmissionOptions, Sample, TimeSeriesPoint } from './run.ts';
import { RunNoiseDetail } from './noise.ts';
import { identifier, isoDateTime, List, scalar, sha256Hex, text } from './primitives.ts';

/** RFC 9457 problem details, with the failing field paths and the request id. */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  instance: z.string().optional(),
  requestId: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof Problem>;

export const RunSource = z.enum(['measured', 'published']);
export type RunSource = z.infer<typeof RunSource>;

export const RunStatus = z.enum(['stored']);

export const HardwareRef = z.object({
  fingerprint: sha256Hex,
  class: z.string(),
});

export const RunAccepted = z.object({
  id: z.uuid(),
  status: RunStatus,
  idempotencyKey: z.string(),
  scenario: z.object({ key: z.string(), version: z.string() }),
  hardware: HardwareRef,
  samples: z.number().int(),
  timeSeriesPoints: z.number().int(),
  receivedAt: isoDateTime,
  links: z.object({ self: z.string() }),
});
export type RunAccepted = z.infer<typeof RunAccepted>;

export const RunSummary = z.object({
  id: z.uuid(),
  source: RunSource,
  status: RunStatus,
  scenario: z.object({ key: z.string(), version: z.string() }),
  hardware: HardwareRef,
  database: z.object({ engine: Engine, version: z.string(), major: z.number(), minor: z.number() }),
  runner: z.string().nullable(),
  runnerVersion: z.string(),
  startedAt: isoDateTime,
  finishedAt: isoDateTime,
  receivedAt: isoDateTime,
  samples: z.number().int(),
  links: z.object({ self: z.string() }),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const RunDetail = RunSummary.extend({
  params: z.record(z.string(), scalar),
  /** The run options (repetitions, until-stable, scale); null for runs that did not send them. */
  options: RunSubmissionOptions.nullable().default(null),
  hardwareSpec: HardwareSpec,
  databaseEnvironment: DatabaseEnvironment,
  samples: z.array(Sample),
  timeSeries: z.array(TimeSeriesPoint),
  notes: z.array(RunNote),
  warnings: z.array(z.string()),
  order: z.array(z.object({ variant: z.string(), repetition: z.number() })).nullable(),
  /** How noisy the machine was while the run measured, and whether that flags it; null when the run did not measure it. */
  noise: RunNoiseDetail.nullable().default(null),
});
export type RunDetail = z.infer<typeof RunDetail>;

/** A page of a list: its items and the cursor of the next page. */
export const Page = <T extends z.ZodType>(item: T) => List(item).extend({ nextCursor: z.string().nullable() });

export const RunList = Page(RunSummary);
export type RunList = z.infer<typeof RunList>;

const cursor = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be a cursor returned by a previous page');
const limit = z.coerce.number().int().min(1).max(500).default(50);

export const RunListQuery = z.strictObject({
  scenario: identifier.optional(),
  hardware: sha256Hex.optional(),
  class: text(100).optional(),
  engine: Engine.optional(),
  source: z.enum(['measured', 'published', 'all']).default('all'),
  cursor: cursor.optional(),
  limit,
});
export type RunListQuery = z.infer<typeof RunListQuery>;

export const HardwareSummary = z.object({
  fingerprint: sha256Hex,
  class: z.string(),
  cpuModel: z.string(),
  physicalCores: z.number().int(),
  logicalCpus: z.number().int(),
  memoryBytes: z.number(),
  storageKind: StorageKind,
  storageModel: z.string().nullable(),
  /** The tier the first probe of this machine measured (it names the disk in the class); null when never probed. */
  storageTier: StorageTier.nullable(),
  runs: z.number().int(),
  firstSeenAt: isoDateTime,
  lastSeenAt: isoDateTime,
  links: z.object({ self: z.string() }),
});
export type HardwareSummary = z.infer<typeof HardwareSummary>;

export const HardwareList = Page(HardwareSummary);
export const HardwareListQuery = z.strictObject({
  class: text(100).optional(),
  storage: StorageKind.optional(),
  cursor: cursor.optional(),
  limit,
});
export type HardwareListQuery = z.infer<typeof HardwareListQuery>;

/** One run's probe of its machine, as a hardware record lists it. */
export const HardwareMeasurement = MeasuredHardware.omit({ notes: true }).extend({
  runId: z.uuid(),
  storageTier: StorageTier.nullable(),
});

/** How many of a machine's probes its hardware record lists (the newest). */
export const HARDWARE_MEASUREMENTS_SHOWN = 50;

export const HardwareDetail = HardwareSummary.extend({
  spec: HardwareSpec,
  scenarios: z.array(z.object({ key: z.string(), runs: z.number().int() })),
  /** The newest probes of this machine (HARDWARE_MEASUREMENTS_SHOWN), newest first: the figures move, the fingerprint does not. */
  measurements: z.array(HardwareMeasurement),
});
export type HardwareDetail = z.infer<typeof HardwareDetail>;

export const ScenarioSummary = z.object({
  key: z.string(),
  title: z.string().nullable(),
  runs: z.number().int(),
  versions: z.array(z.object({ version: z.string(), firstSeenAt: isoDateTime, runs: z.number().int() })),
});
export const ScenarioList = List(ScenarioSummary);
export type ScenarioList = z.infer<typeof ScenarioList>;

export const Health = z.object({ status: z.literal('ok') });
/** The job queue's tables (pg-boss's schema) from the server's statistics: their dead rows are what slows claims. */
const QueueTables = z.object({
  tables: z.number().int(),
  liveRows: z.number(),
  deadRows: z.number(),
  mostDead: z
    .object({ table: z.string(), liveRows: z.number(), deadRows: z.number(), vacuumedAt: isoDateTime.nullable() })
    .nullable(),
});
export const Readiness = z.object({
  status: z.literal('ok'),
  database: z.literal('ok'),
  /** With the fleet's routes on and its schema created. */
  queue: QueueTables.optional(),
});
