/**
 * What a run may leave on a server it lost, and how it is removed later.
 *
 * The ledger: before a `--target` run creates anything it writes a record
 * (`<ledger dir>/<run id>.json`: run id, server, this process's id, the global settings it saved),
 * and removes the record once its clean-up is complete. A record whose clean-up gave up (it names
 * what is left) or whose process is gone belongs to a run of this machine that could not finish its
 * clean-up (server away, process killed): the next `tunelab run` against that server, a
 * `tunelab agent`'s next job, or `tunelab cleanup --target URL`, drops the run's databases
 * (by its own prefix, `tunelab_<id8>_`) and restores the settings. Records are the proof of
 * ownership: nothing without a record of this machine is ever dropped.
 *
 * Managed servers (`--server`, managed scenarios) have records of their own in the same directory
 * (`managed-*.json`, engines/managed-postgresql/cluster/orphans.ts): a killed runner's server is stopped and
 * its directory removed by the next managed run, the next `--target` run or `tunelab cleanup`.
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ENGINE_FACTS, engineOfScheme } from '@tunelab/contracts';
import type { Driver } from '../engines/driver.ts';
import { ownerAlive, thisProcess } from '../engines/managed-postgresql/cluster/orphans.ts';
import { readJsonRecord, writeJsonAtomic } from '../json-file.ts';
import { cleanUpRun } from './cleanup.ts';
import { redactTarget } from './connect.ts';
import { runPrefix } from './plan.ts';
import type { CleanupReport, Ledger, RunRecord } from './types.ts';

/** One server, however its URL is spelt: `postgres://127.0.0.1:5432`. */
export function serverKey(target: string): string {
  const url = new URL(target);
  const engine = engineOfScheme(url.protocol);
  const f = engine
    ? { family: ENGINE_FACTS[engine].protocol, port: ENGINE_FACTS[engine].defaultPort }
    : { family: url.protocol.replace(/:$/, ''), port: 0 };
  const raw = decodeURIComponent(url.hostname || url.searchParams.get('host') || 'localhost').toLowerCase();
  const host = ['localhost', '::1', '[::1]'].includes(raw) ? '127.0.0.1' : raw;
  return `${f.family}://${host}:${url.port || f.port}`;
}

const withoutPassword = (target: string) => {
  const url = new URL(target);
  url.password = '';
  return url.toString();
};

/**
 * Whether the run of `r` may be cleaned up now: its clean-up gave up (`finish` wrote what is left,
 * so the run is over, whichever process ran it: a long-lived `tunelab agent`'s own run is removed
 * before its next job), or its process is gone (killed before it could finish).
 */
const isAbandoned = (r: RunRecord) => r.left !== undefined || !ownerAlive(r);

export function createLedger(dir: string): Ledger {
  const fileOf = (runId: string) => path.join(dir, `${runId}.json`);
  const read = (file: string) => readJsonRecord<RunRecord>(file, 'tunelab-inflight/1');
  const write = (record: RunRecord) => writeJsonAtomic(fileOf(record.runId), record);
  return {
    dir,
    async begin(runId, target, warn) {
      try {
        await write({
          format: 'tunelab-inflight/1',
          runId,
          server: serverKey(target),
          target: withoutPassword(target),
          ...thisProcess(),
        });
      } catch (e) {
        warn(
          `cannot record this run in ${dir} (${(e as Error).message}); if it loses the server, name its databases by hand`,
        );
      }
    },
    async saveGlobals(runId, previous) {
      const record = await read(fileOf(runId));
      if (record) await write({ ...record, globals: previous }).catch(() => {});
    },
    async finish(runId, report) {
      if (report.left.length === 0 && !report.globalsLeft) {
        await rm(fileOf(runId), { force: true }).catch(() => {});
        return;
      }
      const record = await read(fileOf(runId));
      if (record) await write({ ...record, left: report.left }).catch(() => {});
    },
    async abandoned(target) {
      const key = serverKey(target);
      const names = await readdir(dir).catch(() => [] as string[]);
      const out: RunRecord[] = [];
      for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
        const record = await read(path.join(dir, name));
        if (record && record.server === key && isAbandoned(record)) out.push(record);
      }
      return out;
    },
  };
}

/**
 * The targets (without password) of abandoned runs in `dir` that changed a server's global
 * settings: one per server, for the sweep at the start of every command (app/host-restore.ts).
 */
export async function serversWithAbandonedSettings(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const byServer = new Map<string, string>();
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const record = await readJsonRecord<RunRecord>(path.join(dir, name), 'tunelab-inflight/1');
    if (record?.globals && Object.keys(record.globals).length > 0 && isAbandoned(record))
      if (!byServer.has(record.server)) byServer.set(record.server, record.target);
  }
  return [...byServer.values()];
}

/**
 * Cleans up after every abandoned run of this machine on the server of `target` (reached with
 * `target`'s own credentials), each within `budgetMs`; removes the records of those now clean.
 * When one cannot reach the server the rest are not tried (`notTried`; their records stay): an
 * agent sweeping before each job during an outage waits one budget, not one per record.
 */
export async function sweepAbandoned(
  ledger: Ledger,
  driver: Driver,
  target: string,
  budgetMs: number,
  stallMs: number,
): Promise<{ swept: { record: RunRecord; report: CleanupReport }[]; notTried: number }> {
  const out: { record: RunRecord; report: CleanupReport }[] = [];
  const records = await ledger.abandoned(target);
  for (const [i, record] of records.entries()) {
    const until = Date.now() + budgetMs;
    const report = await cleanUpRun({
      driver,
      url: target,
      runId: record.runId,
      globals: record.globals ?? null,
      deadline: () => until,
      stallMs,
    });
    await ledger.finish(record.runId, report);
    out.push({ record, report });
    // Something is still left: the clean-up gave up at its deadline (the server away or stuck).
    if (report.left.length > 0 || report.globalsLeft !== null) return { swept: out, notTried: records.length - i - 1 };
  }
  return { swept: out, notTried: 0 };
}

/** The command that removes what is left by hand (the driver's client: psql, mysql). */
export function manualCommand(
  driver: Driver,
  target: string,
  runId: string,
  left: string[],
  globals: Record<string, string> | null,
): string {
  return driver.manualCleanup({
    target: withoutPassword(target),
    prefix: runPrefix(runId),
    left: left.some((n) => n.endsWith('*')) ? null : left,
    globals,
  });
}

/** The sentence naming what a run left and the commands that remove it. */
export function describeLeftovers(driver: Driver, target: string, runId: string, report: CleanupReport): string {
  const parts: string[] = [];
  const maybe = new Set(report.uncertain ?? []);
  if (report.left.length)
    parts.push(
      `${report.left.map((n) => (maybe.has(n) ? `${n} (if its CREATE, cut off, went through)` : n)).join(', ')} (${driver.leftoverNoun})`,
    );
  if (report.globalsLeft)
    parts.push(
      `global settings not restored (${Object.entries(report.globalsLeft)
        .map(([k, v]) => `${k} was ${v}`)
        .join(', ')})`,
    );
  return (
    `the server could not be reached to clean up${report.error ? ` (${report.error})` : ''}; left on ${redactTarget(target)}: ${parts.join('; ')}; ` +
    `\`tunelab cleanup --target ${redactTarget(target)}\` (or the next \`tunelab run\` against it) removes them, or by hand: ${manualCommand(driver, target, runId, report.left, report.globalsLeft)}`
  );
}
