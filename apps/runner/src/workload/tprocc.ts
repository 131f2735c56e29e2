/**
 * The TPROC-C workload driver: closed-loop virtual users against a PostgreSQL database that
 * holds the TPROC-C schema and the five transaction functions of
 * `scenarios/fillfactor-hot-updates/functions.sql`.
 *
 * - Every user has its own dedicated session from the run's PostgreSQL driver (`openSession`: one
 *   connection each, never a pool checkout), no keying or thinking time, and a home warehouse
 *   `(user index mod warehouses) + 1`.
 * - Every transaction is one round trip: a prepared statement `SELECT neword(...)` etc. (the
 *   driver's `prepared` capability);
 *   arguments are drawn like HammerDB's driver (uniform district, customer and item ids; 60 %
 *   of payments and order-status by last name with NURand(255, 0, 999)).
 * - Ramp-up, then a measured window. At the window's edges every user finishes its transaction,
 *   flushes its statistics (`pg_stat_force_next_flush()`, PostgreSQL 15+) and waits at a barrier
 *   while the caller reads server counters (`onWindowStart` / `onWindowEnd`), so those counters
 *   cover exactly the transactions the driver counted — plus any parallel worker's own
 *   transactions, which PostgreSQL counts in xact_commit too.
 * - A new order on an unused item raises SQLSTATE TP001 and is counted as a rollback (1 %).
 *   Deadlocks (40P01) and serialization failures (40001) are counted and retried; other server
 *   errors are counted; a lost connection ends the run with that error.
 * - Latency percentiles come from hdr-histogram-js (microsecond resolution, 3 digits).
 *
 * This file is PostgreSQL-specific on purpose: it drives server-side PL/pgSQL functions.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as hdr from 'hdr-histogram-js';
import { TPROCC_LIMITS } from '@tunelab/contracts';
import { capabilityOf, type Capabilities, type DatabaseSession } from '../engines/driver.ts';

export const TX_TYPES = ['neword', 'payment', 'delivery', 'ostat', 'slev'] as const;
export type TxType = (typeof TX_TYPES)[number];

/** `hammerdb`: HammerDB's TPROC-C driver (10/10/1/1/1 of 23); `tpcc`: the specification's minimum mix. */
export const MIXES = {
  hammerdb: { neword: 10, payment: 10, delivery: 1, ostat: 1, slev: 1 },
  tpcc: { neword: 45, payment: 43, delivery: 4, ostat: 4, slev: 4 },
} as const satisfies Record<string, Record<TxType, number>>;
export type MixName = keyof typeof MIXES;

export const LIMITS = TPROCC_LIMITS;
/** Retries of one transaction after a deadlock or serialization failure before it counts as an error. */
export const MAX_RETRIES = 10;
/** SQLSTATE the new-order function raises for its 1 % of orders with an unused item. */
export const ROLLBACK_SQLSTATE = 'TP001';

export type TproccOptions = {
  /**
   * A new session on the database holding the TPROC-C schema (one per user, plus short side
   * sessions); it carries the run's application_name, so cleanup finds it.
   */
  openSession: () => Promise<DatabaseSession>;
  vus: number;
  warehouses: number;
  mix?: MixName;
  rampUpSeconds: number;
  durationSeconds: number;
  signal?: AbortSignal;
  /** Called while every user waits at the barrier before the window (read start counters here). */
  onWindowStart?: () => Promise<void>;
  /** Called after every user stopped and flushed its statistics, before they disconnect. */
  onWindowEnd?: () => Promise<void>;
  /**
   * Whether 1 % of new orders roll back (default true). `false` is for comparing with pgbench,
   * which ends a client on any error but a serialization failure or deadlock.
   */
  rollbacks?: boolean;
  /** Per-user `statement_timeout`, ms. */
  statementTimeoutMs?: number;
};

export type Latency = { p50: number; p95: number; p99: number; mean: number; max: number };
export type TypeResult = {
  /** Completed transactions: committed, plus new orders rolled back on purpose. */
  transactions: number;
  rollbacks: number;
  /** Transactions that failed for good (other server errors, or retries exhausted). */
  errors: number;
  deadlocks: number;
  serializationFailures: number;
  retries: number;
  /** Milliseconds, end to end including retries, of completed transactions. */
  latency: Latency | null;
};
export type TproccResult = {
  vus: number;
  warehouses: number;
  mix: MixName;
  /** Seconds from the window's start until the last user stopped. */
  elapsedSeconds: number;
  perType: Record<TxType, TypeResult>;
  totals: Omit<TypeResult, 'latency'>;
  /**
   * Every transaction of the users that ended during the window (commit or rollback, incl. the
   * retried attempts and each user's final statistics flush): what Δ xact_commit + xact_rollback
   * of the database counts, apart from the caller's own queries.
   */
  attempts: number;
  /** Completed transactions per second of the window (second 1 = [0 s, 1 s)). */
  perSecond: number[];
  /** The first few distinct error messages, for the run's notes. */
  errorMessages: string[];
  /** Client CPU time of this process during the window (user + system), µs. */
  clientCpuMicros: number;
};

const rand = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));
/** NURand(A, x, y) of TPC-C clause 2.1.6; the run-time constant differs from the load's (157). */
const C_LAST_RUN = 223;
const nurand = (a: number, lo: number, hi: number, c: number) =>
  (((rand(0, a) | rand(lo, hi)) + c) % (hi - lo + 1)) + lo;

type Statement = { name: string; text: string; args: (w: number, warehouses: number, rollbacks: boolean) => number[] };
/** The argument draws are mirrored by the pgbench scripts of `npm run bench:driver`. */
export const STATEMENTS: Record<TxType, Statement> = {
  neword: {
    name: 'tpcc_neword',
    text: 'SELECT neword($1, $2, $3, $4, $5, $6)',
    // The last argument is the rollback draw: 1 (of 1-100) makes the order roll back.
    args: (w, n, rollbacks) => [w, n, rand(1, 10), rand(1, 3000), rand(5, 15), rand(rollbacks ? 1 : 2, 100)],
  },
  payment: {
    name: 'tpcc_payment',
    text: 'SELECT payment($1, $2, $3, $4, $5, $6, $7)',
    args: (w, n) => [
      w,
      n,
      rand(1, 10),
      rand(1, 3000),
      rand(1, 100),
      nurand(255, 0, 999, C_LAST_RUN),
      rand(100, 500000),
    ],
  },
  delivery: { name: 'tpcc_delivery', text: 'SELECT delivery($1, $2)', args: (w) => [w, rand(1, 10)] },
  ostat: {
    name: 'tpcc_ostat',
    text: 'SELECT ostat($1, $2, $3, $4, $5)',
    args: (w) => [w, rand(1, 10), rand(1, 3000), rand(1, 100), nurand(255, 0, 999, C_LAST_RUN)],
  },
  slev: { name: 'tpcc_slev', text: 'SELECT slev($1, $2, $3)', args: (w) => [w, rand(1, 10), rand(10, 20)] },
};

/** Picks transaction types with the mix's weights. */
export function mixPicker(mix: MixName): () => TxType {
  const weights = MIXES[mix];
  const total = TX_TYPES.reduce((s, t) => s + weights[t], 0);
  return () => {
    let r = Math.random() * total;
    for (const t of TX_TYPES) {
      r -= weights[t];
      if (r < 0) return t;
    }
    return 'slev';
  };
}

export class WorkloadInputError extends Error {}

function checkOptions(o: TproccOptions): MixName {
  const mix = o.mix ?? 'hammerdb';
  const int = (name: 'vus' | 'warehouses', v: number) => {
    const { min, max } = LIMITS[name];
    if (!Number.isInteger(v) || v < min || v > max)
      throw new WorkloadInputError(`${name} must be an integer from ${min} to ${max} (got ${v})`);
  };
  int('vus', o.vus);
  int('warehouses', o.warehouses);
  if (!(mix in MIXES)) throw new WorkloadInputError(`mix must be one of ${Object.keys(MIXES).join(', ')} (got ${mix})`);
  for (const k of ['rampUpSeconds', 'durationSeconds'] as const)
    if (!Number.isFinite(o[k]) || o[k] < 0 || o[k] > 86_400)
      throw new WorkloadInputError(`${k} must be between 0 and 86400 (got ${o[k]})`);
  if (o.durationSeconds <= 0) throw new WorkloadInputError('durationSeconds must be positive');
  return mix;
}

type Counter = Omit<TypeResult, 'latency'> & { histogram: hdr.Histogram };
const newCounter = (): Counter => ({
  transactions: 0,
  rollbacks: 0,
  errors: 0,
  deadlocks: 0,
  serializationFailures: 0,
  retries: 0,
  histogram: hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  }),
});

type User = { session: DatabaseSession; tx: Capabilities['prepared']; pid: number; flushStats: boolean };

type Deferred = { promise: Promise<void>; resolve: () => void };
function deferred(): Deferred {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A barrier every running user passes through: `ready` once all have arrived, then `release()`. */
class Barrier {
  private arrived = 0;
  private readonly allArrived = deferred();
  private readonly released = deferred();
  constructor(private parties: number) {
    if (parties === 0) this.allArrived.resolve();
  }
  /** A user that ended for good no longer takes part. */
  leave() {
    this.parties -= 1;
    if (this.arrived >= this.parties) this.allArrived.resolve();
  }
  arrive(): Promise<void> {
    this.arrived += 1;
    if (this.arrived >= this.parties) this.allArrived.resolve();
    return this.released.promise;
  }
  get ready() {
    return this.allArrived.promise;
  }
  release() {
    this.released.resolve();
  }
}

async function connectUser(o: TproccOptions): Promise<User> {
  const session = await o.openSession();
  try {
    await session.setSetting('statement_timeout', String(o.statementTimeoutMs ?? 60_000));
    const [row] = await session.exec("SELECT pg_backend_pid() AS pid, current_setting('server_version_num')::int AS v");
    return {
      session,
      tx: capabilityOf(session, 'prepared', 'the TPROC-C workload'),
      pid: Number(row?.pid ?? 0),
      flushStats: Number(row?.v ?? 0) >= 150000,
    };
  } catch (e) {
    await session.close();
    throw e;
  }
}

/**
 * Makes this user's backend publish its pending statistics now. The scan of pg_namespace is
 * there on purpose: a backend with no pending table statistics skips the flush altogether and
 * keeps the commit count of this very transaction (and of any other that touched no table).
 */
export const FLUSH_SQL = 'SELECT pg_stat_force_next_flush() FROM (SELECT 1 FROM pg_namespace LIMIT 1) AS touch';
async function flushStats(u: User) {
  if (u.flushStats) await u.session.exec(FLUSH_SQL);
}

/** Runs the workload; throws the abort reason when `signal` fires (every user stopped first). */
export async function runTprocc(o: TproccOptions): Promise<TproccResult> {
  const mix = checkOptions(o);
  o.signal?.throwIfAborted();
  const users: User[] = [];
  try {
    for (let i = 0; i < o.vus; i++) users.push(await connectUser(o));
    return await drive(o, mix, users);
  } finally {
    await disconnect(o, users);
  }
}

/**
 * One transaction, retried on a deadlock (40P01) or serialization failure (40001) up to
 * MAX_RETRIES times; counted in `counter` while measuring. Throws when the user cannot go on.
 */
async function execute(
  u: User,
  text: string,
  values: number[],
  tally: {
    measuring: () => boolean;
    attempt: () => void;
    counter: Counter;
    failed: (code: string, e: unknown) => void;
  },
): Promise<'ok' | 'rollback' | 'error'> {
  for (let attempt = 0; ; attempt++) {
    try {
      if (tally.measuring()) tally.attempt();
      await u.tx.execute(text, values);
      return 'ok';
    } catch (e) {
      const code = errorCode(e);
      // No SQLSTATE (a socket error), or connection exception (08) / operator
      // intervention (57, e.g. the backend was terminated): this user cannot go on.
      if (code === undefined || code.startsWith('08') || code.startsWith('57')) throw e;
      if (code === ROLLBACK_SQLSTATE) return 'rollback';
      if ((code === '40P01' || code === '40001') && attempt < MAX_RETRIES) {
        if (tally.measuring()) {
          if (code === '40P01') tally.counter.deadlocks += 1;
          else tally.counter.serializationFailures += 1;
          tally.counter.retries += 1;
        }
        continue;
      }
      tally.failed(code, e);
      return 'error';
    }
  }
}

/** Counts one finished transaction of the measured window: in its counter, and in its second. */
function tallyTransaction(
  c: Counter,
  perSecond: number[],
  outcome: 'ok' | 'rollback' | 'error',
  micros: number,
  second: number,
): void {
  if (outcome === 'error') {
    c.errors += 1;
    return;
  }
  c.transactions += 1;
  if (outcome === 'rollback') c.rollbacks += 1;
  c.histogram.recordValue(Math.max(1, Math.round(micros)));
  perSecond[second] = (perSecond[second] ?? 0) + 1;
}

async function drive(o: TproccOptions, mix: MixName, users: User[]): Promise<TproccResult> {
  const pick = mixPicker(mix);
  const counters = Object.fromEntries(TX_TYPES.map((t) => [t, newCounter()])) as Record<TxType, Counter>;
  const perSecond: number[] = [];
  const errorMessages = new Set<string>();
  let attempts = 0;
  let measuring = false;
  let windowStart = 0n;
  let stopping = false;
  let fatal: Error | undefined;
  let pause: Barrier | null = null;
  const lastSecond = Math.max(0, Math.ceil(o.durationSeconds) - 1);
  const startBarrier = new Barrier(users.length);

  const record = (type: TxType, outcome: 'ok' | 'rollback' | 'error', micros: number, end: bigint) => {
    if (measuring) tallyTransaction(counters[type], perSecond, outcome, micros, secondOf(end));
  };
  // A transaction still running when the window closed counts in its last second.
  const secondOf = (end: bigint) => Math.min(Number((end - windowStart) / 1_000_000_000n), lastSecond);

  const runUser = async (u: User, index: number) => {
    const home = (index % o.warehouses) + 1;
    try {
      while (!stopping) {
        if (pause) {
          await flushStats(u);
          await pause.arrive();
          continue;
        }
        const type = pick();
        const st = STATEMENTS[type];
        const values = st.args(home, o.warehouses, o.rollbacks ?? true);
        const t0 = process.hrtime.bigint();
        const outcome = await execute(u, st.text, values, {
          measuring: () => measuring,
          attempt: () => void (attempts += 1),
          counter: counters[type],
          failed: (code, e) => {
            if (errorMessages.size < 5)
              errorMessages.add(`${type}: ${code} ${e instanceof Error ? e.message : String(e)}`);
          },
        });
        const t1 = process.hrtime.bigint();
        record(type, outcome, Number(t1 - t0) / 1000, t1);
      }
      // The server counts this flush as one more committed transaction of the window.
      if (measuring && u.flushStats) attempts += 1;
      await flushStats(u);
    } catch (e) {
      fatal ??= e instanceof Error ? e : new Error(String(e));
      stopping = true;
      stop.abort();
    } finally {
      startBarrier.leave();
    }
  };

  // Fires on the caller's abort and when a user fails for good: ends the coordinator's waits.
  const stop = new AbortController();
  const onAbort = () => {
    stopping = true;
    startBarrier.release();
    stop.abort();
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const loops = users.map((u, i) => runUser(u, i));
  try {
    await sleep(o.rampUpSeconds * 1000, undefined, { signal: stop.signal }).catch(() => undefined);
    if (!stopping) {
      pause = startBarrier;
      await Promise.race([startBarrier.ready, abortPromise(stop.signal)]);
      pause = null;
      if (!stopping) {
        await o.onWindowStart?.();
        windowStart = process.hrtime.bigint();
        measuring = true;
      }
      startBarrier.release();
    }
    const cpuStart = process.cpuUsage();
    if (!stopping) await sleep(o.durationSeconds * 1000, undefined, { signal: stop.signal }).catch(() => undefined);
    stopping = true;
    await settle(loops, users, o);
    const cpu = process.cpuUsage(cpuStart);
    const elapsedSeconds = Number(process.hrtime.bigint() - windowStart) / 1e9;
    o.signal?.throwIfAborted();
    if (fatal !== undefined) throw fatal;
    await o.onWindowEnd?.();
    return summarise({
      o,
      mix,
      counters,
      perSecond,
      attempts,
      errorMessages,
      elapsedSeconds,
      cpuMicros: cpu.user + cpu.system,
    });
  } finally {
    stopping = true;
    startBarrier.release();
    o.signal?.removeEventListener('abort', onAbort);
    await Promise.allSettled(loops);
  }
}

function abortPromise(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Waits for every user to finish its transaction. A user stuck in a statement past the grace
 * period (a lock wait when aborted) gets its statement cancelled from a side connection.
 */
async function settle(loops: Promise<void>[], users: User[], o: TproccOptions) {
  const all = Promise.allSettled(loops);
  const graceMs = 3000;
  const done = await Promise.race([all.then(() => true), sleep(graceMs).then(() => false)]);
  if (done) return;
  await withSideConnection(o, (c) => c.exec(`SELECT pg_cancel_backend(pid) FROM unnest(${pidArray(users)}) AS pid`));
  await all;
}

/** The users' backend pids as an SQL array literal (integers only). */
const pidArray = (users: User[]) => `ARRAY[${users.map((u) => Math.trunc(u.pid)).join(',')}]::int[]`;

async function withSideConnection<T>(o: TproccOptions, fn: (c: DatabaseSession) => Promise<T>): Promise<T> {
  const c = await o.openSession();
  try {
    await c.setSetting('statement_timeout', '10000');
    return await fn(c);
  } finally {
    await c.close();
  }
}

/** Closes every user connection and waits until the server has no backend of them left. */
async function disconnect(o: TproccOptions, users: User[]) {
  if (users.length === 0) return;
  await Promise.allSettled(users.map((u) => u.session.close()));
  const pids = pidArray(users.filter((u) => u.pid > 0));
  await withSideConnection(o, async (c) => {
    for (let i = 0; i < 100; i++) {
      const [row] = await c.exec(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY(${pids})`);
      if (Number(row?.n ?? 0) === 0) return;
      await sleep(50);
    }
    await c.exec(`SELECT pg_terminate_backend(pid) FROM unnest(${pids}) AS pid`);
  }).catch(() => undefined);
}

function errorCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null || !('code' in e)) return undefined;
  const code = e.code;
  // Server errors carry a five-character SQLSTATE; Node's socket errors (ECONNRESET…) do not.
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

function summarise(a: {
  o: TproccOptions;
  mix: MixName;
  counters: Record<TxType, Counter>;
  perSecond: number[];
  attempts: number;
  errorMessages: Set<string>;
  elapsedSeconds: number;
  cpuMicros: number;
}): TproccResult {
  const perType = {} as Record<TxType, TypeResult>;
  const totals = { transactions: 0, rollbacks: 0, errors: 0, deadlocks: 0, serializationFailures: 0, retries: 0 };
  for (const t of TX_TYPES) {
    const { histogram: h, ...counts } = a.counters[t];
    const ms = (v: number) => v / 1000;
    perType[t] = {
      ...counts,
      latency:
        h.totalCount === 0
          ? null
          : {
              p50: ms(h.getValueAtPercentile(50)),
              p95: ms(h.getValueAtPercentile(95)),
              p99: ms(h.getValueAtPercentile(99)),
              mean: ms(h.mean),
              max: ms(h.maxValue),
            },
    };
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += counts[k];
  }
  const perSecond = Array.from({ length: Math.ceil(a.o.durationSeconds) }, (_, i) => a.perSecond[i] ?? 0);
  return {
    vus: a.o.vus,
    warehouses: a.o.warehouses,
    mix: a.mix,
    elapsedSeconds: a.elapsedSeconds,
    perType,
    totals,
    attempts: a.attempts,
    perSecond,
    errorMessages: [...a.errorMessages],
    clientCpuMicros: a.cpuMicros,
  };
}
