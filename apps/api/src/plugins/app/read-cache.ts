import { createHash, randomBytes } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Sema } from 'async-sema';
import { ApiError } from '../../problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Call after the stored data changed (a run ingested): cached reads are answered afresh. */
    markDataChanged: () => void;
    /** Ingests (routes with `config.holdsReads`) holding new answer computations back now. */
    writesHoldingReads: () => number;
  }
  interface FastifyContextConfig {
    /**
     * This route stores results (a run's ingest): while one runs, no new cached answer starts
     * computing. Only such routes hold reads back — a long poll, a heartbeat or a job request does not.
     */
    holdsReads?: boolean;
  }
}

export type ReadCacheOptions = {
  /**
   * Path prefixes of the expensive GET routes, cached and limited (`/v1/comparisons` covers
   * `/v1/comparisons` and `/v1/comparisons/…`). Matched against the route a request was routed to,
   * so an absolute-form target (`GET http://host/v1/…`) or a percent-encoded path is the same read.
   */
  prefixes: readonly string[];
  /** Path prefixes of reads that are limited like the expensive ones but not cached (their data changes without an ingest). */
  limitedPrefixes?: readonly string[];
  /** Path prefixes of POST routes that only read (POST /v1/similar): limited with the others, never cached (the body is the question). */
  limitedPostPrefixes?: readonly string[];
  /** GETs and HEADs (and the limited POSTs) per client address per minute on those routes; beyond it 429 + Retry-After. */
  readsPerMinute: number;
  /**
   * A read that would compute waits for running ingests at most this long (default 5 s), then
   * computes anyway: a slow or stuck write can delay answers, never stop them.
   */
  maxWriteWaitMs?: number;
  /**
   * A read whose answer is not cached but was computed before (the data changed since, or the
   * entry aged out) waits at most this long for a fresh computation; past it, it is answered from
   * the last computed answer with its `Age` and a `Cache-Status` saying so, while the fresh one
   * goes on computing for the reads after it. A fresh computation that fails (a statement
   * timeout's 503) is answered the same way. A client that must see the latest data (one that has
   * just stored a run) sends `Cache-Control: no-cache`; 0 makes every read wait. Default 1000 ms.
   */
  readBudgetMs?: number;
  /** Cache entries kept (least recently used go first); default 1000. */
  maxEntries?: number;
  /** Bytes of cached bodies kept; default 64 MiB. */
  maxBytes?: number;
  /**
   * An entry is answered afresh after this even if this process stored nothing: another process
   * may write a PostgreSQL results database (a second API, an import). Default: 10 s on
   * PostgreSQL; never on an embedded database, which only this process can write.
   */
  maxAgeMs?: number;
  /**
   * Answers computed at once. Default 1 on an embedded database — PGlite runs one statement at a
   * time (on its own thread, results-db's pglite-thread.ts), so a second computation would only
   * queue there — and 4 on PostgreSQL.
   */
  maxConcurrentComputations?: number;
};

/**
 * A computed answer. The body is kept as UTF-8 bytes: every read of a cached answer writes it, and
 * a string would be encoded to UTF-8 (and its byte length counted) again on each of them — 130 KiB
 * per read of a comparison under bench:reads' readers (apps/api/bench/README.md).
 */
type Entry = {
  version: number;
  etag: string;
  body: Buffer;
  contentType: string;
  /** When the answer was computed: now for one computed by the request, earlier for one the route read as kept (its `Age`). */
  computedAt: number;
  /** The route's own `Cache-Status` (a kept answer, GET /v1/answers), sent again with every replay and its `Age`. */
  cacheStatus: string | null;
};
type Fill = { key: string; version: number; settle: (entry: Entry | null) => void };

const FILL = Symbol('read-cache fill');
const WRITE = Symbol('read-cache write');
type WithFill = FastifyRequest & { [FILL]?: Fill; [WRITE]?: boolean };

const isWrite = (method: string) => method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';

/** `If-None-Match: "a", W/"b"` matches `"a"` (weak comparison, RFC 9110 §13.1.2). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** Counts the running writes that hold reads back; `wait` resolves when none runs, or after `maxWaitMs`. */
type WriteGate = { count: () => number; begin: () => void; end: () => void; wait: () => Promise<void> };

function createWriteGate(maxWaitMs: number): WriteGate {
  let writes = 0;
  let writesDone: Promise<void> | undefined;
  let signalWritesDone = () => {};
  return {
    count: () => writes,
    begin: () => {
      writes++;
    },
    end: () => {
      if (--writes === 0) {
        writesDone = undefined;
        signalWritesDone();
      }
    },
    wait: async () => {
      const deadline = Date.now() + maxWaitMs;
      while (writes > 0) {
        const left = deadline - Date.now();
        if (left <= 0) return;
        writesDone ??= new Promise<void>((resolve) => {
          signalWritesDone = resolve;
        });
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          writesDone,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, left);
          }),
        ]);
        clearTimeout(timer);
      }
    },
  };
}

/** What the hooks share: the data version, the cached answers, the answers being computed and the gates. */
type ReadCacheState = {
  app: FastifyInstance;
  version: number;
  cache: LRUCache<string, Entry>;
  /** The last answer computed per key, whatever the version and age: what a read past its budget gets. */
  lastGood: LRUCache<string, Entry>;
  inflight: Map<string, Promise<Entry | null>>;
  /** Fresh computations started for reads that were answered from `lastGood` (or are waiting within their budget). */
  background: Map<string, Promise<Entry | null>>;
  computing: Sema;
  writes: WriteGate;
  readBudgetMs: number;
  /** Marks this process's own background computations (`app.inject`): not limited, never answered stale. */
  fillSecret: string;
};

const FILL_HEADER = 'x-tunelab-read-cache-fill';

function createReadCacheState(app: FastifyInstance, opts: ReadCacheOptions): ReadCacheState {
  const maxAgeMs = opts.maxAgeMs ?? (app.resultsDb.kind !== 'pglite' ? 10_000 : undefined);
  const bounds = {
    max: opts.maxEntries ?? 1000,
    maxSize: opts.maxBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (e: Entry) => Math.max(1, e.body.length),
  };
  return {
    app,
    version: 0,
    cache: new LRUCache<string, Entry>({ ...bounds, ...(maxAgeMs ? { ttl: maxAgeMs } : {}) }),
    lastGood: new LRUCache<string, Entry>(bounds),
    inflight: new Map(),
    background: new Map(),
    computing: new Sema(opts.maxConcurrentComputations ?? (app.resultsDb.kind !== 'pglite' ? 4 : 1)),
    writes: createWriteGate(opts.maxWriteWaitMs ?? 5000),
    readBudgetMs: opts.readBudgetMs ?? 1000,
    fillSecret: randomBytes(18).toString('base64url'),
  };
}

/** 429 + Retry-After for an address past `readsPerMinute` limited reads. */
function createReadLimit(app: FastifyInstance, readsPerMinute: number) {
  const limitReads = app.createRateLimit({
    max: readsPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => req.ip,
  });
  return async (request: FastifyRequest): Promise<void> => {
    const limit = await limitReads(request);
    if (!limit.isAllowed && limit.isExceeded) {
      const seconds = Math.max(1, limit.ttlInSeconds);
      throw new ApiError(
        'rate-limited',
        `more than ${limit.max} reads of comparisons, findings, answers, hardware, similar hardware, coverage and jobs per minute from this address; retry after ${seconds} s`,
        undefined,
        { 'retry-after': String(seconds) },
      );
    }
  };
}

// A request that never reached onSend (client gone) must not leave others waiting.
async function abandon(request: WithFill): Promise<void> {
  request[FILL]?.settle(null);
  delete request[FILL];
}

const under = (prefixes: readonly string[] | undefined, route: string | undefined) =>
  route !== undefined && (prefixes ?? []).some((p) => route === p || route.startsWith(`${p}/`));

/** Whether the request is a cached read, a limited one (not cached), or neither (null). */
function readKindOf(opts: ReadCacheOptions, request: FastifyRequest): 'cached' | 'limited' | null {
  const route = request.routeOptions.url;
  const read = request.method === 'GET' || request.method === 'HEAD';
  if (!read && !(request.method === 'POST' && under(opts.limitedPostPrefixes, route))) return null;
  const cached = read && under(opts.prefixes, route);
  if (read && !cached && !under(opts.limitedPrefixes, route)) return null;
  return cached ? 'cached' : 'limited';
}

// A write counts from when its body is in and it passed authentication and validation (a
// client trickling a body, or one without a token, holds back no reads) until its response
// closes: 'close' is emitted once for every response, finished or cut.
function countWritesHoldingReads(app: FastifyInstance, writes: WriteGate): void {
  app.addHook('preHandler', async (request: WithFill, reply) => {
    if (!isWrite(request.method) || request.routeOptions.config.holdsReads !== true || request[WRITE]) return;
    writes.begin();
    request[WRITE] = true;
    reply.raw.once('close', () => {
      if (!request[WRITE]) return;
      delete request[WRITE];
      writes.end();
    });
  });
}

/**
 * This request computes the answer of `key` (when a slot is free): registered in flight so that
 * others wait for it; onSend stores it and wakes them.
 */
async function startFill(
  state: ReadCacheState,
  request: WithFill,
  reply: FastifyReply,
  key: string,
  version: number,
): Promise<void> {
  const flightKey = `${version} ${key}`;
  let settle!: (e: Entry | null) => void;
  state.inflight.set(
    flightKey,
    new Promise<Entry | null>((resolve) => {
      settle = resolve;
    }),
  );
  let settled = false;
  let acquired = false;
  request[FILL] = {
    key,
    version,
    settle: (e) => {
      if (settled) return;
      settled = true;
      state.inflight.delete(flightKey);
      if (acquired) state.computing.release();
      settle(e);
    },
  };
  // 'close' comes for every response, finished or cut, even where onResponse does not.
  reply.raw.once('close', () => void abandon(request));
  await state.writes.wait();
  await state.computing.acquire();
  // Given up while waiting for a slot (the client went away): hand the slot on.
  if (settled) state.computing.release();
  else acquired = true;
}

const isOwnFill = (state: ReadCacheState, request: FastifyRequest) => request.headers[FILL_HEADER] === state.fillSecret;
/**
 * `Cache-Control: no-cache` or `max-age=0` from the client: it takes no answer computed before the
 * latest data (RFC 9111 §5.2.1). Not on a conditional request: fetch adds `Cache-Control` to every
 * request that carries If-None-Match (the Fetch standard's "no-store" mode), asked for or not.
 */
const wantsFresh = (request: FastifyRequest) =>
  request.headers['if-none-match'] === undefined &&
  /(?:^|,)\s*(?:no-cache|max-age\s*=\s*0)\s*(?:,|$)/i.test(String(request.headers['cache-control'] ?? ''));

/**
 * The fresh answer of `key`, computed by a request of this process's own (so that it goes on after
 * the read that asked gives up waiting): resolves with the stored entry, or null when it failed.
 */
function computeInBackground(state: ReadCacheState, request: FastifyRequest, key: string): Promise<Entry | null> {
  const running = state.background.get(key);
  if (running) return running;
  const version = state.version;
  const done = state.app
    .inject({ method: 'GET', url: request.url, headers: { [FILL_HEADER]: state.fillSecret } })
    .then(
      () => {
        const entry = state.cache.get(key);
        return entry?.version === version ? entry : null;
      },
      () => null,
    )
    .finally(() => state.background.delete(key));
  state.background.set(key, done);
  return done;
}

/** The fresh answer if it comes within the read budget, else null. */
async function freshWithinBudget(state: ReadCacheState, request: FastifyRequest, key: string): Promise<Entry | null> {
  let timer: NodeJS.Timeout | undefined;
  const fresh = await Promise.race([
    computeInBackground(state, request, key),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), state.readBudgetMs);
    }),
  ]);
  clearTimeout(timer);
  return fresh;
}

/** Sends `entry` (fresh or, with `stale`, the last computed answer with its age), or 304 when the client has it. */
function sendEntry(request: FastifyRequest, reply: FastifyReply, entry: Entry, stale: boolean) {
  reply.header('etag', entry.etag).header('cache-control', 'no-cache');
  const age = () => String(Math.max(0, Math.floor((Date.now() - entry.computedAt) / 1000)));
  if (stale) {
    reply
      .header('age', age())
      .header(
        'cache-status',
        'tunelab; hit; detail="stale: computed before the latest data; a fresh answer is computing"',
      );
  } else if (entry.cacheStatus !== null) reply.header('age', age()).header('cache-status', entry.cacheStatus);
  if (matches(request.headers['if-none-match'], entry.etag)) return reply.code(304).send();
  return reply.code(200).type(entry.contentType).send(entry.body);
}

/** Answers a cached read from the cache (or another request's computation); otherwise lets it compute. */
async function answerFromCache(state: ReadCacheState, request: WithFill, reply: FastifyReply) {
  // The routed path (decoded, without scheme and host) and the query as sent.
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  const key = `GET ${request.routeOptions.url} ${JSON.stringify(request.params)}${query}`;
  let entry = state.cache.get(key);
  const last = state.lastGood.get(key);
  const mayBeStale = state.readBudgetMs > 0 && !isOwnFill(state, request) && !wantsFresh(request);
  if (entry?.version !== state.version && last && mayBeStale) {
    const fresh = await freshWithinBudget(state, request, key);
    return sendEntry(request, reply, fresh ?? last, fresh === null);
  }
  if (entry?.version !== state.version) {
    const pending = state.inflight.get(`${state.version} ${key}`);
    if (!pending) {
      await startFill(state, request, reply, key, state.version);
      return;
    }
    entry = (await pending) ?? undefined;
    // The first request failed (a 4xx, a timeout): this one computes its own answer.
    if (!entry) return;
  }
  return sendEntry(request, reply, entry, false);
}

/** Stores the answer this request computed (a 200 with a string body) and hands it to the requests waiting for it. */
function storeAnswer(state: ReadCacheState, request: WithFill, reply: FastifyReply, payload: unknown): unknown {
  const fill = request[FILL];
  if (!fill) return payload;
  delete request[FILL];
  if (reply.statusCode !== 200 || typeof payload !== 'string') {
    fill.settle(null);
    return payload;
  }
  const body = Buffer.from(payload);
  const etag = `"${fill.version.toString(36)}-${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  const entry: Entry = {
    version: fill.version,
    etag,
    body,
    contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
    computedAt: Date.now() - 1000 * (Number(reply.getHeader('age')) || 0),
    cacheStatus: typeof reply.getHeader('cache-status') === 'string' ? String(reply.getHeader('cache-status')) : null,
  };
  state.cache.set(fill.key, entry);
  state.lastGood.set(fill.key, entry);
  fill.settle(entry);
  reply.header('etag', etag).header('cache-control', 'no-cache');
  if (matches(request.headers['if-none-match'], etag)) {
    reply.code(304);
    return '';
  }
  return body;
}

/**
 * The expensive public reads (comparisons, findings, answers, hardware, similar hardware) with a per-client rate
 * limit and an answer cache. An answer is cached under method + URL + the data version, a counter
 * the write routes bump after every stored run (`markDataChanged`): a read after an ingest is
 * computed afresh, and a flood of identical reads costs one computation. A read whose fresh
 * answer takes longer than `readBudgetMs` (or fails) gets the last computed one, with its `Age`
 * and a `Cache-Status` that says so; the fresh one goes on computing for the reads after it. Concurrent misses of one
 * key wait for the first one's answer instead of all computing it. Every cached answer carries
 * an ETag; a client sending it back in If-None-Match gets 304 with no body.
 *
 * Ingests go first: while an accepted write of a route marked `config.holdsReads` (a run's
 * ingest, past validation) runs, no new answer starts computing — for at most `maxWriteWaitMs` —
 * and only `maxConcurrentComputations` compute at once, so a runner's ingest waits for at most the
 * queries already running, never for a queue of readers. A write is counted off when its response
 * closes, whether it finished or its client went away (an aborted long poll or upload never leaves
 * the count raised). HEAD is a read like GET: limited, and answered from the same cache.
 */
export default fp<ReadCacheOptions>(
  async (app, opts) => {
    const state = createReadCacheState(app, opts);
    app.decorate('markDataChanged', () => {
      state.version++;
    });
    app.decorate('writesHoldingReads', () => state.writes.count());
    const limitReads = createReadLimit(app, opts.readsPerMinute);
    countWritesHoldingReads(app, state.writes);

    app.addHook('onRequest', async (request: WithFill, reply) => {
      const kind = readKindOf(opts, request);
      if (kind === null) return;
      if (!isOwnFill(state, request)) await limitReads(request);
      if (kind !== 'cached') return;
      return answerFromCache(state, request, reply);
    });

    app.addHook('onSend', async (request: WithFill, reply, payload) => storeAnswer(state, request, reply, payload));

    app.addHook('onResponse', abandon);
    app.addHook('onRequestAbort', abandon);
  },
  { name: 'read-cache', dependencies: ['results-db', '@fastify/rate-limit'] },
);
