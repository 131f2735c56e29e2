/**
 * Clean-up that survives a server connection that died or stalls: every attempt is a fresh
 * admin connection; attempts repeat with bounded backoff until a deadline, so a cut of a few
 * seconds leaves nothing behind. It drops the run's databases (the template and any clone) and
 * puts back the global settings the run changed. It never throws: the report says what is left.
 */
import type { AdminSession, Driver } from '../engines/driver.ts';
import { appNameOf, runPrefix } from './plan.ts';
import type { CleanupReport } from './types.ts';
import { atMost, guarded, guardSession } from './stall.ts';

export type CleanupRequest = {
  driver: Driver;
  url: string;
  runId: string;
  /**
   * Every name this process created (known even when the server cannot be asked); absent when
   * unknown (clean-up from a record), then what is left is said as `<prefix>*`.
   */
  created?: Iterable<string>;
  /** Of those, the ones whose CREATE was sent but never answered (they may not exist). */
  unconfirmed?: ReadonlySet<string>;
  /** Saved values of global settings the run changed. */
  globals?: Record<string, string> | null;
  /** Epoch ms after which no new attempt starts (asked again each time: a Ctrl-C shortens it). */
  deadline: () => number;
  /** Bound of one call (the stall timeout); 0 = only the deadline. */
  stallMs: number;
};

const NEVER = new AbortController().signal;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function cleanUpRun(req: CleanupRequest): Promise<CleanupReport> {
  const prefix = runPrefix(req.runId);
  const appName = appNameOf(req.runId);
  const dropped: string[] = [];
  let known = new Set(req.created ?? []);
  let globals = req.globals && Object.keys(req.globals).length > 0 ? req.globals : null;
  let error = '';
  let listed = false;
  for (let attempt = 0, backoff = FIRST_BACKOFF_MS; ; attempt++, backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
    const remaining = req.deadline() - Date.now();
    if (attempt > 0 && remaining <= 0) break;
    const bound = Math.max(500, req.stallMs > 0 ? Math.min(req.stallMs, remaining) : remaining);
    let admin: AdminSession | undefined;
    let opening: Promise<AdminSession> | undefined;
    try {
      const open = (opening = req.driver.openAdmin(req.url, `${appName}-cleanup`));
      admin = await guarded({ stallMs: bound, signal: NEVER }, 'connecting for clean-up', undefined, () => open);
      const g = guardSession(admin, { stallMs: bound, signal: NEVER });
      // A CREATE DATABASE still in flight would otherwise finish after we looked.
      await g.terminateBackends(appName);
      const names = await g.listDatabases(prefix);
      known = new Set([...known, ...names]);
      listed = true;
      for (const name of names) {
        await g.dropDatabase(name);
        dropped.push(name);
        known.delete(name);
      }
      known.clear();
      if (globals) {
        if (!admin.restoreGlobalSettings) throw new Error('this driver cannot restore global settings');
        // A buffer-pool resize takes its time: bounded by the deadline only.
        const restore = admin.restoreGlobalSettings.bind(admin, globals);
        await guarded(
          { stallMs: Math.max(5_000, req.deadline() - Date.now()), signal: NEVER },
          'restore',
          () => admin?.destroy?.(),
          restore,
        );
        globals = null;
      }
      return { dropped, left: [], globalsLeft: null };
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    } finally {
      const a = admin;
      if (a) await atMost(a.close(), 1_000, () => a.destroy?.());
      // A connection that opened after its bound passed is dropped when it does.
      else
        void opening?.then(
          (late) => late.destroy?.() ?? late.close(),
          () => {},
        );
    }
    if (req.deadline() - Date.now() <= 0) break;
    await sleep(Math.min(backoff, Math.max(0, req.deadline() - Date.now())));
  }
  // Never listed and nothing known: whatever carries the run's prefix.
  const left = listed || req.created !== undefined ? [...known].sort() : [`${prefix}*`];
  const uncertain = listed ? [] : left.filter((n) => req.unconfirmed?.has(n));
  return { dropped, left, globalsLeft: globals, error, ...(uncertain.length ? { uncertain } : {}) };
}
