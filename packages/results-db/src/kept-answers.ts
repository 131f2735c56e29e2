/**
 * Kept answers: GET /v1/answers of a scenario's plain queries — only `scenario`, `metric` and
 * `source`, what the site and most readers ask — stored as the response body they were last
 * computed to, with the data version they were computed from (`answer_data_versions`, a
 * per-scenario counter that triggers on `runs` bump in every writing transaction; see the
 * kept_answers migration). A read answers from the kept body: current when its data version is
 * the scenario's, else stale until a recomputation replaces it. The answers need every value
 * (Mann–Whitney U, medians, Tukey outliers, paired blocks), so nothing smaller than the
 * computation itself can be kept up to date incrementally; it is recomputed in the background.
 *
 * Recomputations run as pg-boss jobs (queue `kept-answers` in the fleet's schema, on PostgreSQL
 * and on the embedded PGlite alike), one per scenario at a time (`stately` with the scenario as
 * singleton key: a burst of ingests queues one recomputation, plus one more if it arrives while
 * one is running), and on PostgreSQL over a connection of their own whose statement timeout is
 * the job's deadline, not the reads' 5 s.
 */
import { z } from 'zod';
import { linkAnswers, ScenarioAnswers, type AnswersQuery, type ScenarioAnswersRecord } from '@tunelab/contracts';
import { primaryMetric } from '@tunelab/answers';
import type { PrismaClient } from './generated/prisma/client.ts';
import { answerScenarioQuery } from './answers.ts';
import { openBoss } from './fleet.ts';
import { recordReleaseEvents } from './releases-events.ts';
import { defaultQuery, isDefaultQuery, keptVersion, queryKeyOf, sameShape, type KeptQuery } from './kept-keys.ts';
import { openPostgresql } from './open-postgresql.ts';
import type { Connection } from './connection.ts';
import type { DbContext, Queries } from './context.ts';

export const KEPT_ANSWERS_QUEUE = 'kept-answers';
/** A recomputation may take this long (every statement of it, on PostgreSQL) before it fails. */
export const DEFAULT_KEPT_DEADLINE_MS = 10 * 60_000;
/** Seconds from the first ingest that queues a scenario's recomputation to its start (debounce), at least. */
const KEPT_DEBOUNCE_S = 10;
/** … and at least this many times its last recomputation's duration: a steady ingest spends at most ~1/5 of a core keeping it. */
const KEPT_DEBOUNCE_PER_COMPUTE = 5;

/** The debounce of a scenario's next recomputation: KEPT_DEBOUNCE_S, longer when its answers take long to compute. */
async function debounceOf(db: Pick<DbContext, 'sql'>, scenario: string): Promise<number> {
  const [row] = await db.sql.query<{ ms: number | null }>(
    'SELECT max(compute_ms) AS ms FROM kept_answers WHERE scenario_key = $1',
    [scenario],
    'kept_answers_compute_ms',
  );
  return Math.max(KEPT_DEBOUNCE_S, Math.ceil((KEPT_DEBOUNCE_PER_COMPUTE * (row?.ms ?? 0)) / 1000));
}

/** How the kept answer of a query stands: current, stale (the runs changed since) or missing. */
export type KeptAnswer =
  | { state: 'current' | 'stale'; body: string; computedAt: Date; dataVersion: number; failedAt: Date | null }
  | { state: 'missing' };

/** The response body GET /v1/answers sends for `answers` (what its zod serializer writes). */
export function renderAnswers(answers: ScenarioAnswersRecord): string {
  return JSON.stringify(z.encode(ScenarioAnswers, linkAnswers(answers)));
}

function keptQueryOfKey(scenario: string, key: string): KeptQuery | null {
  const p = new URLSearchParams(key);
  const metric = p.get('metric');
  const source = p.get('source');
  if (!metric || (source !== 'measured' && source !== 'published')) return null;
  return { scenario, metric, source };
}

/**
 * The kept query `q` asks, or null when it asks more than scenario, metric and source (a machine,
 * filters, `at`, `from`/`to`: computed per request) or names no scenario of the catalog.
 */
async function keptQueryOf(db: DbContext, q: AnswersQuery): Promise<{ kept: KeptQuery; version: string } | null> {
  const { scenario, metric, source, ...rest } = q;
  if (Object.values(rest).some((v) => v !== undefined)) return null;
  const loaded = await db.catalog.get(scenario);
  if (!loaded) return null;
  return {
    kept: { scenario, metric: metric ?? primaryMetric(loaded.doc), source },
    version: keptVersion(loaded.version),
  };
}

/** The scenario's data version: how many writing statements changed its runs (0 before any). */
async function dataVersionOf(db: Pick<DbContext, 'sql'>, scenario: string): Promise<number> {
  const [row] = await db.sql.query<{ version: string }>(
    'SELECT version::text AS version FROM answer_data_versions WHERE scenario_key = $1',
    [scenario],
    'kept_answers_data_version',
  );
  return row ? Number(row.version) : 0;
}

/**
 * Per results database: the kept bodies this process has read, by scenario and query, with the
 * row's stamp (data version, scenario version, computed_at). A kept body never changes under one
 * stamp, so a read asks the database for the row's stamp and gets the body only when it is not the
 * one held here: a 2 MB body is read and decoded once per recomputation, not once per read (the
 * in-memory read cache in front of the API is dropped whenever any scenario's runs change).
 */
const heldBodies = new WeakMap<DbContext, Map<string, { stamp: string; body: string }>>();

async function readKept(db: DbContext, kept: KeptQuery, scenarioVersion: string): Promise<KeptAnswer> {
  const held = heldBodies.get(db) ?? new Map<string, { stamp: string; body: string }>();
  heldBodies.set(db, held);
  const key = `${kept.scenario}\n${queryKeyOf(kept)}`;
  const mine = held.get(key);
  const [row] = await db.sql.query<{
    body: string | null;
    stamp: string;
    computed_at: Date;
    data_version: string;
    scenario_version: string;
    failed_at: Date | null;
    current: string;
  }>(
    `SELECT CASE WHEN s.stamp = $3 THEN NULL ELSE k.body END AS body, s.stamp,
            k.computed_at, k.data_version::text AS data_version, k.scenario_version, k.failed_at,
            coalesce((SELECT version FROM answer_data_versions WHERE scenario_key = $1), 0)::text AS current
       FROM kept_answers k
      CROSS JOIN LATERAL (SELECT k.data_version::text || ' ' || k.scenario_version || ' ' || k.computed_at::text AS stamp) s
      WHERE k.scenario_key = $1 AND k.query_key = $2`,
    [kept.scenario, queryKeyOf(kept), mine?.stamp ?? ''],
    'kept_answers_read',
  );
  // A body in another shape (kept before an upgrade changed a response schema) would break a
  // client that reads the documented one: it is computed again, as if none were kept.
  if (!row || !sameShape(row.scenario_version)) return { state: 'missing' };
  const body = row.body ?? mine?.body;
  // The stamp matched what is held, so the body is the held one; otherwise hold the new one.
  if (body === undefined) throw new Error(`kept answer ${key}: the database sent no body for a stamp not held here`);
  if (row.body !== null) held.set(key, { stamp: row.stamp, body: row.body });
  const current = row.data_version === row.current && row.scenario_version === scenarioVersion;
  return {
    state: current ? 'current' : 'stale',
    body,
    computedAt: new Date(row.computed_at),
    dataVersion: Number(row.data_version),
    failedAt: row.failed_at ? new Date(row.failed_at) : null,
  };
}

/**
 * Computes the kept query's answers through `prisma` and keeps them, unless a computation from
 * newer data was kept meanwhile. The data version is read first: runs stored during the
 * computation may or may not be in it, and either way the kept answer reads as stale after them.
 */
async function computeKept(
  db: DbContext,
  prisma: PrismaClient,
  kept: KeptQuery,
  scenarioVersion: string,
): Promise<{ body: string; answers: ScenarioAnswersRecord } | null> {
  const dataVersion = await dataVersionOf(db, kept.scenario);
  const started = Date.now();
  const answers = await answerScenarioQuery(prisma, db.catalog, kept);
  if (!answers) return null;
  const body = renderAnswers(answers);
  const computeMs = Date.now() - started;
  // The default answers carry the release line: its changes become events whenever they are
  // computed (after an ingest, or by a read), before the kept body says they are current, so that
  // listing the events may trust a current default answer (releases-events.ts).
  if (await isDefaultQuery(db, kept)) await recordReleaseEvents(db, kept.scenario, answers);
  await db.sql.query(
    `INSERT INTO kept_answers AS k (scenario_key, query_key, scenario_version, data_version, body, computed_at, compute_ms)
     VALUES ($1, $2, $3, $4, $5, now(), $6)
     ON CONFLICT (scenario_key, query_key) DO UPDATE
        SET scenario_version = EXCLUDED.scenario_version, data_version = EXCLUDED.data_version, body = EXCLUDED.body,
            computed_at = EXCLUDED.computed_at, compute_ms = EXCLUDED.compute_ms, failed_at = NULL, failure = NULL
      WHERE k.data_version <= EXCLUDED.data_version OR k.scenario_version <> EXCLUDED.scenario_version`,
    [kept.scenario, queryKeyOf(kept), scenarioVersion, dataVersion, body, computeMs],
  );
  return { body, answers };
}

/** The kept queries of a scenario: those kept so far, and its default one (primary metric, measured). */
async function keptQueriesOf(db: DbContext, scenario: string): Promise<KeptQuery[]> {
  const loaded = await db.catalog.get(scenario);
  if (!loaded) return [];
  const rows = await db.sql.query<{ query_key: string }>(
    'SELECT query_key FROM kept_answers WHERE scenario_key = $1 ORDER BY query_key',
    [scenario],
  );
  const byKey = new Map<string, KeptQuery>();
  const first = defaultQuery(scenario, loaded.doc);
  byKey.set(queryKeyOf(first), first);
  for (const r of rows) {
    const q = keptQueryOfKey(scenario, r.query_key);
    if (q) byKey.set(r.query_key, q);
  }
  return [...byKey.values()];
}

export type KeptAnswersOptions = {
  /** A recomputation's deadline (default DEFAULT_KEPT_DEADLINE_MS): every statement of it on PostgreSQL, and the job's. */
  deadlineMs?: number;
  /**
   * A recomputation starts this long after the first ingest that asked for it; later ones within it
   * join it (default: KEPT_DEBOUNCE_S, or 5 × the scenario's last recomputation if longer). A read
   * of a stale answer computes afresh within its budget anyway; the job is for answers too large for
   * that, so it need not follow every run: at 1 s a steady ingest recomputed each scenario every
   * second, +2.3 ms of API CPU per submission.
   */
  debounceSeconds?: number;
  /** How often an idle worker looks for queued recomputations (default 1 s; queued by another process, a retry). */
  pollSeconds?: number;
  /** Called after a scenario's kept answers were recomputed (e.g. to drop answers cached in memory). */
  onRefreshed?: (scenario: string) => void;
  onError?: (err: Error) => void;
};

/** The background recomputation of kept answers; the caller starts and stops it. */
export type KeptAnswersWorker = {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Queues a recomputation of the scenario's kept answers (one at a time per scenario, debounced). */
  refreshSoon(scenario: string): Promise<void>;
  /** Recomputes the scenario's kept answers now, in this call (what a queued job runs). */
  refresh(scenario: string): Promise<void>;
};

function createKeptAnswersWorker(db: DbContext, options: KeptAnswersOptions = {}): KeptAnswersWorker {
  const deadlineMs = options.deadlineMs ?? DEFAULT_KEPT_DEADLINE_MS;
  const boss = openBoss(db.conn, {
    intervalSeconds: 30,
    poolSize: 2,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  // On PostgreSQL the recomputation reads over its own connection, whose statements may take
  // the job's deadline; PGlite has no statement timeout.
  let own: Promise<Connection> | undefined;
  const prismaForJobs = async (): Promise<PrismaClient> => {
    const target = db.conn.queueTarget;
    if ('pglite' in target) return db.prisma;
    own ??= openPostgresql(target.connectionString, { poolSize: 1, timeouts: { statementMs: deadlineMs } });
    return (await own).prisma;
  };
  const refresh = async (scenario: string) => {
    const loaded = await db.catalog.get(scenario);
    if (!loaded) return;
    const prisma = await prismaForJobs();
    const queries = await keptQueriesOf(db, scenario);
    for (const q of queries) {
      try {
        await computeKept(db, prisma, q, keptVersion(loaded.version));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        await db.sql.query(
          'UPDATE kept_answers SET failed_at = now(), failure = $3 WHERE scenario_key = $1 AND query_key = $2',
          [scenario, queryKeyOf(q), message.slice(0, 2000)],
        );
        throw err;
      }
    }
    options.onRefreshed?.(scenario);
  };
  let started = false;
  return {
    start: async () => {
      started = true;
      await boss.start();
      await boss.createQueue(KEPT_ANSWERS_QUEUE, {
        policy: 'stately',
        retryLimit: 2,
        retryDelay: 30,
        retryBackoff: true,
        expireInSeconds: Math.ceil(deadlineMs / 1000),
        deleteAfterSeconds: 24 * 3600,
      });
      await boss.work<{ scenario: string }>(
        KEPT_ANSWERS_QUEUE,
        { pollingIntervalSeconds: Math.max(0.5, options.pollSeconds ?? 1) },
        async ([job]) => {
          if (job) await refresh(job.data.scenario);
        },
      );
    },
    stop: async () => {
      if (started) await boss.stop({ graceful: true, timeout: 5000 });
      if (own) await (await own).close();
    },
    refreshSoon: async (scenario) => {
      await boss.send(
        KEPT_ANSWERS_QUEUE,
        { scenario },
        { singletonKey: scenario, startAfter: options.debounceSeconds ?? (await debounceOf(db, scenario)) },
      );
    },
    refresh,
  };
}

/** Kept answers as `ResultsDb` methods (see context.ts). */
export const keptAnswerQueries = {
  /**
   * The kept answer of `q` (current, stale or missing), or null when `q` is not a kept query
   * (it asks for more than scenario, metric and source, or names no scenario of the catalog).
   */
  keptAnswer: async (db: DbContext, q: AnswersQuery): Promise<KeptAnswer | null> => {
    const asked = await keptQueryOf(db, q);
    return asked ? readKept(db, asked.kept, asked.version) : null;
  },
  /** Computes `q`'s answers now (over the reads' connection) and keeps them when `q` is a kept query; the body sent. */
  computeKeptAnswer: async (db: DbContext, q: AnswersQuery): Promise<string | null> => {
    const asked = await keptQueryOf(db, q);
    if (!asked) return null;
    return (await computeKept(db, db.prisma, asked.kept, asked.version))?.body ?? null;
  },
  /** The background recomputation of kept answers (pg-boss in this database); the caller starts and stops it. */
  openKeptAnswers: (db: DbContext, options?: KeptAnswersOptions): KeptAnswersWorker =>
    createKeptAnswersWorker(db, options),
} satisfies Queries;
