/**
 * The fleet's queue: jobs operators request and agents claim, on pg-boss (https://pgboss.io) in
 * the results database, schema `tunelab_fleet` — its own pool on PostgreSQL, the same embedded
 * PGlite through pg-boss's `fromPglite` adapter otherwise.
 *
 * pg-boss owns the states (created/retry → active → completed/failed/cancelled), the leases
 * (`heartbeatSeconds`: an active job without a heartbeat for that long is failed by pg-boss's
 * supervisor and retried), the retries with exponential backoff and the priorities. `fleet_jobs`
 * keeps what pg-boss does not: the request as made, who claimed it, and the one run that answered
 * it (`run_key` is reserved before the run's ingest, so a second run for the same job — e.g. a
 * killed agent's spool delivering late — is refused and never stored).
 *
 * Routing: jobs that can run on the same agents share a queue (`fleet/<hash of engines, server,
 * for>`); an agent fetches from every queue whose criteria it meets, the most specific first.
 */
import { randomUUID } from 'node:crypto';
import { PgBoss, fromPglite } from 'pg-boss';
import {
  hardwareClassOf,
  redactForPublic,
  resolveParams,
  factsOf,
  majorOfRelease,
  releaseOfParts,
  type ClaimedJob,
  type Coverage,
  type CoverageGap,
  type ScenarioDocument,
  type HardwareSpec,
  type Job,
  type JobReleasesRequest,
  type JobRequest,
  type JobState,
  type ReleaseMatrix,
} from '@tunelab/contracts';
import {
  DEFAULT_SCENARIOS_DIR,
  listScenarioDirs,
  loadScenario,
  sha256Hex,
  type LoadedScenario,
} from '@tunelab/scenarios';
import type { Connection, SqlRunner } from './open.ts';
import { runnerMachineFingerprint } from './hashing.ts';
import { buildReleaseMatrix, hasRelease, type ReleaseJobRow, type ReleaseRunRow } from './fleet-releases.ts';
import type { DbContext, Queries } from './context.ts';

export const FLEET_SCHEMA = 'tunelab_fleet';

export type FleetOptions = {
  /** An active job whose agent sends no heartbeat for this long is re-queued (pg-boss minimum 10). */
  leaseSeconds?: number;
  /** Attempts after the first, each after an exponential backoff. */
  retryLimit?: number;
  /** Longest a single attempt may stay active, heartbeats or not. */
  jobTimeoutSeconds?: number;
  scenariosDir?: string;
  /** Poll interval of a waiting claim for jobs queued elsewhere (other API processes, retries). */
  pollMs?: number;
  /** pg-boss's own connection pool on PostgreSQL. */
  poolSize?: number;
  onError?: (err: Error) => void;
};

/** A job request the scenario's own schema refuses: `field` is a JSON Pointer into the body. */
export class JobRequestError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Refuses a server major no agent can take: a scenario whose engines all have managed servers
 * must name one of their managed majors; a scenario on engines without managed servers names none
 * (the project keeps no list of their majors to check it against: any agent whose target runs the
 * engine takes such a job). `field` is where the major came from (`/server`, or a release's field).
 */
export function checkJobServer(
  scenario: string,
  engines: readonly string[],
  server: number | undefined,
  field = '/server',
): void {
  if (server === undefined) return;
  const facts = engines.map(factsOf);
  const managed = facts.every((f) => f && f.managedMajors.length > 0);
  if (managed) {
    const majors = [...new Set(facts.flatMap((f) => f!.managedMajors))];
    if (majors.includes(server)) return;
    throw new JobRequestError(
      field,
      `server ${server} is not a ${facts.map((f) => f!.name).join(' or ')} major the fleet runs; choose one of ${majors.join(', ')} (or leave server out)`,
    );
  }
  throw new JobRequestError(
    field,
    `scenario "${scenario}" runs on ${engines.join(', ')}, whose majors the fleet does not know: leave server out (any agent whose target runs ${engines.join(' or ')} takes the job)`,
  );
}

/** An agent's call about a job that is not its own any more (re-leased, finished, unknown attempt). */
export class JobConflictError extends Error {}

export type AgentIdentity = {
  runnerName: string;
  /**
   * The runner's id (its token's). With it, a job for a hardware class is matched against the
   * class the results database keeps for this runner's machine, the one its runs are answered
   * under (its stored storage tier): the spec an agent announces may have no disk figures, or
   * figures of a busy moment, and name another class.
   */
  runnerId?: string | null | undefined;
  hardware: HardwareSpec;
  labels: readonly string[];
  engine: string;
  server?: number | undefined;
  /** The release the agent's target runs: it takes jobs naming that release (or none). */
  release?: string | undefined;
  /** It installs any release of its major per job (a managed server). */
  anyRelease?: boolean | undefined;
};

export type RunSlot =
  | { status: 'ours' }
  | { status: 'taken'; runId: string | null }
  | { status: 'unknown-job' }
  /** The job is not this runner's to answer: never claimed, held by another agent, or finished. */
  | { status: 'not-yours'; reason: string }
  /** The run is not what the job asked for: `field` is a JSON Pointer into the run. */
  | { status: 'mismatch'; field: string; reason: string };

/** What a run is, as far as a job can ask for it. */
export type RunForJob = {
  scenario: string;
  params: Record<string, string | number | boolean | null>;
  repetitions: number | undefined;
  engine: string;
  major: number;
  /** The second number of the server's version (PostgreSQL 17.4 → 4): checked against a job's release. */
  minor?: number | undefined;
};

/** The first way `run` is not what the job of `row` requested, or null. */
function mismatchOf(row: JobRow, run: RunForJob): { field: string; reason: string } | null {
  if (run.scenario !== row.scenario_key)
    return { field: '/scenario/key', reason: `the job asks for ${row.scenario_key}, the run is of ${run.scenario}` };
  for (const [name, value] of Object.entries(row.params)) {
    if (!(name in run.params) || String(run.params[name]) !== String(value))
      return {
        field: `/params/${name}`,
        reason: `the job asks for ${name} = ${String(value)}, the run has ${name in run.params ? String(run.params[name]) : 'none'}`,
      };
  }
  if (row.repetitions !== null && run.repetitions !== row.repetitions)
    return {
      field: '/options/repetitions',
      reason: `the job asks for ${row.repetitions} repetitions, the run made ${run.repetitions ?? 'an unstated number'}`,
    };
  const engines = row.engine.split(',');
  if (!engines.includes(run.engine))
    return {
      field: '/database/engine',
      reason: `the job asks for ${engines.join(' or ')}, the run is on ${run.engine}`,
    };
  if (row.server_major !== null && run.major !== row.server_major)
    return {
      field: '/database/major',
      reason: `the job asks for server ${row.server_major}, the run is on ${run.major}`,
    };
  const release = run.minor === undefined ? null : releaseOfParts(run.engine, { major: run.major, minor: run.minor });
  if (row.server_release !== null && release !== row.server_release)
    return {
      field: '/database/version',
      reason: `the job asks for release ${row.server_release}, the run is on ${release ?? 'an unstated release'}`,
    };
  return null;
}

type JobRow = {
  id: string;
  queue: string;
  scenario_key: string;
  params: Record<string, string | number | boolean>;
  repetitions: number | null;
  engine: string;
  server_major: number | null;
  server_release: string | null;
  for_kind: string;
  for_value: string | null;
  priority: number;
  claimed_by: string | null;
  run_id: string | null;
  run_key: string | null;
  created_at: Date;
  state: string | null;
  retry_count: number | null;
  started_on: Date | null;
  completed_on: Date | null;
  output: unknown;
  claimed_label: string | null;
  for_label: string | null;
};

/** Who reads a job: an operator sees runner names and failure sentences as sent; anyone else public labels and masked sentences. */
export type JobViewer = 'operator' | 'public';

type QueueCriteria = {
  queue: string;
  engines: string[];
  server: number | null;
  release: string | null;
  kind: string;
  value: string | null;
};

const JOB_COLUMNS = `f.id, f.queue, f.scenario_key, f.params, f.repetitions, f.engine, f.server_major, f.server_release, f.for_kind,
  f.for_value, f.priority, f.claimed_by, f.run_id, f.run_key, f.created_at,
  j.state::text AS state, j.retry_count, j.started_on, j.completed_on, j.output,
  (SELECT public_label FROM runners WHERE name = f.claimed_by) AS claimed_label,
  (SELECT public_label FROM runners WHERE f.for_kind = 'runner' AND name = f.for_value) AS for_label`;
const JOB_FROM = `fleet_jobs f LEFT JOIN ${FLEET_SCHEMA}.job j ON j.id = f.id AND j.name = f.queue`;

/** pg-boss states → the API's; a job answered by a run is completed whatever pg-boss says. */
function stateOf(row: Pick<JobRow, 'state' | 'run_id'>): JobState {
  if (row.run_id) return 'completed';
  switch (row.state) {
    case 'active':
      return 'active';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'queued';
  }
}

function errorOf(output: unknown): string | null {
  if (!output || typeof output !== 'object') return null;
  const o = output as Record<string, unknown>;
  if (typeof o.error === 'string') return o.error;
  // pg-boss's own expiries: `{ value: { message: "job heartbeat timeout" } }`.
  const inner = o.value && typeof o.value === 'object' ? (o.value as Record<string, unknown>) : o;
  if (inner.message === 'job heartbeat timeout') return 'the agent stopped heartbeating: its lease lapsed';
  if (typeof inner.message === 'string') return inner.message;
  return null;
}

function targetOf(kind: string, value: string | null, label: string | null, viewer: JobViewer): Job['for'] {
  if (kind === 'class' && value) return { class: value };
  if (kind === 'runner' && value) return { runner: viewer === 'operator' ? value : label };
  if (kind === 'labels' && value) return { labels: value.split(',') };
  return null;
}

function toJob(row: JobRow, viewer: JobViewer = 'operator'): Job {
  const state = stateOf(row);
  const finished = state === 'completed' || state === 'failed' || state === 'cancelled';
  const error = state === 'completed' ? null : errorOf(row.output);
  return {
    id: row.id,
    state,
    scenario: row.scenario_key,
    params: row.params,
    repetitions: row.repetitions,
    engine: (row.engine.split(',')[0] ?? 'postgresql') as Job['engine'],
    server: row.server_major,
    release: row.server_release,
    for: targetOf(row.for_kind, row.for_value, row.for_label, viewer),
    priority: row.priority,
    attempts: row.started_on ? (row.retry_count ?? 0) + 1 : 0,
    runner: viewer === 'operator' ? row.claimed_by : row.claimed_label,
    runId: row.run_id,
    error: error !== null && viewer === 'public' ? redactForPublic(error) : error,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_on ? row.started_on.toISOString() : null,
    finishedAt: finished && row.completed_on ? row.completed_on.toISOString() : null,
  };
}

const affected = (r: object) => ('affected' in r && typeof r.affected === 'number' ? r.affected : 0);

type Waiter = { eligible: (queue: string) => boolean; wake: () => void };

/** What every step of a fleet shares: its settings, its pg-boss and the state of this process's queue. */
type FleetContext = {
  lease: number;
  retryLimit: number;
  jobTimeout: number;
  pollMs: number;
  scenariosDir: string;
  sql: SqlRunner;
  boss: PgBoss;
  knownQueues: Set<string>;
  /** The queues with a claimable job, read at most once a second; `pending` is the read in flight, which every claim then awaits. */
  criteria: { at: number; rows: QueueCriteria[]; version: number; pending?: Promise<QueueCriteria[]> | undefined };
  waiters: Set<Waiter>;
  scenarioCache: Map<string, { at: number; scenario: LoadedScenario | null }>;
  stopped: boolean;
};

/**
 * pg-boss in the results database's FLEET_SCHEMA: its own pool of `poolSize` connections on
 * PostgreSQL, the embedded PGlite otherwise; its supervisor and monitor run every `intervalSeconds`.
 */
export function openBoss(
  conn: Pick<Connection, 'queueTarget'>,
  o: { intervalSeconds: number; poolSize: number; onError?: (err: Error) => void },
): PgBoss {
  const bossOptions = {
    schema: FLEET_SCHEMA,
    superviseIntervalSeconds: o.intervalSeconds,
    monitorIntervalSeconds: o.intervalSeconds,
    schedule: false,
  };
  const boss =
    'pglite' in conn.queueTarget
      ? new PgBoss({ ...bossOptions, db: fromPglite(conn.queueTarget.pglite) })
      : new PgBoss({
          ...bossOptions,
          ...conn.queueTarget.pool,
          connectionString: conn.queueTarget.connectionString,
          max: o.poolSize,
        });
  boss.on('error', (err: Error) => o.onError?.(err));
  return boss;
}

/**
 * The fleet's pg-boss: the supervisor notices a lapsed lease within a fifth of it, and a queue's
 * expiry pass (at most once per monitor interval) runs as often.
 */
const createBoss = (conn: Pick<Connection, 'queueTarget'>, options: FleetOptions, lease: number): PgBoss =>
  openBoss(conn, {
    intervalSeconds: Math.max(1, Math.min(60, Math.floor(lease / 5))),
    poolSize: options.poolSize ?? 4,
    ...(options.onError ? { onError: options.onError } : {}),
  });

function createFleetContext(conn: Pick<Connection, 'sql' | 'queueTarget'>, options: FleetOptions): FleetContext {
  const lease = Math.max(10, Math.round(options.leaseSeconds ?? 90));
  return {
    lease,
    retryLimit: options.retryLimit ?? 3,
    jobTimeout: options.jobTimeoutSeconds ?? 6 * 3600,
    pollMs: options.pollMs ?? 2000,
    scenariosDir: options.scenariosDir ?? DEFAULT_SCENARIOS_DIR,
    sql: conn.sql,
    boss: createBoss(conn, options, lease),
    knownQueues: new Set<string>(),
    criteria: { at: 0, rows: [], version: 0 },
    waiters: new Set<Waiter>(),
    scenarioCache: new Map(),
    stopped: false,
  };
}

async function scenarioByKey(ctx: FleetContext, key: string): Promise<LoadedScenario | null> {
  const hit = ctx.scenarioCache.get(key);
  if (hit && Date.now() - hit.at < 10_000) return hit.scenario;
  const dir = (await listScenarioDirs(ctx.scenariosDir)).find((d) => d.replace(/\/+$/, '').split('/').pop() === key);
  const scenario = dir ? await loadScenario(dir) : null;
  ctx.scenarioCache.set(key, { at: Date.now(), scenario });
  return scenario;
}

async function ensureQueue(ctx: FleetContext, queue: string) {
  if (ctx.knownQueues.has(queue)) return;
  await ctx.boss.createQueue(queue, {
    retryLimit: ctx.retryLimit,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    heartbeatSeconds: ctx.lease,
    expireInSeconds: ctx.jobTimeout,
    // Job history is the fleet's record: never deleted by pg-boss's maintenance.
    deleteAfterSeconds: 0,
  });
  ctx.knownQueues.add(queue);
}

async function queueCriteria(ctx: FleetContext): Promise<QueueCriteria[]> {
  if (Date.now() - ctx.criteria.at < 1000) return ctx.criteria.rows;
  // One read for every claim that finds the rows stale at once: with 10 of them side by side, a
  // 50 ms read took 600–700 ms each (bench:fleet's history phase, apps/api/bench/README.md).
  if (ctx.criteria.pending) return ctx.criteria.pending;
  const pending = readQueueCriteria(ctx).finally(() => {
    if (ctx.criteria.pending === pending) ctx.criteria.pending = undefined;
  });
  ctx.criteria.pending = pending;
  return pending;
}

/** A job was queued: the next claim reads the criteria afresh, not from a read begun before it. */
function criteriaChanged(ctx: FleetContext) {
  ctx.criteria.version++;
  ctx.criteria.at = 0;
  ctx.criteria.pending = undefined;
}

async function readQueueCriteria(ctx: FleetContext): Promise<QueueCriteria[]> {
  const startedAt = Date.now();
  const version = ctx.criteria.version;
  const rows = await ctx.sql.query<{
    queue: string;
    engine: string;
    server_major: number | null;
    server_release: string | null;
    for_kind: string;
    for_value: string | null;
  }>(
    // Only queues with a job waiting to be claimed, found from the waiting jobs alone (`state <
    // 'active' AND NOT blocked` is the predicate of pg-boss's own index of claimable jobs, job_i11),
    // and each queue's criteria from one of its fleet_jobs rows (a queue is named by the hash of
    // them). The cost of a claim grows with the jobs waiting, never with the history: joined
    // through fleet_jobs' rows without a run (every claimed, failed or cancelled job's), the read
    // took 49 ms against 10^6 completed jobs, and, with the tables not yet analysed, 1.7 s with
    // 3,000 jobs waiting (each row scanned the waiting jobs again); this one 3 ms.
    `SELECT w.name AS queue, f.engine, f.server_major, f.server_release, f.for_kind, f.for_value
       FROM (SELECT DISTINCT name FROM ${FLEET_SCHEMA}.job WHERE state < 'active' AND NOT blocked) w
       CROSS JOIN LATERAL (
         SELECT engine, server_major, server_release, for_kind, for_value FROM fleet_jobs WHERE queue = w.name LIMIT 1
       ) f`,
    [],
  );
  const criteria = rows.map((r) => ({
    queue: r.queue,
    engines: r.engine.split(','),
    server: r.server_major,
    release: r.server_release,
    kind: r.for_kind,
    value: r.for_value,
  }));
  // Kept for a second unless a job was queued while it was read (then the next claim reads again).
  if (ctx.criteria.version === version) {
    ctx.criteria.rows = criteria;
    ctx.criteria.at = startedAt;
  }
  return criteria;
}

const SPECIFICITY: Record<string, number> = { runner: 0, labels: 1, class: 2, any: 3 };

/** The class the results database keeps for the agent's machine, else the one its announced spec gives. */
async function agentClassOf(sql: SqlRunner, agent: AgentIdentity): Promise<string> {
  if (agent.runnerId) {
    const [row] = await sql.query<{ hardware_class: string }>(
      'SELECT hardware_class FROM hardware_profiles WHERE fingerprint = $1',
      [runnerMachineFingerprint(agent.hardware, agent.runnerId)],
    );
    if (row) return row.hardware_class;
  }
  return hardwareClassOf(agent.hardware);
}

function matcher(agent: AgentIdentity, hardwareClass: string) {
  return (c: QueueCriteria) => {
    if (!c.engines.includes(agent.engine)) return false;
    if (c.server !== null && c.server !== agent.server) return false;
    if (c.release !== null && !agent.anyRelease && c.release !== agent.release) return false;
    if (c.kind === 'class') return c.value === hardwareClass;
    if (c.kind === 'runner') return c.value === agent.runnerName;
    if (c.kind === 'labels') return (c.value ?? '').split(',').every((l) => agent.labels.includes(l));
    return true;
  };
}

async function rowById(sql: SqlRunner, id: string): Promise<JobRow | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await sql.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM ${JOB_FROM} WHERE f.id = $1`, [id]);
  return row ?? null;
}

function wakeOne(ctx: FleetContext, queue: string) {
  for (const w of ctx.waiters) {
    if (w.eligible(queue)) {
      ctx.waiters.delete(w);
      w.wake();
      return;
    }
  }
}

/** The next job of `queue` this agent now holds, skipping jobs a run already answered; null when the queue is empty. */
async function claimFromQueue(ctx: FleetContext, queue: string, agent: AgentIdentity): Promise<ClaimedJob | null> {
  for (;;) {
    const [job] = await ctx.boss.fetch(queue, { batchSize: 1 });
    if (!job) return null;
    const [row] = await ctx.sql.query<
      Pick<JobRow, 'run_id' | 'scenario_key' | 'params' | 'repetitions' | 'server_release'>
    >(
      'UPDATE fleet_jobs SET claimed_by = $2 WHERE id = $1 RETURNING run_id, scenario_key, params, repetitions, server_release',
      [job.id, agent.runnerName],
    );
    if (!row) continue;
    if (row.run_id) {
      // Already answered by a run that arrived while the job waited for a retry: done.
      await ctx.boss.complete(queue, { id: job.id, retryCount: job.retryCount }, { runId: row.run_id });
      continue;
    }
    return {
      id: job.id,
      attempt: job.retryCount,
      scenario: row.scenario_key,
      params: row.params,
      repetitions: row.repetitions,
      release: row.server_release,
      heartbeatSeconds: Math.max(1, Math.floor(ctx.lease / 3)),
      leaseSeconds: ctx.lease,
    };
  }
}

async function tryClaim(
  ctx: FleetContext,
  agent: AgentIdentity,
  fits: (c: QueueCriteria) => boolean,
): Promise<ClaimedJob | null> {
  const queues = (await queueCriteria(ctx))
    .filter(fits)
    .sort((a, b) => (SPECIFICITY[a.kind] ?? 9) - (SPECIFICITY[b.kind] ?? 9));
  for (const { queue } of queues) {
    await ensureQueue(ctx, queue);
    const job = await claimFromQueue(ctx, queue, agent);
    if (job) return job;
  }
  return null;
}

/** Resolves when a job fitting the agent is queued here, the poll interval or the deadline passes, or `signal` aborts. */
function waitForJob(
  ctx: FleetContext,
  fits: (c: QueueCriteria) => boolean,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const waiter = {
      eligible: (queue: string) => {
        const c = ctx.criteria.rows.find((r) => r.queue === queue);
        return !c || fits(c);
      },
      wake: () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', waiter.wake);
        ctx.waiters.delete(waiter);
        resolve();
      },
    };
    const timer = setTimeout(waiter.wake, Math.min(ctx.pollMs, Math.max(0, deadline - Date.now())));
    signal?.addEventListener('abort', waiter.wake, { once: true });
    ctx.waiters.add(waiter);
  });
}

async function claim(
  ctx: FleetContext,
  agent: AgentIdentity,
  waitMs: number,
  signal?: AbortSignal,
): Promise<ClaimedJob | null> {
  const deadline = Date.now() + waitMs;
  const fits = matcher(agent, await agentClassOf(ctx.sql, agent));
  for (;;) {
    if (ctx.stopped) return null;
    const job = await tryClaim(ctx, agent, fits);
    if (job || ctx.stopped || Date.now() >= deadline || signal?.aborted) return job;
    await waitForJob(ctx, fits, deadline, signal);
  }
}

/** The job row of an agent's call, checked to be this agent's current attempt. */
async function ownRow(sql: SqlRunner, id: string, runnerName: string): Promise<JobRow> {
  const row = await rowById(sql, id);
  if (!row) throw new JobConflictError(`no job with id ${id}`);
  if (row.claimed_by !== runnerName) throw new JobConflictError(`job ${id} is not claimed by ${runnerName}`);
  return row;
}

async function stopFleet(ctx: FleetContext): Promise<void> {
  ctx.stopped = true;
  for (const w of ctx.waiters) w.wake();
  ctx.waiters.clear();
  await ctx.boss.stop({ graceful: false, close: true, timeout: 2000 });
}

/** The request's parameters, each checked against the scenario's own parameter schema. */
function checkedParams(scenario: LoadedScenario, req: JobRequest): Record<string, string | number | boolean> {
  const params: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(req.params)) {
    const r = resolveParams(scenario.doc.params, { [name]: String(value) });
    if (!r.ok) throw new JobRequestError(`/params/${name}`, r.errors.join('; '));
    params[name] = value;
  }
  return params;
}

/** Which agents a request is for, as stored: kind (any, class, runner, labels) and value (labels sorted). */
function targetKindOf(target: JobRequest['for']): { kind: string; value: string | null } {
  const kind = !target ? 'any' : 'class' in target ? 'class' : 'runner' in target ? 'runner' : 'labels';
  const value = !target
    ? null
    : 'class' in target
      ? target.class
      : 'runner' in target
        ? target.runner
        : [...new Set(target.labels)].sort().join(',');
  return { kind, value };
}

/** A request checked against its scenario: what `queueJob` stores. */
type CheckedRequest = {
  req: JobRequest;
  params: Record<string, string | number | boolean>;
  engines: string[];
  server: number | null;
  release: string | null;
};

/**
 * Checks a request against its scenario (parameters, server major, release); `releaseField` is
 * where a refused release is named (`/release`, or `/releases/3` for one of a list).
 */
async function checkRequest(ctx: FleetContext, req: JobRequest, releaseField = '/release'): Promise<CheckedRequest> {
  const scenario = await scenarioByKey(ctx, req.scenario);
  if (!scenario) throw new JobRequestError('/scenario', `no scenario "${req.scenario}"`);
  const params = checkedParams(scenario, req);
  const engines = scenario.doc.target ? [scenario.doc.target.managed] : scenario.doc.engines;
  checkJobServer(req.scenario, engines, req.server);
  const release = req.release ?? null;
  if (release === null) return { req, params, engines, server: req.server ?? null, release };
  const major = majorOfRelease(release);
  if (req.server !== undefined && req.server !== major)
    throw new JobRequestError(
      releaseField,
      `release ${release} is not a release of server ${req.server}: give a release of ${req.server}, or leave server out`,
    );
  checkJobServer(req.scenario, engines, major, releaseField);
  return { req, params, engines, server: major, release };
}

async function queueJob(ctx: FleetContext, checked: CheckedRequest, requestedBy: string | null): Promise<Job> {
  const { req, params, engines, server, release } = checked;
  const { kind, value } = targetKindOf(req.for);
  // Jobs of one release share a queue: an agent whose target runs another release never fetches them.
  const queue = `fleet/${sha256Hex(JSON.stringify(release === null ? [engines, server, kind, value] : [engines, server, kind, value, release])).slice(0, 16)}`;
  const id = randomUUID();
  await ensureQueue(ctx, queue);
  await ctx.sql.query(
    `INSERT INTO fleet_jobs (id, queue, scenario_key, params, repetitions, engine, server_major, server_release, for_kind, for_value, priority, requested_by)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      queue,
      req.scenario,
      JSON.stringify(params),
      req.repetitions ?? null,
      engines.join(','),
      server,
      release,
      kind,
      value,
      req.priority,
      requestedBy,
    ],
  );
  try {
    await ctx.boss.send(queue, { scenario: req.scenario }, { id, priority: req.priority });
  } catch (err) {
    await ctx.sql.query('DELETE FROM fleet_jobs WHERE id = $1', [id]).catch(() => undefined);
    throw err;
  }
  criteriaChanged(ctx);
  wakeOne(ctx, queue);
  const row = await rowById(ctx.sql, id);
  if (!row) throw new Error(`job ${id} vanished after it was queued`);
  return toJob(row);
}

/** Scenario × releases: every release checked before any job is queued, then one job per release, in the order given. */
async function requestReleases(
  ctx: FleetContext,
  body: JobReleasesRequest,
  requestedBy: string | null,
): Promise<Job[]> {
  const { releases, ...rest } = body;
  const checked: CheckedRequest[] = [];
  for (const [i, release] of releases.entries())
    checked.push(await checkRequest(ctx, { ...rest, release }, `/releases/${i}`));
  const jobs: Job[] = [];
  for (const c of checked) jobs.push(await queueJob(ctx, c, requestedBy));
  return jobs;
}

async function getJob(sql: SqlRunner, id: string, viewer: JobViewer): Promise<Job | null> {
  const row = await rowById(sql, id);
  return row ? toJob(row, viewer) : null;
}

async function listJobs(
  sql: SqlRunner,
  q: { state?: JobState | undefined; scenario?: string | undefined; limit: number },
  viewer: JobViewer,
): Promise<Job[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.scenario) {
    params.push(q.scenario);
    where.push(`f.scenario_key = $${params.length}`);
  }
  const stateSql: Record<JobState, string> = {
    queued: `f.run_id IS NULL AND (j.state IS NULL OR j.state::text IN ('created', 'retry'))`,
    active: `f.run_id IS NULL AND j.state::text = 'active'`,
    completed: `(f.run_id IS NOT NULL OR j.state::text = 'completed')`,
    failed: `f.run_id IS NULL AND j.state::text = 'failed'`,
    cancelled: `f.run_id IS NULL AND j.state::text = 'cancelled'`,
  };
  if (q.state) where.push(stateSql[q.state]);
  params.push(q.limit);
  const rows = await sql.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM ${JOB_FROM} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY f.created_at DESC, f.id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => toJob(r, viewer));
}

async function cancelJob(ctx: FleetContext, id: string): Promise<Job | null> {
  const row = await rowById(ctx.sql, id);
  if (!row) return null;
  if (!row.run_id) await ctx.boss.cancel(row.queue, id);
  return toJob((await rowById(ctx.sql, id)) ?? row);
}

async function heartbeat(
  ctx: FleetContext,
  id: string,
  attempt: number,
  runnerName: string,
): Promise<{ state: JobState; stop: boolean }> {
  const row = await ownRow(ctx.sql, id, runnerName);
  if (!row.run_id) {
    const r = await ctx.boss.touch(row.queue, { id, retryCount: attempt });
    if (affected(r) > 0) return { state: 'active', stop: false };
  }
  const now = (await rowById(ctx.sql, id)) ?? row;
  return { state: stateOf(now), stop: true };
}

async function failJob(
  ctx: FleetContext,
  id: string,
  attempt: number,
  runnerName: string,
  error: string,
  final: boolean,
): Promise<Job> {
  const row = await ownRow(ctx.sql, id, runnerName);
  // A refusal retrying cannot change fails now: pg-boss retries while retry_count < retry_limit.
  if (final)
    await ctx.sql.query(
      `UPDATE ${FLEET_SCHEMA}.job SET retry_limit = retry_count WHERE name = $1 AND id = $2 AND retry_count = $3 AND state = 'active'`,
      [row.queue, id, attempt],
    );
  const r = await ctx.boss.fail(row.queue, { id, retryCount: attempt }, { error });
  if (affected(r) === 0) throw new JobConflictError(`job ${id} attempt ${attempt} is not active any more`);
  return toJob((await rowById(ctx.sql, id)) ?? row);
}

async function releaseJob(ctx: FleetContext, id: string, attempt: number, runnerName: string): Promise<Job> {
  const row = await ownRow(ctx.sql, id, runnerName);
  const r = await ctx.boss.cancel(row.queue, { id, retryCount: attempt });
  if (affected(r) === 0) throw new JobConflictError(`job ${id} attempt ${attempt} is not active any more`);
  await ctx.boss.resume(row.queue, id);
  wakeOne(ctx, row.queue);
  return toJob((await rowById(ctx.sql, id)) ?? row);
}

/** Why the job of `row` cannot take this runner's run, or null when it may reserve the slot. */
function slotRefusal(row: JobRow, jobId: string, runnerName: string, run: RunForJob): RunSlot | null {
  const state = stateOf(row);
  if (state === 'cancelled' || state === 'failed' || state === 'completed')
    return { status: 'not-yours', reason: `job ${jobId} is ${state}` };
  if (row.claimed_by === null) return { status: 'not-yours', reason: `job ${jobId} was never claimed by an agent` };
  if (row.claimed_by !== runnerName) return { status: 'not-yours', reason: `job ${jobId} is held by another agent` };
  const mismatch = mismatchOf(row, run);
  if (mismatch) return { status: 'mismatch', ...mismatch };
  return null;
}

async function reserveRunSlot(
  sql: SqlRunner,
  jobId: string,
  runKey: string,
  runnerName: string,
  run: RunForJob,
): Promise<RunSlot> {
  const row = await rowById(sql, jobId);
  if (!row) return { status: 'unknown-job' };
  // The run that answered it, sent again (a retry whose answer was lost): the ingest replays it.
  if (row.run_id) return row.run_key === runKey ? { status: 'ours' } : { status: 'taken', runId: row.run_id };
  const refusal = slotRefusal(row, jobId, runnerName, run);
  if (refusal) return refusal;
  const mine = await sql.query<{ id: string }>(
    `UPDATE fleet_jobs SET run_key = $2
      WHERE id = $1 AND claimed_by = $3 AND run_id IS NULL AND (run_key IS NULL OR run_key = $2) RETURNING id`,
    [jobId, runKey, runnerName],
  );
  if (mine.length > 0) return { status: 'ours' };
  const [now] = await sql.query<{ run_id: string | null; claimed_by: string | null }>(
    'SELECT run_id, claimed_by FROM fleet_jobs WHERE id = $1',
    [jobId],
  );
  if (now && now.claimed_by !== runnerName)
    return { status: 'not-yours', reason: `job ${jobId} is held by another agent` };
  return { status: 'taken', runId: now?.run_id ?? null };
}

async function freeRunSlot(sql: SqlRunner, jobId: string, runKey: string): Promise<void> {
  await sql.query('UPDATE fleet_jobs SET run_key = NULL WHERE id = $1 AND run_key = $2 AND run_id IS NULL', [
    jobId,
    runKey,
  ]);
}

async function completeWithRun(ctx: FleetContext, jobId: string, runKey: string, runId: string): Promise<void> {
  const [row] = await ctx.sql.query<{ queue: string }>(
    'UPDATE fleet_jobs SET run_id = $3 WHERE id = $1 AND run_key = $2 RETURNING queue',
    [jobId, runKey, runId],
  );
  if (!row) return;
  const done = await ctx.boss.complete(row.queue, jobId, { runId });
  if (affected(done) === 0) await ctx.boss.cancel(row.queue, jobId);
}

export type Fleet = ReturnType<typeof createFleet>;

/** The fleet's queue as an object; each method is one of the steps above on this fleet's context. */
export function createFleet(conn: Pick<Connection, 'sql' | 'queueTarget'>, options: FleetOptions = {}) {
  const ctx = createFleetContext(conn, options);
  const { sql } = ctx;
  return {
    leaseSeconds: ctx.lease,
    async start() {
      await ctx.boss.start();
    },
    async stop() {
      await stopFleet(ctx);
    },

    /** Checks the request against the scenario's own parameter schema, stores it and queues it. */
    async requestJob(req: JobRequest, requestedBy: string | null): Promise<Job> {
      return queueJob(ctx, await checkRequest(ctx, req), requestedBy);
    },

    /** Scenario × releases in one call: one job per release; nothing is queued when any is refused. */
    async requestReleases(body: JobReleasesRequest, requestedBy: string | null): Promise<Job[]> {
      return requestReleases(ctx, body, requestedBy);
    },

    async getJob(id: string, viewer: JobViewer = 'operator'): Promise<Job | null> {
      return getJob(sql, id, viewer);
    },

    async listJobs(
      q: { state?: JobState | undefined; scenario?: string | undefined; limit: number },
      viewer: JobViewer = 'operator',
    ): Promise<Job[]> {
      return listJobs(sql, q, viewer);
    },

    /** Cancels a queued or active job (its agent stops at its next heartbeat). Null: no such job. */
    async cancelJob(id: string): Promise<Job | null> {
      return cancelJob(ctx, id);
    },

    /**
     * A job this agent can run, waiting up to `waitMs` for one (long poll): woken at once when
     * this process queues a fitting job, and polling every `pollMs` for the others.
     */
    async claim(agent: AgentIdentity, waitMs: number, signal?: AbortSignal): Promise<ClaimedJob | null> {
      return claim(ctx, agent, waitMs, signal);
    },

    async heartbeat(id: string, attempt: number, runnerName: string): Promise<{ state: JobState; stop: boolean }> {
      return heartbeat(ctx, id, attempt, runnerName);
    },

    /**
     * The runner's own sentence; pg-boss retries the job (with backoff) until the retry limit, or,
     * `final`, fails it now (a refusal retrying cannot change, as a release the registry lacks).
     */
    async failJob(id: string, attempt: number, runnerName: string, error: string, final = false): Promise<Job> {
      return failJob(ctx, id, attempt, runnerName, error, final);
    },

    /** Gives the job back (agent shutting down): queued again at once, no attempt counted as failed. */
    async releaseJob(id: string, attempt: number, runnerName: string): Promise<Job> {
      return releaseJob(ctx, id, attempt, runnerName);
    },

    /**
     * Reserves the job's one run slot for the run with this idempotency key, before its ingest.
     * Only the agent that holds the job's lease (its last claimant, while the job is not finished
     * or re-leased) may answer it, with a run of exactly what was requested; `taken` when another
     * run answered (or is answering) the job.
     */
    async reserveRunSlot(jobId: string, runKey: string, runnerName: string, run: RunForJob): Promise<RunSlot> {
      return reserveRunSlot(sql, jobId, runKey, runnerName, run);
    },

    /** The ingest failed: the slot is free again. */
    async freeRunSlot(jobId: string, runKey: string): Promise<void> {
      await freeRunSlot(sql, jobId, runKey);
    },

    /** The run answering the job is stored: the job completes (or, not active, is withdrawn from the queue). */
    async completeWithRun(jobId: string, runKey: string, runId: string): Promise<void> {
      await completeWithRun(ctx, jobId, runKey, runId);
    },
  };
}

/** Whether pg-boss's tables exist here: before the queue was ever started there are no jobs to count. */
async function queueInstalled(sql: SqlRunner): Promise<boolean> {
  const [queue] = await sql.query<{ job: string | null }>(`SELECT to_regclass('${FLEET_SCHEMA}.job')::text AS job`, []);
  return Boolean(queue?.job);
}

/**
 * The rows of a query over the fleet's jobs (`JOB_FROM`) with `$1` the scenario asked for (or
 * null); none before the queue was ever started.
 */
async function jobRowsOf<T>(sql: SqlRunner, text: string, scenario: string | undefined): Promise<T[]> {
  return (await queueInstalled(sql)) ? sql.query<T>(text, [scenario ?? null]) : [];
}

/** Measured runs with their scenario (`s`, `$1` the one asked for, or null), hardware (`h`) and server (`d`): what coverage counts. */
const MEASURED_RUNS = `runs r
  JOIN scenario_versions v ON v.id = r.scenario_version_id
  JOIN scenarios s ON s.id = v.scenario_id
  JOIN hardware_profiles h ON h.id = r.hardware_profile_id
  JOIN database_environments d ON d.id = r.database_environment_id
  WHERE r.source = 'measured' AND ($1::text IS NULL OR s.key = $1)`;

/** `select` over the measured runs (`$1` the scenario asked for, or null), grouped by its first four columns. */
async function measuredRowsOf<T>(sql: SqlRunner, select: string, scenario: string | undefined): Promise<T[]> {
  return sql.query<T>(`SELECT ${select} FROM ${MEASURED_RUNS} GROUP BY 1, 2, 3, 4`, [scenario ?? null]);
}

/**
 * Per scenario × hardware class × engine and server major: stored runs, the newest, open jobs.
 * Needs no running queue: before pg-boss was ever started here there are no jobs to count.
 */
export async function fleetCoverage(
  sql: SqlRunner,
  scenario?: string,
  docs: ReadonlyMap<string, ScenarioDocument> = new Map(),
): Promise<Coverage> {
  const runs = await measuredRowsOf<{
    scenario: string;
    hardware_class: string;
    engine: string;
    major: number;
    runs: string | number;
    newest: Date;
  }>(
    sql,
    's.key AS scenario, h.hardware_class, d.engine, d.major, count(*) AS runs, max(r.finished_at) AS newest',
    scenario,
  );
  const open = await jobRowsOf<{
    scenario: string;
    for_kind: string;
    for_value: string | null;
    engine: string;
    server_major: number | null;
    open: string | number;
  }>(
    sql,
    `SELECT f.scenario_key AS scenario, f.for_kind, f.for_value, f.engine, f.server_major, count(*) AS open
         FROM ${JOB_FROM}
        WHERE f.run_id IS NULL AND (j.state IS NULL OR j.state::text IN ('created', 'retry', 'active'))
          AND ($1::text IS NULL OR f.scenario_key = $1)
        GROUP BY 1, 2, 3, 4, 5`,
    scenario,
  );
  const cells = new Map<string, Coverage['cells'][number]>();
  const cell = (s: string, hc: string | null, engine: string, major: number | null) => {
    const key = JSON.stringify([s, hc, engine, major]);
    let c = cells.get(key);
    if (!c) {
      c = { scenario: s, hardwareClass: hc, engine, server: major, runs: 0, newestRun: null, openJobs: 0 };
      cells.set(key, c);
    }
    return c;
  };
  for (const r of runs) {
    const c = cell(r.scenario, r.hardware_class, r.engine, r.major);
    c.runs = Number(r.runs);
    c.newestRun = new Date(r.newest).toISOString();
  }
  // A job for a class counts in that class's cell; jobs for a runner or labels have no class.
  for (const o of open) {
    const c = cell(
      o.scenario,
      o.for_kind === 'class' ? o.for_value : null,
      o.engine.split(',')[0] ?? o.engine,
      o.server_major,
    );
    c.openJobs += Number(o.open);
  }
  const all = [...cells.values()];
  const servers = new Map<string, { engine: string; major: number | null }>();
  for (const c of all) servers.set(`${c.engine}/${c.server}`, { engine: c.engine, major: c.server });
  const known = scenario === undefined ? [...docs.keys()] : docs.has(scenario) ? [scenario] : [];
  const scenarios = [...new Set([...known, ...all.map((c) => c.scenario)])].sort();
  const hardwareClasses = [...new Set(all.flatMap((c) => (c.hardwareClass ? [c.hardwareClass] : [])))].sort();
  return {
    scenarios,
    hardwareClasses,
    servers: [...servers.values()].sort((a, b) =>
      a.engine === b.engine ? (a.major ?? 0) - (b.major ?? 0) : a.engine.localeCompare(b.engine),
    ),
    cells: all,
    gaps: scenarios.flatMap((s) => scenarioGaps(s, docs.get(s), all, hardwareClasses)),
  };
}

/** The servers a scenario should be measured on: each managed major of its engines, or any major of an engine without managed servers. */
function expectedServers(
  doc: ScenarioDocument | undefined,
  cells: readonly CoverageCell[],
): { engine: string; major: number | null }[] {
  const engines = doc ? (doc.target ? [doc.target.managed] : doc.engines) : [...new Set(cells.map((c) => c.engine))];
  return engines.flatMap<{ engine: string; major: number | null }>((engine) => {
    const majors = factsOf(engine)?.managedMajors ?? [];
    return majors.length ? majors.map((major) => ({ engine, major })) : [{ engine, major: null }];
  });
}

type CoverageCell = Coverage['cells'][number];

/**
 * One scenario's gaps: per expected server × hardware class (none yet: one gap with class null)
 * without a run, saying whether the scenario, the server or the class is what is missing.
 */
function scenarioGaps(
  scenario: string,
  doc: ScenarioDocument | undefined,
  all: readonly CoverageCell[],
  classes: readonly string[],
): CoverageGap[] {
  const mine = all.filter((c) => c.scenario === scenario);
  const measured = mine.filter((c) => c.runs > 0);
  const onServer = (c: CoverageCell, engine: string, major: number | null) =>
    c.engine === engine && (major === null || c.server === major);
  const gaps: CoverageGap[] = [];
  for (const { engine, major } of expectedServers(doc, mine)) {
    const serverRuns = measured.filter((c) => onServer(c, engine, major));
    for (const hardwareClass of classes.length > 0 ? classes : [null]) {
      if (serverRuns.some((c) => c.hardwareClass === hardwareClass)) continue;
      const missing = measured.length === 0 ? 'scenario' : serverRuns.length === 0 ? 'server' : 'class';
      const openJobs = mine
        .filter((c) => onServer(c, engine, major) && (c.hardwareClass === hardwareClass || c.hardwareClass === null))
        .reduce((n, c) => n + c.openJobs, 0);
      const server = `${engine} ${major ?? '(any major)'}`;
      const where = hardwareClass ? ` on ${hardwareClass}` : '';
      const sentence =
        missing === 'scenario'
          ? `${scenario} has no run at all: none on ${server}${where}`
          : `${scenario} has no run on ${server}${where}`;
      gaps.push({ scenario, engine, server: major, hardwareClass, missing, openJobs, sentence });
    }
  }
  return gaps;
}

/**
 * The release matrix's rows: measured runs per scenario × engine × release, and the jobs that name
 * a release (open, failed for good, the newest failure sentence, masked as for the public).
 */
async function releaseMatrixOf(sql: SqlRunner, scenario?: string): Promise<ReleaseMatrix> {
  const runs = await measuredRowsOf<{
    scenario: string;
    engine: string;
    major: number;
    minor: number;
    runs: string | number;
    classes: string[];
  }>(
    sql,
    's.key AS scenario, d.engine, d.major, d.minor, count(*) AS runs, array_agg(DISTINCT h.hardware_class) AS classes',
    scenario,
  );
  const jobs = await jobRowsOf<{
    scenario: string;
    engine: string;
    release: string;
    pending: string | number;
    failed: string | number;
    last_output: unknown;
  }>(
    sql,
    `SELECT f.scenario_key AS scenario, split_part(f.engine, ',', 1) AS engine, f.server_release AS release,
                count(*) FILTER (WHERE f.run_id IS NULL AND (j.state IS NULL OR j.state::text IN ('created', 'retry', 'active'))) AS pending,
                count(*) FILTER (WHERE f.run_id IS NULL AND j.state::text = 'failed') AS failed,
                (array_agg(j.output ORDER BY f.created_at DESC) FILTER (WHERE f.run_id IS NULL AND j.output IS NOT NULL))[1] AS last_output
           FROM ${JOB_FROM}
          WHERE f.server_release IS NOT NULL AND ($1::text IS NULL OR f.scenario_key = $1)
          GROUP BY 1, 2, 3`,
    scenario,
  );
  const runRows: ReleaseRunRow[] = runs
    .map((r) => ({
      scenario: r.scenario,
      engine: r.engine,
      major: r.major,
      minor: r.minor,
      runs: Number(r.runs),
      hardwareClasses: r.classes,
    }))
    .filter(hasRelease);
  const jobRows: ReleaseJobRow[] = jobs.map((j) => {
    const error = errorOf(j.last_output);
    return {
      scenario: j.scenario,
      engine: j.engine,
      release: j.release,
      pending: Number(j.pending),
      failed: Number(j.failed),
      lastError: error === null ? null : redactForPublic(error),
    };
  });
  return buildReleaseMatrix(runRows, jobRows);
}

/** The fleet as `ResultsDb` methods (see context.ts). */
export const fleetQueries = {
  /** The fleet's job queue (pg-boss in this database); the caller starts and stops it. */
  openFleet: (db: DbContext, options?: FleetOptions): Fleet => createFleet(db.conn, options),
  /** Runs and open jobs per scenario × hardware class × server major (the fleet's gaps), and the release matrix. */
  coverage: async (db: DbContext, scenario?: string): Promise<Coverage> => ({
    ...(await fleetCoverage(db.sql, scenario, await db.catalog.docs())),
    releaseMatrix: await releaseMatrixOf(db.sql, scenario),
  }),
} satisfies Queries;
