// The embedded results database's own thread: PGlite runs every statement in WebAssembly on the
// thread that calls it, so in the API's thread a 100 ms statement of a public read held up every
// runner's submission behind it (apps/api/bench/README.md, bench:reads). This worker owns the
// PGlite instance; pglite-thread.ts is the other side and speaks the protocol below.
//
// Requests  { id, op, ... }: open | query | exec | begin | end | rollback | listen | unlisten | close.
// Replies   { id, ok: true, value } or { id, ok: false, error: { name, message, database, props } }
//           (`database`: it was PGlite's DatabaseError, whose own fields — code, constraint, … — are `props`);
// events    { event: 'notify', listener, payload } for LISTEN callbacks.
//
// Top-level work (a query or exec outside a transaction, or a whole transaction from begin to
// end) runs one at a time, highest `priority` first, in arrival order within a priority: a
// runner's ingest (priority 1) goes ahead of queued public reads (0), and waits at most for the
// statement or transaction already running. Statements inside an open transaction run at once.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, messages } from '@electric-sql/pglite';

if (!parentPort) throw new Error('pglite-worker.mjs runs as a worker thread (pglite-thread.ts starts it)');
const port = parentPort;

/** @type {PGlite | undefined} */
let db;
/** Open transactions by the id of their `begin`; `result` is set by `end` and told how the transaction ended. */
/** @type {Map<number, { tx: import('@electric-sql/pglite').Transaction, end: (commit: boolean) => void, result?: (err: unknown) => void }>} */
const transactions = new Map();
/** @type {Map<number, () => Promise<void>>} */
const listeners = new Map();

/** Waiting top-level work. @type {Array<{ priority: number, seq: number, start: () => Promise<void> }>} */
const waiting = [];
let seq = 0;
let busy = false;

function schedule(priority, start) {
  waiting.push({ priority, seq: seq++, start });
  pump();
}

function pump() {
  if (busy || waiting.length === 0) return;
  let best = 0;
  for (let i = 1; i < waiting.length; i++) {
    const a = waiting[i];
    const b = waiting[best];
    if (a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq)) best = i;
  }
  const [next] = waiting.splice(best, 1);
  busy = true;
  next.start().finally(() => {
    busy = false;
    pump();
  });
}

/** An error as plain data: PGlite's DatabaseError carries code, detail, constraint, … as own properties. */
function errorData(err) {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), database: false, props: {} };
  const props = {};
  for (const [key, value] of Object.entries(err)) {
    if (value === undefined || typeof value === 'function') continue;
    try {
      structuredClone(value);
      props[key] = value;
    } catch {
      props[key] = String(value);
    }
  }
  return { name: err.name, message: err.message, database: err instanceof messages.DatabaseError, props };
}

const reply = (id, value) => port.postMessage({ id, ok: true, value });
const fail = (id, err) => port.postMessage({ id, ok: false, error: errorData(err) });

/** Text values for the types the caller parses itself (its parsers are functions, which cannot cross threads). */
const passThrough = (rawTypes) =>
  rawTypes?.length ? Object.fromEntries(rawTypes.map((t) => [t, (/** @type {string} */ x) => x])) : undefined;

function queryOptions(msg) {
  const parsers = passThrough(msg.rawTypes);
  return { ...(msg.rowMode ? { rowMode: msg.rowMode } : {}), ...(parsers ? { parsers } : {}) };
}

/** The transaction a statement belongs to, or the database itself. */
function target(msg) {
  if (msg.tx === undefined) return undefined;
  const t = transactions.get(msg.tx);
  if (!t) throw new Error(`transaction ${msg.tx} is not open`);
  return t.tx;
}

async function runStatement(msg) {
  const tx = target(msg);
  const on = tx ?? db;
  if (!on) throw new Error('the embedded database is not open');
  if (msg.op === 'query') return on.query(msg.text, msg.params ?? [], queryOptions(msg));
  return on.exec(msg.text);
}

/** Begins a transaction: replies once BEGIN ran; the transaction holds the queue until `end`. */
function begin(msg) {
  schedule(msg.priority ?? 0, () => {
    if (!db) {
      fail(msg.id, new Error('the embedded database is not open'));
      return Promise.resolve();
    }
    /** @type {(commit: boolean) => void} */
    let end = () => {};
    const ended = new Promise((resolve) => (end = resolve));
    const ROLLBACK = Symbol('rollback');
    const settled = db.transaction(async (tx) => {
      transactions.set(msg.id, { tx, end });
      reply(msg.id, msg.id);
      const commit = await ended;
      if (!commit) throw ROLLBACK;
    });
    const done = settled.then(
      () => undefined,
      (err) => (err === ROLLBACK ? undefined : err),
    );
    // What `end` reports: nothing once committed or rolled back as asked, else COMMIT's error.
    return done.then((err) => {
      const t = transactions.get(msg.id);
      transactions.delete(msg.id);
      if (!t)
        fail(msg.id, err ?? new Error('BEGIN failed')); // BEGIN itself failed: nothing was replied yet
      else t.result?.(err);
    });
  });
}

function end(msg) {
  const t = transactions.get(msg.tx);
  if (!t) {
    fail(msg.id, new Error(`transaction ${msg.tx} is not open`));
    return;
  }
  t.result = (err) => (err ? fail(msg.id, err) : reply(msg.id, null));
  t.end(Boolean(msg.commit));
}

port.on('message', (msg) => {
  switch (msg.op) {
    case 'open':
      PGlite.create(workerData.dataDir).then(
        (created) => {
          db = created;
          reply(msg.id, null);
        },
        (err) => fail(msg.id, err),
      );
      return;
    case 'query':
    case 'exec':
      if (msg.tx !== undefined) {
        runStatement(msg).then(
          (value) => reply(msg.id, value),
          (err) => fail(msg.id, err),
        );
        return;
      }
      schedule(msg.priority ?? 0, () =>
        runStatement(msg).then(
          (value) => reply(msg.id, value),
          (err) => fail(msg.id, err),
        ),
      );
      return;
    case 'begin':
      begin(msg);
      return;
    case 'end':
      end(msg);
      return;
    case 'rollback':
      Promise.resolve()
        .then(() => target(msg).rollback())
        .then(
          () => reply(msg.id, null),
          (err) => fail(msg.id, err),
        );
      return;
    case 'listen':
      if (!db) return fail(msg.id, new Error('the embedded database is not open'));
      db.listen(msg.channel, (payload) => port.postMessage({ event: 'notify', listener: msg.id, payload })).then(
        (unsubscribe) => {
          listeners.set(msg.id, unsubscribe);
          reply(msg.id, msg.id);
        },
        (err) => fail(msg.id, err),
      );
      return;
    case 'unlisten': {
      const unsubscribe = listeners.get(msg.listener);
      listeners.delete(msg.listener);
      (unsubscribe ? unsubscribe() : Promise.resolve()).then(
        () => reply(msg.id, null),
        (err) => fail(msg.id, err),
      );
      return;
    }
    case 'close':
      (db ? db.close() : Promise.resolve()).then(
        () => {
          db = undefined;
          reply(msg.id, null);
        },
        (err) => fail(msg.id, err),
      );
      return;
    default:
      fail(msg.id, new Error(`unknown request ${String(msg.op)}`));
  }
});
