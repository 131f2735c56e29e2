/**
 * The embedded results database on a thread of its own (pglite-worker.mjs runs PGlite there).
 *
 * PGlite executes every statement in WebAssembly on the thread that calls it. On the API's thread,
 * one public read's statements (40–300 ms under bench:reads) stopped everything else, a runner's
 * submission included. Behind this class the statements run on the worker, the API's thread stays
 * free, and a runner's ingest goes ahead of queued reads (`withWritePriority`).
 *
 * It offers what TuneLab's users of a PGlite instance call — `query` (with `rowMode` and
 * `parsers`, as pglite-prisma-adapter passes them), `exec`, `transaction`, `listen` (pg-boss's
 * notifier) and `close` — with PGlite's semantics: one statement or transaction at a time, a
 * transaction's statements inside it, errors as PGlite's `DatabaseError` with their SQLSTATE
 * `code`. Parsers are functions and cannot cross threads: the worker returns the text of the
 * types they cover and they run here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { messages, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { query as templatedQuery } from '@electric-sql/pglite/template';

type ErrorData = { name: string; message: string; database: boolean; props: Record<string, unknown> };
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ErrorData };
type Notify = { event: 'notify'; listener: number; payload: string };
type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };

const priority = new AsyncLocalStorage<number>();

/**
 * Runs `fn` with its embedded-database work ahead of other queued work: a runner's ingest waits
 * at most for the statement (or transaction) already running, not for every public read queued
 * before it. Without effect on PostgreSQL, which runs statements side by side.
 */
export const withWritePriority = <T>(fn: () => Promise<T>): Promise<T> => priority.run(1, fn);

/** An error the worker sent: a `DatabaseError` again when it was one, with all its fields. */
function rebuildError(data: ErrorData): Error {
  const err = data.database ? new messages.DatabaseError(data.message, 0, 'error') : new Error(data.message);
  return Object.assign(err, { name: data.name }, data.props);
}

export class PgliteThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<number, (payload: string) => void>();
  #nextId = 1;
  #dead: Error | undefined;
  /** Set once close() (or a failed open) ends the thread: its exit is then no failure. */
  #closing = false;

  private constructor(worker: Worker, onExit: ((err: Error) => void) | undefined) {
    this.#worker = worker;
    // Kept running only while a request waits for its answer: an idle database never holds the process open.
    worker.unref();
    worker.on('message', (msg: Reply | Notify) => {
      if ('event' in msg) {
        this.#listeners.get(msg.listener)?.(msg.payload);
        return;
      }
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      if (this.#pending.size === 0) worker.unref();
      if (msg.ok) p.resolve(msg.value);
      else p.reject(rebuildError(msg.error));
    });
    // The thread's error (out of memory, an exception PGlite did not catch) comes before its exit.
    let cause: Error | undefined;
    worker.on('error', (err) => {
      cause ??= err;
    });
    worker.on('exit', (code) => {
      if (this.#closing) return;
      const err = new Error(
        `the embedded database's thread exited (code ${code})${cause ? `: ${cause.message}` : ''}`,
        cause ? { cause } : undefined,
      );
      this.#dead ??= err;
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
      onExit?.(err);
    });
  }

  /**
   * Starts the thread and opens PGlite in `dataDir` (a directory, or `memory://`) there.
   * `onExit` is called if the thread ends other than by close() (every call pending or later
   * fails); `resourceLimits` bound the thread (worker_threads' limits: past its heap it ends).
   */
  static async create(
    dataDir: string,
    options: { onExit?: (err: Error) => void; resourceLimits?: ResourceLimits } = {},
  ): Promise<PgliteThread> {
    const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
      workerData: { dataDir },
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
    });
    const thread = new PgliteThread(worker, options.onExit);
    try {
      await thread.#call({ op: 'open' });
    } catch (err) {
      thread.#closing = true;
      await worker.terminate();
      throw err;
    }
    return thread;
  }

  #call<T>(request: Record<string, unknown>): Promise<T> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#worker.postMessage({ ...request, id, priority: priority.getStore() ?? 0 });
    });
  }

  async #query<T>(text: string, params: unknown[] | undefined, options: QueryOptions | undefined, tx?: number) {
    const parsers = options?.parsers;
    const rawTypes = parsers ? Object.keys(parsers).map(Number) : undefined;
    const result = await this.#call<Results<T>>({
      op: 'query',
      text,
      params: params ?? [],
      ...(options?.rowMode ? { rowMode: options.rowMode } : {}),
      ...(rawTypes ? { rawTypes } : {}),
      ...(tx !== undefined ? { tx } : {}),
    });
    if (parsers) applyParsers(result, parsers, options?.rowMode === 'array');
    return result;
  }

  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#query<T>(text, params, options);
  }

  exec(text: string): Promise<Results[]> {
    return this.#call<Results[]>({ op: 'exec', text });
  }

  /** PGlite's `transaction`: BEGIN, the callback's statements, COMMIT (ROLLBACK when it throws). */
  async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    const id = await this.#call<number>({ op: 'begin' });
    let closed = false;
    const open = () => {
      if (closed) throw new Error('Transaction is closed');
    };
    const tx: Transaction = {
      query: <R>(text: string, params?: unknown[], options?: QueryOptions) => {
        open();
        return this.#query<R>(text, params, options, id);
      },
      sql: <R>(strings: TemplateStringsArray, ...values: unknown[]) => {
        open();
        const { query, params } = templatedQuery(strings, ...values);
        return this.#query<R>(query, params, undefined, id);
      },
      exec: (text: string) => {
        open();
        return this.#call<Results[]>({ op: 'exec', text, tx: id });
      },
      rollback: async () => {
        open();
        await this.#call({ op: 'rollback', tx: id });
        closed = true;
      },
      // NOTIFY is delivered at COMMIT whoever listens, so a listener set up inside the transaction is the database's.
      listen: (channel: string, callback: (payload: string) => void) => {
        open();
        return this.listen(channel, callback);
      },
      get closed() {
        return closed;
      },
    };
    let result: T;
    try {
      result = await callback(tx);
    } catch (err) {
      closed = true;
      await this.#call({ op: 'end', tx: id, commit: false }).catch(() => undefined);
      throw err;
    }
    closed = true;
    await this.#call({ op: 'end', tx: id, commit: true });
    return result;
  }

  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    const listener = await this.#call<number>({ op: 'listen', channel });
    this.#listeners.set(listener, callback);
    return async () => {
      this.#listeners.delete(listener);
      await this.#call({ op: 'unlisten', listener });
    };
  }

  async close(): Promise<void> {
    if (this.#dead) return;
    this.#closing = true;
    try {
      await this.#call({ op: 'close' });
    } finally {
      this.#dead = new Error('the embedded database is closed');
      await this.#worker.terminate();
    }
  }
}

/** Runs the caller's parsers on the text the worker returned for their types (as PGlite would have). */
function applyParsers(result: Results<unknown>, parsers: NonNullable<QueryOptions['parsers']>, arrays: boolean) {
  const columns = result.fields
    .map((f, i) => ({ i, name: f.name, type: f.dataTypeID, parse: parsers[f.dataTypeID] }))
    .filter((c) => c.parse);
  if (columns.length === 0) return;
  for (const row of result.rows as Record<string | number, unknown>[]) {
    for (const c of columns) {
      const key = arrays ? c.i : c.name;
      const value = row[key];
      if (value !== null && value !== undefined)
        row[key] = (c.parse as (x: string, type: number) => unknown)(value as string, c.type);
    }
  }
}
