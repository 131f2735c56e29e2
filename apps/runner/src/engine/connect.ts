/**
 * Stage 2 — connect: opens the target (a server or a managed cluster), an admin session on it,
 * and tracks every session the run opens and every database it creates. Every call on them is
 * guarded (stall.ts: stall timeout outside the measured block, Ctrl-C always). `close()` ends
 * them, drops every database of the run and restores changed settings on fresh connections with
 * bounded backoff (cleanup.ts), closes the target handle — in every outcome — and reports what
 * it could not remove.
 */
import type { AdminSession, DatabaseSession, Driver, GlobalSettingsChange, TargetHandle } from '../engines/driver.ts';
import { openTarget } from '../engines/index.ts';
import { TargetUnreachable } from '../errors.ts';
import { cleanUpRun } from './cleanup.ts';
import { appNameOf, runPrefix, type RunPlan } from './plan.ts';
import { atMost, guarded, guardSession, type Guard } from './stall.ts';
import type { CleanupReport } from './types.ts';
import { redactTarget } from '../engines/target-url.ts';

export { redactTarget };

export type Connection = {
  handle: TargetHandle;
  admin: AdminSession;
  /** A session on one of the run's databases, with the scenario's session settings applied. */
  openDatabase(name: string): Promise<DatabaseSession>;
  /** Closes every session opened so far (the end of a unit). */
  closeSessions(): Promise<void>;
  /** Server-wide settings the run changed (probe.ts); `close()` restores them. */
  globals: GlobalSettingsChange | null;
  /** Saved values of settings the run is changing or changed (known before the change). */
  savedGlobals: Record<string, string> | null;
  /** Ends the sessions, cleans up until `deadline()` (epoch ms); never throws. */
  close(deadline: () => number): Promise<CleanupReport>;
};

export type ConnectOptions = {
  /** Stall timeout of every call outside the measured block (0: none). */
  stallMs: number;
  /** Told the saved values of global settings before the run changes them (the run's record). */
  onGlobalsSaved?: (previous: Record<string, string>) => Promise<void>;
};

export async function connect(
  plan: RunPlan,
  signal: AbortSignal,
  warn: (text: string) => void,
  info: (text: string) => void,
  options: ConnectOptions = { stallMs: 0 },
): Promise<Connection> {
  const handle = await openTarget(plan.target, {
    runId: plan.runId,
    signal,
    warn,
    info,
    ...(plan.managed ? { options: plan.managed } : {}),
    ...(plan.doc.requires.minServerVersionNum ? { minServerVersionNum: plan.doc.requires.minServerVersionNum } : {}),
  });
  const { driver, url } = handle;
  const guard: Guard = { stallMs: options.stallMs, signal };
  let rawAdmin: AdminSession;
  try {
    rawAdmin = await driver.openAdmin(url, plan.appName);
  } catch (e) {
    await handle.close();
    throw new TargetUnreachable(`cannot reach the target ${redactTarget(url)}: ${(e as Error).message}`);
  }
  const guardedAdmin = guardSession(rawAdmin, guard);
  const { admin, created, unconfirmed } = trackingAdmin(rawAdmin, guardedAdmin, async (previous) => {
    conn.savedGlobals = previous;
    await options.onGlobalsSaved?.(previous);
  });
  // Abort: end our own backends so whatever statement is running on the server stops now.
  const onAbort = () => void atMost(terminateRun(driver, url, plan.appName), 3_000);
  signal.addEventListener('abort', onAbort, { once: true });
  const sessions = new Set<DatabaseSession>();
  const closeSessions = () => closeAll(sessions, signal);
  const conn: Connection = {
    handle,
    admin,
    globals: null,
    savedGlobals: null,
    async openDatabase(name) {
      // The connect itself is guarded too: a server that stalls mid-handshake would otherwise wait
      // for the driver's own connect timeout. A connection that completes after the guard fired is dropped.
      const opening = driver.openDatabase(url, name, plan.appName);
      const raw = await guarded(guard, `connecting to ${name}`, undefined, () => opening).catch((e: unknown) => {
        void opening.then(
          (late) => (late.destroy ? late.destroy() : void late.close().catch(() => undefined)),
          () => undefined,
        );
        throw e;
      });
      const s = guardSession(raw, guard);
      sessions.add(s);
      for (const [k, v] of Object.entries(plan.doc.settings.session)) await s.setSetting(k, String(v));
      return s;
    },
    closeSessions,
    async close(deadline) {
      signal.removeEventListener('abort', onAbort);
      await closeSessions();
      if (signal.aborted && rawAdmin.destroy) rawAdmin.destroy();
      else await atMost(rawAdmin.close(), 1_000, () => rawAdmin.destroy?.());
      // A managed cluster is removed whole by handle.close() (and may be down after a failed crash/start step).
      const report: CleanupReport = handle.cluster
        ? { dropped: [], left: [], globalsLeft: null }
        : await cleanUpRun({
            driver,
            url,
            runId: plan.runId,
            created,
            unconfirmed,
            globals: conn.savedGlobals,
            deadline,
            stallMs: options.stallMs,
          });
      // A measured run is never lost to a managed cluster that would not go away: said, not thrown.
      await handle.close().catch((e: unknown) => warn(`could not remove the managed target: ${(e as Error).message}`));
      return report;
    },
  };
  return conn;
}

/**
 * The admin session of a run, noting every database it creates (before the CREATE is sent: its
 * answer may be lost with the connection) for the clean-up, and telling `onGlobalsSaved` the saved
 * values of global settings before they change.
 */
function trackingAdmin(
  rawAdmin: AdminSession,
  guardedAdmin: AdminSession,
  onGlobalsSaved: (previous: Record<string, string>) => Promise<void>,
): { admin: AdminSession; created: Set<string>; unconfirmed: Set<string> } {
  const created = new Set<string>();
  /** Sent, not answered: the connection may have been lost before the server created it. */
  const unconfirmed = new Set<string>();
  const admin: AdminSession = {
    ...guardedAdmin,
    async createDatabase(name: string, template?: string) {
      created.add(name);
      unconfirmed.add(name);
      await guardedAdmin.createDatabase(name, template);
      unconfirmed.delete(name);
    },
    async dropDatabase(name: string) {
      await guardedAdmin.dropDatabase(name);
      created.delete(name);
      unconfirmed.delete(name);
    },
    ...(rawAdmin.changeGlobalSettings
      ? {
          changeGlobalSettings: (changes: Record<string, string>) =>
            guardedAdmin.changeGlobalSettings!(changes, onGlobalsSaved),
        }
      : {}),
  };
  return { admin, created, unconfirmed };
}

/** Closes every open session: after Ctrl-C nothing waits for a goodbye; otherwise a close gets a second before the drop. */
async function closeAll(sessions: Set<DatabaseSession>, signal: AbortSignal): Promise<void> {
  const open = [...sessions];
  sessions.clear();
  await Promise.all(
    open.map(async (s) => {
      if (signal.aborted && s.destroy) s.destroy();
      else await atMost(s.close(), 1_000, () => s.destroy?.());
    }),
  );
}

async function terminateRun(driver: Driver, target: string, appName: string): Promise<void> {
  const admin = await driver.openAdmin(target, `${appName}-cleanup`);
  try {
    await atMost(admin.terminateBackends(appName), 2_000);
  } finally {
    await atMost(admin.close(), 1_000, () => admin.destroy?.());
  }
}

/** Drops every database of a run (template and clones); safe to call twice. */
export async function cleanupRun(driver: Driver, target: string, runId: string): Promise<string[]> {
  const prefix = runPrefix(runId);
  const appName = appNameOf(runId);
  const admin = await driver.openAdmin(target, `${appName}-cleanup`);
  try {
    // A CREATE DATABASE still in flight would otherwise finish after we looked.
    await admin.terminateBackends(appName);
    const names = await admin.listDatabases(prefix);
    for (const name of names) await admin.dropDatabase(name);
    return names;
  } finally {
    await admin.close();
  }
}
