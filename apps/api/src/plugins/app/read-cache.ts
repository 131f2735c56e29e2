import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Sema } from 'async-sema';
import { ApiError } from '../../problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Call after the stored data changed (a run ingested): cached reads are answered afresh. */
    markDataChanged: () => void;
  }
}

export type ReadCacheOptions = {
  /** Path prefixes of the expensive GET routes (`/v1/comparisons` covers `/v1/comparisons?…` and `/v1/comparisons/…`). */
  prefixes: readonly string[];
  /** GETs per client address per minute on those routes; beyond it 429 + Retry-After. */
  readsPerMinute: number;
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
   * Answers computed at once. Default 1 on an embedded database — PGlite runs every query on this
   * process's one thread, so each computation waiting here is one fewer query queued ahead of a
   * runner's ingest — and 4 on PostgreSQL.
   */
  maxConcurrentComputations?: number;
};

type Entry = { version: number; etag: string; body: string; contentType: string };
type Fill = { key: string; version: number; settle: (entry: Entry | null) => void };

const FILL = Symbol('read-cache fill');
const WRITE = Symbol('read-cache write');
type WithFill = FastifyRequest & { [FILL]?: Fill; [WRITE]?: boolean };

/** `If-None-Match: "a", W/"b"` matches `"a"` (weak comparison, RFC 9110 §13.1.2). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * The expensive public reads (comparisons, findings, answers, hardware) with a per-client rate
 * limit and an answer cache. An answer is cached under method + URL + the data version, a counter
 * the write routes bump after every stored run (`markDataChanged`): a read after an ingest is
 * never stale, and a flood of identical reads costs one computation. Concurrent misses of one
 * key wait for the first one's answer instead of all computing it. Every cached answer carries
 * an ETag; a client sending it back in If-None-Match gets 304 with no body.
 *
 * Writes go first: while an accepted write (POST, PUT, PATCH, DELETE past validation) runs no new answer
 * starts computing, and only `maxConcurrentComputations` compute at once, so a runner's ingest
 * waits for at most the queries already running, never for a queue of readers.
 */
export default fp<ReadCacheOptions>(
  async (app, opts) => {
    let version = 0;
    app.decorate('markDataChanged', () => {
      version++;
    });
    const maxAgeMs = opts.maxAgeMs ?? (app.resultsDb.kind === 'postgresql' ? 10_000 : undefined);
    const cache = new LRUCache<string, Entry>({
      max: opts.maxEntries ?? 1000,
      maxSize: opts.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (e) => Math.max(1, e.body.length),
      ...(maxAgeMs ? { ttl: maxAgeMs } : {}),
    });
    const inflight = new Map<string, Promise<Entry | null>>();
    let writes = 0;
    let writesDone: Promise<void> | undefined;
    let signalWritesDone = () => {};
    const noWrites = async () => {
      while (writes > 0) {
        writesDone ??= new Promise<void>((resolve) => {
          signalWritesDone = resolve;
        });
        await writesDone;
      }
    };
    const computing = new Sema(opts.maxConcurrentComputations ?? (app.resultsDb.kind === 'postgresql' ? 4 : 1));
    const limitReads = app.createRateLimit({
      max: opts.readsPerMinute,
      timeWindow: 60_000,
      keyGenerator: (req) => req.ip,
    });
    const expensive = (url: string) => {
      const path = url.split('?')[0] ?? url;
      return opts.prefixes.some((p) => path === p || path.startsWith(`${p}/`));
    };

    // A write counts from when its body is in and it passed authentication and validation: a
    // client trickling a body, or one without a token, holds back no reads.
    app.addHook('preHandler', async (request: WithFill) => {
      if (
        request.method === 'POST' ||
        request.method === 'PUT' ||
        request.method === 'PATCH' ||
        request.method === 'DELETE'
      ) {
        writes++;
        request[WRITE] = true;
      }
    });

    app.addHook('onRequest', async (request: WithFill, reply) => {
      if (request.method !== 'GET' || !expensive(request.url)) return;
      const limit = await limitReads(request);
      if (!limit.isAllowed && limit.isExceeded) {
        const seconds = Math.max(1, limit.ttlInSeconds);
        throw new ApiError(
          'rate-limited',
          `more than ${limit.max} reads of comparisons, findings, answers and hardware per minute from this address; retry after ${seconds} s`,
          undefined,
          { 'retry-after': String(seconds) },
        );
      }
      const key = `GET ${request.url}`;
      let entry = cache.get(key);
      if (entry?.version !== version) {
        const flightKey = `${version} ${key}`;
        const pending = inflight.get(flightKey);
        if (!pending) {
          // This request computes the answer (when a slot is free); onSend stores it and wakes the others.
          let settle!: (e: Entry | null) => void;
          inflight.set(
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
              inflight.delete(flightKey);
              if (acquired) computing.release();
              settle(e);
            },
          };
          await noWrites();
          await computing.acquire();
          // Given up while waiting for a slot (the client went away): hand the slot on.
          if (settled) computing.release();
          else acquired = true;
          return;
        }
        entry = (await pending) ?? undefined;
        // The first request failed (a 4xx, a timeout): this one computes its own answer.
        if (!entry) return;
      }
      reply.header('etag', entry.etag).header('cache-control', 'no-cache');
      if (matches(request.headers['if-none-match'], entry.etag)) return reply.code(304).send();
      return reply.code(200).type(entry.contentType).send(entry.body);
    });

    app.addHook('onSend', async (request: WithFill, reply, payload) => {
      const fill = request[FILL];
      if (!fill) return payload;
      delete request[FILL];
      if (reply.statusCode !== 200 || typeof payload !== 'string') {
        fill.settle(null);
        return payload;
      }
      const etag = `"${fill.version.toString(36)}-${createHash('sha256').update(payload).digest('base64url').slice(0, 22)}"`;
      const entry: Entry = {
        version: fill.version,
        etag,
        body: payload,
        contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      };
      cache.set(fill.key, entry);
      fill.settle(entry);
      reply.header('etag', etag).header('cache-control', 'no-cache');
      if (matches(request.headers['if-none-match'], etag)) {
        reply.code(304);
        return '';
      }
      return payload;
    });

    // A request that never reached onSend (client gone) must not leave others waiting.
    const abandon = async (request: WithFill) => {
      request[FILL]?.settle(null);
      delete request[FILL];
      if (request[WRITE]) {
        delete request[WRITE];
        if (--writes === 0) {
          writesDone = undefined;
          signalWritesDone();
        }
      }
    };
    app.addHook('onResponse', abandon);
    app.addHook('onRequestAbort', abandon);
  },
  { name: 'read-cache', dependencies: ['results-db', '@fastify/rate-limit'] },
);
