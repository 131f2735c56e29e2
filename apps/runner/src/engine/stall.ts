/**
 * A stalled connection cannot hang a run. Every call the run makes on a session of the server
 * under test is raced against
 * - the stall timeout (`TUNELAB_STALL_TIMEOUT_S` / `--stall-timeout`), except inside a measured
 *   block (`action: timed`), whose length is what is measured;
 * - the run's abort signal (Ctrl-C), always.
 * When either fires, the connection is dropped at once (`destroy()`, no goodbye to a server that
 * does not answer) and the call rejects; the run then fails (or stops) and cleans up on fresh
 * connections (cleanup.ts). TCP keep-alive (drivers) finds peers that vanished; this finds
 * connections that stay open but carry nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Default stall timeout (TUNELAB_STALL_TIMEOUT_S, `--stall-timeout`, RunOptions.stallTimeoutMs). */
export const DEFAULT_STALL_TIMEOUT_S = 600;
/** Default of TUNELAB_CLEANUP_RETRY_S and RunOptions.cleanupRetryMs (cleanup.ts; kept in this leaf module). */
export const DEFAULT_CLEANUP_RETRY_S = 30;

const measured = new AsyncLocalStorage<true>();

/** Runs `fn` as the measured block: calls made inside it have no stall timeout. */
export const inMeasuredBlock = <T>(fn: () => Promise<T>): Promise<T> => measured.run(true, fn);

/** The stall timeout, said in error messages. */
export class Stalled extends Error {
  override name = 'Stalled';
}

export type Guard = {
  /** 0 = no stall timeout. */
  stallMs: number;
  signal: AbortSignal;
};

const STALL_HINT = 'TUNELAB_STALL_TIMEOUT_S or --stall-timeout';

/** The calls in flight per signal, all answered by one 'abort' listener on it (see onAbortOf). */
const inFlight = new WeakMap<AbortSignal, { calls: Set<() => void>; listener: () => void }>();

/**
 * Calls `fn` when `signal` aborts; the returned function forgets it. However many calls are in
 * flight (an insert stream of 30 connections, each with a statement running, plus its monitor),
 * the signal carries one listener, added with the first and removed with the last: a listener per
 * call would pass Node's limit of 10 (MaxListenersExceededWarning) and grow with the connections.
 */
export function onAbortOf(signal: AbortSignal, fn: () => void): () => void {
  let entry = inFlight.get(signal);
  if (!entry) {
    const calls = new Set<() => void>();
    const listener = () => {
      inFlight.delete(signal);
      for (const call of [...calls]) call();
    };
    entry = { calls, listener };
    inFlight.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  const { calls, listener } = entry;
  calls.add(fn);
  return () => {
    if (!calls.delete(fn) || calls.size > 0 || inFlight.get(signal)?.calls !== calls) return;
    inFlight.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}

/** Runs one call under the guard; `destroy` drops its connection when the guard fires. */
export function guarded<T>(guard: Guard, what: string, destroy: (() => void) | undefined, call: () => Promise<T>) {
  if (guard.signal.aborted) return Promise.reject(new Error('interrupted'));
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const fire = (error: Error) => {
      cleanup();
      destroy?.();
      reject(error);
    };
    const forget = onAbortOf(guard.signal, () => fire(new Error('interrupted')));
    const cleanup = () => {
      clearTimeout(timer);
      forget();
    };
    if (guard.stallMs > 0 && !measured.getStore()) {
      timer = setTimeout(
        () =>
          fire(
            new Stalled(
              `the server sent nothing for ${guard.stallMs / 1000} s during ${what} (stall timeout, ${STALL_HINT}); the connection was dropped`,
            ),
          ),
        guard.stallMs,
      );
    }
    call().then(
      (v) => {
        cleanup();
        resolve(v);
      },
      (e: unknown) => {
        cleanup();
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** Waits at most `ms` for `p` (a close that a dead server would never answer); never throws. */
export async function atMost(p: Promise<unknown>, ms: number, onTimeout?: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    p.then(
      () => false,
      () => false,
    ),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(true), ms))),
  ]);
  clearTimeout(timer);
  if (timedOut) onTimeout?.();
}

const UNGUARDED = new Set(['close', 'destroy', 'drainMessages']);

/**
 * The same session with every call guarded (close, destroy and drainMessages as they are).
 * Works for AdminSession and DatabaseSession alike.
 */
export function guardSession<S extends { destroy?(): void }>(session: S, guard: Guard): S {
  const destroy = session.destroy?.bind(session);
  return new Proxy(session, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      // Engine capabilities (driver.ts) are objects of methods on the same connection: guard them alike.
      if (prop === 'capabilities' && value && typeof value === 'object')
        return guardCapabilities(value, guard, destroy);
      if (typeof value !== 'function' || typeof prop !== 'string' || UNGUARDED.has(prop)) return value;
      const fn = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) =>
        guarded(guard, prop, destroy, () => Promise.resolve(fn.apply(target, args) as Promise<unknown>));
    },
  });
}

function guardCapabilities(capabilities: object, guard: Guard, destroy: (() => void) | undefined): object {
  return new Proxy(capabilities, {
    get(target, name, receiver) {
      const capability: unknown = Reflect.get(target, name, receiver);
      if (!capability || typeof capability !== 'object' || typeof name !== 'string') return capability;
      return new Proxy(capability, {
        get(inner, prop, innerReceiver) {
          const value: unknown = Reflect.get(inner, prop, innerReceiver);
          if (typeof value !== 'function' || typeof prop !== 'string') return value;
          const fn = value as (...args: unknown[]) => unknown;
          return (...args: unknown[]) =>
            guarded(guard, `${name}.${prop}`, destroy, () =>
              Promise.resolve(fn.apply(inner, args) as Promise<unknown>),
            );
        },
      });
    },
  });
}
