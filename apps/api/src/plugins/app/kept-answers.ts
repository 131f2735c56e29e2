import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnswersQuery } from '@tunelab/contracts';
import type { KeptAnswersOptions, KeptAnswersWorker } from '@tunelab/results-db';

declare module 'fastify' {
  interface FastifyInstance {
    /** Kept answers of GET /v1/answers: their background recomputation (pg-boss in the results database) and read budget. */
    keptAnswers: KeptAnswersWorker & { readBudgetMs: number };
  }
}

export type KeptAnswersPluginOptions = KeptAnswersOptions & {
  /**
   * A read of a stale kept answer waits this long for it to be computed afresh, then is answered
   * from the stale one with its `Age` (the computation goes on, and a job is queued); 0 waits
   * until it is. Default 1000 ms.
   */
  readBudgetMs?: number;
};

/** What `Cache-Status` (RFC 9211) says of an answer read from a kept answer; one computed for the read has none. */
const CACHE_STATUS = {
  current: 'tunelab-kept; hit',
  stale:
    'tunelab-kept; hit; detail="stale: runs were stored, or the scenario or TuneLab changed, since it was computed; a recomputation is queued"',
  failed:
    'tunelab-kept; hit; detail="stale: runs were stored, or the scenario or TuneLab changed, since it was computed; its last recomputation failed and another is queued"',
} as const;

/** `Cache-Control: no-cache` or `max-age=0` (RFC 9111 §5.2.1): the client takes no answer computed before the latest runs. */
const asksFresh = (request: FastifyRequest) =>
  /(?:^|,)\s*(?:no-cache|max-age\s*=\s*0)\s*(?:,|$)/i.test(String(request.headers['cache-control'] ?? ''));

/** The scenario key of a run submission's body, if it has one. */
function scenarioOfBody(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('scenario' in body)) return null;
  const { scenario } = body;
  if (typeof scenario !== 'object' || scenario === null || !('key' in scenario)) return null;
  return typeof scenario.key === 'string' ? scenario.key : null;
}

/** Per app: the kept answers being computed here (one computation per query however many reads wait). */
const computing = new WeakMap<FastifyInstance, Map<string, Promise<string | null>>>();
/** Per app: when a stale read or a stored run last queued a scenario's recomputation. */
const queuedAt = new WeakMap<FastifyInstance, Map<string, number>>();
/**
 * A burst of stale reads or stored runs queues (and so writes) one job per scenario this often at
 * most: a queued job (it starts seconds later) covers every run stored before it starts, and a
 * send per stored run cost the ingest a pg-boss insert each (~1 ms of API CPU and as much of the
 * database's per submission under bench:ingest).
 */
const QUEUED_WITHIN_MS = 2000;

function mapOf<K extends object, V>(maps: WeakMap<K, Map<string, V>>, key: K): Map<string, V> {
  const map = maps.get(key) ?? new Map<string, V>();
  maps.set(key, map);
  return map;
}

async function queueRefresh(app: FastifyInstance, scenario: string): Promise<void> {
  await app.keptAnswers.refreshSoon(scenario).catch((err: unknown) => {
    app.log.warn({ err, scenario }, 'could not queue the recomputation of kept answers');
  });
}

async function queueRefreshThrottled(app: FastifyInstance, scenario: string): Promise<void> {
  const queued = mapOf(queuedAt, app);
  const last = queued.get(scenario);
  if (last !== undefined && Date.now() - last < QUEUED_WITHIN_MS) return;
  queued.set(scenario, Date.now());
  await queueRefresh(app, scenario);
}

/**
 * The query's answers computed here and kept (over the reads' connection), shared by the reads
 * that ask meanwhile. When it fails (past the reads' statement timeout) the job, with its longer
 * deadline, is queued: the error goes to the read that waited for it, null to one that did not.
 */
function computeHere(app: FastifyInstance, query: AnswersQuery): Promise<string | null> {
  const running = mapOf(computing, app);
  const key = JSON.stringify([query.scenario, query.metric ?? '', query.source]);
  const pending = running.get(key);
  if (pending) return pending;
  const done = app.resultsDb.computeKeptAnswer(query).finally(() => running.delete(key));
  running.set(key, done);
  done.catch(() => queueRefresh(app, query.scenario));
  return done;
}

/**
 * The fresh answer if it is computed within the read budget (0: however long it takes), else null.
 * Past the budget the computation goes on, and once kept the answers cached in memory
 * (read-cache.ts), which hold the stale body sent meanwhile, are dropped.
 */
async function freshWithinBudget(app: FastifyInstance, query: AnswersQuery): Promise<string | null> {
  const fresh = computeHere(app, query).catch(() => null);
  const budget = app.keptAnswers.readBudgetMs;
  if (budget <= 0) return fresh;
  let timer: NodeJS.Timeout | undefined;
  const answer = await Promise.race([
    fresh,
    new Promise<null>((resolve) => (timer = setTimeout(resolve, budget, null))),
  ]);
  clearTimeout(timer);
  if (answer === null) void fresh.then((body) => body !== null && dropCachedReads(app));
  return answer;
}

function dropCachedReads(app: FastifyInstance): void {
  if (app.hasDecorator('markDataChanged')) app.markDataChanged();
}

/**
 * GET /v1/answers of a kept query (only scenario, metric and source) answered from the kept
 * answer, sent on `reply`: current → with its `Age`; stale → computed afresh if that takes no
 * longer than the read budget, else the stale one with its `Age` while a recomputation is queued;
 * missing, or asked with `Cache-Control: no-cache` → computed here and kept. False when the query
 * is not kept: the route computes it as any other.
 */
export async function answerFromKept(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  query: AnswersQuery,
): Promise<boolean> {
  const asked = asksFresh(request);
  const kept = asked ? null : await app.resultsDb.keptAnswer(query);
  if (kept === null && !asked) return false;
  const send = (body: string) => {
    void reply.type('application/json; charset=utf-8').send(body);
    return true;
  };
  const sendKept = (body: string, status: keyof typeof CACHE_STATUS, computedAt: Date) => {
    const age = Math.max(0, Math.floor((Date.now() - computedAt.getTime()) / 1000));
    reply.header('age', String(age)).header('cache-status', CACHE_STATUS[status]);
    return send(body);
  };
  if (kept?.state === 'current') return sendKept(kept.body, 'current', kept.computedAt);
  if (kept?.state === 'stale') {
    const fresh = await freshWithinBudget(app, query);
    if (fresh !== null) return send(fresh);
    // Queued without waiting for it: the first one starts the queue's worker.
    void queueRefreshThrottled(app, query.scenario);
    return sendKept(kept.body, kept.failedAt ? 'failed' : 'stale', kept.computedAt);
  }
  const body = await computeHere(app, query);
  return body !== null && send(body);
}

/**
 * Keeps answers up to date: after every stored run (a route marked `config.holdsReads` that
 * answered 201) a recomputation of its scenario's kept answers is queued, debounced; a
 * recomputation that finished drops the answers cached in memory (read-cache.ts), which may hold
 * the stale body. The queue's worker starts with the first recomputation asked for here.
 */
export default fp<KeptAnswersPluginOptions>(
  async (app, opts) => {
    const { readBudgetMs = 1000, ...options } = opts;
    const worker = app.resultsDb.openKeptAnswers({
      ...options,
      onRefreshed: (scenario) => {
        dropCachedReads(app);
        options.onRefreshed?.(scenario);
      },
      onError: (err) => app.log.error({ err }, 'kept answers queue (pg-boss) error'),
    });
    let started: Promise<void> | undefined;
    const keptAnswers: FastifyInstance['keptAnswers'] = {
      ...worker,
      readBudgetMs,
      start: () => (started ??= worker.start()),
      stop: async () => {
        if (started) await started.catch(() => undefined);
        await worker.stop();
      },
      refreshSoon: async (scenario) => {
        await keptAnswers.start();
        await worker.refreshSoon(scenario);
      },
    };
    app.decorate('keptAnswers', keptAnswers);
    app.addHook('onResponse', async (request, reply) => {
      if (request.method !== 'POST' || request.routeOptions.config.holdsReads !== true || reply.statusCode !== 201)
        return;
      const scenario = scenarioOfBody(request.body);
      if (scenario) await queueRefreshThrottled(app, scenario);
    });
    app.addHook('preClose', async () => keptAnswers.stop());
  },
  { name: 'kept-answers', dependencies: ['results-db'] },
);
