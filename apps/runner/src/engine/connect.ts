/**
 * Stage 2 — connect: opens the target (a server or a managed cluster), an admin session on it,
 * and tracks every session the run opens. `close()` ends them, drops every database of the run
 * and closes the target handle — in every outcome.
 */
import type { AdminSession, DatabaseSession, Driver, GlobalSettingsChange, TargetHandle } from '../drivers/driver.ts';
import { openTarget } from '../drivers/index.ts';
import { TargetUnreachable } from '../errors.ts';
import { restoreGlobals } from './globals.ts';
import { appNameOf, runPrefix, type RunPlan } from './plan.ts';

export type Connection = {
  handle: TargetHandle;
  admin: AdminSession;
  /** A session on one of the run's databases, with the scenario's session settings applied. */
  openDatabase(name: string): Promise<DatabaseSession>;
  /** Closes every session opened so far (the end of a unit). */
  closeSessions(): Promise<void>;
  /** Server-wide settings the run changed (probe.ts); `close()` restores them. */
  globals: GlobalSettingsChange | null;
  close(): Promise<void>;
};

export async function connect(plan: RunPlan, signal: AbortSignal, warn: (text: string) => void): Promise<Connection> {
  const handle = await openTarget(plan.target, {
    runId: plan.runId,
    signal,
    warn,
    ...(plan.managed ? { options: plan.managed } : {}),
    ...(plan.doc.requires.minServerVersionNum ? { minServerVersionNum: plan.doc.requires.minServerVersionNum } : {}),
  });
  const { driver, url } = handle;
  let admin: AdminSession;
  try {
    admin = await driver.openAdmin(url, plan.appName);
  } catch (e) {
    await handle.close();
    throw new TargetUnreachable(`cannot reach the target ${redactTarget(url)}: ${(e as Error).message}`);
  }
  // Abort: end our own backends so whatever statement is running fails now; close() cleans up.
  const onAbort = () => void terminateRun(driver, url, plan.appName).catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  const sessions = new Set<DatabaseSession>();
  const closeSessions = async () => {
    const open = [...sessions];
    sessions.clear();
    await Promise.all(open.map((s) => s.close()));
  };
  const conn: Connection = {
    handle,
    admin,
    globals: null,
    async openDatabase(name) {
      const s = await driver.openDatabase(url, name, plan.appName);
      sessions.add(s);
      for (const [k, v] of Object.entries(plan.doc.settings.session)) await s.setSetting(k, String(v));
      return s;
    },
    closeSessions,
    async close() {
      signal.removeEventListener('abort', onAbort);
      await closeSessions();
      await admin.close();
      try {
        // A managed cluster is removed whole by handle.close() (and may be down after a failed crash/start step).
        if (!handle.cluster) await cleanupRun(driver, url, plan.runId);
      } finally {
        try {
          await restoreGlobals(conn.globals, warn);
        } finally {
          await handle.close();
        }
      }
    },
  };
  return conn;
}

async function terminateRun(driver: Driver, target: string, appName: string): Promise<void> {
  const admin = await driver.openAdmin(target, `${appName}-cleanup`);
  try {
    await admin.terminateBackends(appName);
  } finally {
    await admin.close();
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

export function redactTarget(target: string): string {
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparseable target)';
  }
}
