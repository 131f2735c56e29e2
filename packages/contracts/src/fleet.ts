import { z } from 'zod';
import { Engine, ServerRelease } from './database.ts';
import { HardwareSpec } from './hardware.ts';
import { identifier, isoDateTime, List, pageLimit, ParamValues } from './primitives.ts';

/**
 * The fleet: operators request runs (jobs), agents claim and run them. Jobs live in pg-boss in the
 * results database; these are the public shapes, not pg-boss's.
 */

export const JobState = z.enum(['queued', 'active', 'completed', 'failed', 'cancelled']);
export type JobState = z.infer<typeof JobState>;

export const fleetLabel = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,31}$/,
    'must be 1–32 lower-case letters, digits, _ or -, starting with a letter or digit',
  );

const runnerName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be a runner name');

/** Which machines may run a job: one hardware class, one named runner, or runners having every label. */
export const JobTarget = z.union([
  z.strictObject({ class: z.string().min(1).max(100) }),
  z.strictObject({ runner: runnerName }),
  z.strictObject({ labels: z.array(fleetLabel).min(1).max(8) }),
]);
export type JobTarget = z.infer<typeof JobTarget>;

export const JobRequest = z.strictObject({
  scenario: identifier,
  /** Overrides of the scenario's declared parameters; the scenario's own schema checks each value. */
  params: z.record(z.string().max(64), z.union([z.string().max(200), z.number(), z.boolean()])).default({}),
  repetitions: z.number().int().min(1).max(1000).optional(),
  /**
   * A server major version (e.g. 16): only agents whose target runs that major take the job. The
   * API accepts SUPPORTED_POSTGRESQL_MAJORS for a PostgreSQL scenario and none for a MariaDB/MySQL one.
   */
  server: z.number().int().min(1).max(99).optional(),
  /**
   * One release of a managed major (e.g. "17.4"): only agents that can run exactly that release
   * take the job (an agent with `--server` of its major installs it; one whose target runs it).
   * Implies `server` (its major); with both, they must agree. Whether the npm registry has the
   * release is known to the agent: one that cannot install it fails the job with the registry's
   * releases of that major in its sentence.
   */
  release: ServerRelease.optional(),
  /** Absent: any agent whose engine fits. */
  for: JobTarget.optional(),
  /** Higher first. */
  priority: z.number().int().min(-100).max(100).default(0),
});
export type JobRequest = z.infer<typeof JobRequest>;

/**
 * Scenario × releases in one call: one job per release, each as `JobRequest` with that `release`
 * (e.g. every release of 14–18 that `tunelab servers list --available --json` lists).
 */
export const JobReleasesRequest = JobRequest.omit({ server: true, release: true }).extend({
  releases: z
    .array(ServerRelease)
    .min(1)
    .max(200)
    .refine((r) => new Set(r).size === r.length, 'must not name a release twice'),
});
export type JobReleasesRequest = z.infer<typeof JobReleasesRequest>;

/**
 * Which machines may run a job, as shown: a runner target's name only to an operator; to anyone
 * else `{ runner: <public label> }`, or `{ runner: null }` when that runner has none.
 */
const JobTargetShown = z.union([
  z.strictObject({ class: z.string().min(1).max(100) }),
  z.strictObject({ runner: z.string().nullable() }),
  z.strictObject({ labels: z.array(fleetLabel).min(1).max(8) }),
]);

export const Job = z.object({
  id: z.uuid(),
  state: JobState,
  scenario: z.string(),
  params: ParamValues,
  repetitions: z.number().int().nullable(),
  engine: Engine,
  server: z.number().int().nullable(),
  /** The exact release asked for (`server` is its major), or null: any release of `server`. */
  release: z.string().nullable(),
  for: JobTargetShown.nullable(),
  priority: z.number().int(),
  /** Attempts started so far (a re-lease after a lost agent counts). */
  attempts: z.number().int(),
  /**
   * The runner that claimed it last: its name to an operator (operator token); to anyone else its
   * public label, or null (unclaimed, or a runner without a public label).
   */
  runner: z.string().nullable(),
  runId: z.uuid().nullable(),
  /**
   * The runner's own sentence when an attempt failed: as sent to an operator; to anyone else with
   * URLs, hosts, addresses and credentials masked (`redactForPublic`).
   */
  error: z.string().nullable(),
  createdAt: isoDateTime,
  startedAt: isoDateTime.nullable(),
  finishedAt: isoDateTime.nullable(),
});
export type Job = z.infer<typeof Job>;

export const JobList = List(Job);
export type JobList = z.infer<typeof JobList>;

export const JobListQuery = z.object({
  state: JobState.optional(),
  scenario: identifier.optional(),
  limit: pageLimit(1000, 100),
});

/** What an agent announces when it asks for work. */
export const ClaimRequest = z.strictObject({
  hardware: HardwareSpec,
  labels: z.array(fleetLabel).max(32).default([]),
  /** The engine and major version of the agent's target. */
  engine: Engine,
  server: z.number().int().min(1).max(99).optional(),
  /**
   * The release the agent's target runs (e.g. "17.6"): it takes jobs naming that release, or none.
   * Absent with `anyRelease`, or from an agent older than releases: it takes no job naming one.
   */
  release: ServerRelease.optional(),
  /** The agent installs any release of its major per job (`tunelab agent --server MAJOR`). */
  anyRelease: z.boolean().default(false),
  /** Seconds to wait for a job before answering 204 (long poll). */
  waitSeconds: z.number().int().min(0).max(50).default(25),
});
export type ClaimRequest = z.infer<typeof ClaimRequest>;

/** A claimed job: what to run, and the attempt to quote in heartbeats. */
export const ClaimedJob = z.object({
  id: z.uuid(),
  attempt: z.number().int(),
  scenario: z.string(),
  params: ParamValues,
  repetitions: z.number().int().nullable(),
  /** The release to run on (`--server <release>`), or null for any release of the agent's server. */
  release: z.string().nullable().default(null),
  /** Heartbeat at least this often (seconds); the lease lapses after `leaseSeconds` of silence. */
  heartbeatSeconds: z.number().int(),
  leaseSeconds: z.number().int(),
});
export type ClaimedJob = z.infer<typeof ClaimedJob>;

export const JobAttemptBody = z.strictObject({ attempt: z.number().int().min(0) });
export const JobFailBody = z.strictObject({
  attempt: z.number().int().min(0),
  error: z.string().min(1).max(4000),
  /**
   * Retrying cannot help: the runner refused the job itself (a release the registry does not have,
   * a scenario it does not hold, a parameter the scenario refuses). The job fails now, without the
   * retries it has left. Default false: the job is retried with backoff until its retry limit.
   */
  final: z.boolean().optional(),
});

/** Heartbeat answer: `stop` when the job is no longer this agent's (cancelled, re-leased, done). */
export const HeartbeatAnswer = z.object({ state: JobState, stop: z.boolean() });

export const CoverageQuery = z.object({ scenario: identifier.optional() });

export const CoverageCell = z.object({
  scenario: z.string(),
  hardwareClass: z.string().nullable(),
  engine: z.string(),
  server: z.number().int().nullable(),
  runs: z.number().int(),
  newestRun: isoDateTime.nullable(),
  openJobs: z.number().int(),
});
export type CoverageCell = z.infer<typeof CoverageCell>;

/**
 * Something not measured yet: a scenario × engine and server major × hardware class with no run.
 * `missing` says how much is missing: the whole `scenario` (no run at all), this `server` (runs on
 * other servers only) or this `class` (runs on this server, but not on this hardware class).
 */
export const CoverageGap = z.object({
  scenario: z.string(),
  engine: z.string(),
  /** A supported PostgreSQL major; null for a MariaDB/MySQL scenario (any major of the engine). */
  server: z.number().int().nullable(),
  /** Null when no hardware class has any run or job yet. */
  hardwareClass: z.string().nullable(),
  missing: z.enum(['scenario', 'server', 'class']),
  /** Open jobs that may fill it: for this class, or for no class (a runner, labels, any agent). */
  openJobs: z.number().int(),
  sentence: z.string(),
});
export type CoverageGap = z.infer<typeof CoverageGap>;

/**
 * One scenario × release of the release matrix: what was measured on it (runs on servers of that
 * release, jobs or not), what the fleet still has to do (jobs naming it, queued or active) and what
 * failed (jobs naming it that failed for good, with the newest failure sentence).
 */
export const ReleaseCell = z.object({
  scenario: z.string(),
  engine: z.string(),
  release: z.string(),
  runs: z.number().int(),
  /** The hardware classes of those runs. */
  hardwareClasses: z.array(z.string()),
  pendingJobs: z.number().int(),
  failedJobs: z.number().int(),
  /** The newest failure of a job naming this release (also of a pending one whose attempt failed); masked for the public. */
  lastError: z.string().nullable(),
  /** `measured`: a run; `pending`: no run, a job queued or active; `failed`: no run, only failed jobs; `missing`: none of these. */
  status: z.enum(['measured', 'pending', 'failed', 'missing']),
});
export type ReleaseCell = z.infer<typeof ReleaseCell>;

/**
 * Scenario × release for engines whose release is MAJOR.MINOR (PostgreSQL): the columns are every
 * release measured or requested (for any of the scenarios shown) per engine, oldest first; every
 * scenario that has a run or job on a release of that engine has a cell in each column; a cell
 * without a run is a gap (`status` pending, failed or missing).
 */
export const ReleaseMatrix = z.object({
  releases: z.array(z.object({ engine: z.string(), release: z.string() })),
  cells: z.array(ReleaseCell),
});
export type ReleaseMatrix = z.infer<typeof ReleaseMatrix>;

export const Coverage = z.object({
  /** Every scenario (measured or not; the one asked for with `scenario`). */
  scenarios: z.array(z.string()),
  hardwareClasses: z.array(z.string()),
  servers: z.array(z.object({ engine: z.string(), major: z.number().int().nullable() })),
  cells: z.array(CoverageCell),
  /** Per scenario, every server it should be measured on (PostgreSQL: SUPPORTED_POSTGRESQL_MAJORS) × hardware class without a run. */
  // Optional in the type so that a Coverage built before gaps existed still is one; the API always sends it.
  gaps: z.array(CoverageGap).optional(),
  /** The release matrix (optional in the type, as `gaps`; the API always sends it). */
  releaseMatrix: ReleaseMatrix.optional(),
});
export type Coverage = z.infer<typeof Coverage>;
