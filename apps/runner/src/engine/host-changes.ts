/**
 * Changes a run makes to this machine outside any database — a local server's process moved into
 * the runner's cgroups (an `--envelope` or `--like-article` throttle) — recorded in the ledger
 * (TUNELAB_LEDGER_DIR) before they are made, so that a runner killed outright (SIGKILL: no exit
 * hook runs) does not leave a server of the user's throttled.
 *
 * `recordHostChange()` writes `<ledger>/host-<id>.json` before the process is moved: the runner's
 * pid (and start time, so a reused pid is not taken for it), the moved process's pid, start time
 * and original cgroups (/proc/PID/cgroup as read before the move), and — once made — the runner's
 * cgroup directories. The record carries a lease (`expiresAt`) that the live runner renews; the
 * change ends with the run (`done()` removes the record). `restoreHostChanges()` — run at the
 * start of every `tunelab` command (cli.ts) and by `tunelab cleanup` — undoes the change of every
 * record whose runner is gone or whose lease ran out (a runner stopped with SIGSTOP, or stuck):
 * the process goes back to its original cgroups and the runner's cgroups are removed. What it
 * cannot undo stays recorded and is said with the commands that undo it by hand.
 */
import { randomBytes } from 'node:crypto';
import { access, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  claim,
  CLAIM,
  ledgerRecords,
  ownerAlive,
  pidAlive,
  processStart,
  thisProcess,
  type ProcessOwner,
} from '../engines/managed-postgresql/cluster/orphans.ts';
import { readJsonRecord, writeJsonAtomic } from '../json-file.ts';
import type { CgroupMembership } from '../probe/envelope.ts';

export const HOST_CHANGE_FORMAT = 'tunelab-host-change/1';
const PREFIX = 'host-';
/** How long a throttle outlives its runner's last sign of life, unless TUNELAB_HOST_LEASE_S says otherwise. */
export const DEFAULT_HOST_LEASE_MS = 180_000;
const CGROUP_ROOT = '/sys/fs/cgroup';

/** A change to this host (the runner process that made it: `ProcessOwner`). */
export type HostChangeRecord = ProcessOwner & {
  format: typeof HOST_CHANGE_FORMAT;
  runId: string | null;
  /** After this the change is undone by any `tunelab` command, even while the runner lives. */
  expiresAt: string;
  /** In words: "the MySQL/MariaDB server's process (mysql://127.0.0.1:3306)". */
  what: string;
  /** The process moved into the runner's cgroups, and the cgroups it was in before. */
  process: { pid: number; start: string | null; cgroups: CgroupMembership };
  /** The runner's cgroup directories (absolute), once created. */
  dirs: string[];
};

export type HostChange = {
  /** Records the runner's cgroup directories (before the process is moved into them). */
  setDirs(dirs: readonly string[]): Promise<void>;
  /** True when another `tunelab` command undid the change (the lease ran out). */
  revoked(): boolean;
  /** The change is undone: the record goes. */
  done(): Promise<void>;
};

const readRecord = (file: string) => readJsonRecord<HostChangeRecord>(file, HOST_CHANGE_FORMAT);

/**
 * Writes the record of a change this process is about to make to `process` (its cgroups as they
 * are now); renews its lease every quarter of `leaseMs` until `done()`. Throws when it cannot write
 * it: a change that could not be recorded is not made.
 */
export async function recordHostChange(
  ledgerDir: string,
  change: { runId: string | null; what: string; pid: number; cgroups: CgroupMembership; leaseMs?: number },
): Promise<HostChange> {
  const leaseMs = change.leaseMs ?? DEFAULT_HOST_LEASE_MS;
  const file = path.join(ledgerDir, `${PREFIX}${process.pid}-${randomBytes(4).toString('hex')}.json`);
  let record: HostChangeRecord = {
    format: HOST_CHANGE_FORMAT,
    runId: change.runId,
    ...thisProcess(),
    expiresAt: new Date(Date.now() + leaseMs).toISOString(),
    what: change.what,
    process: { pid: change.pid, start: processStart(change.pid), cgroups: change.cgroups },
    dirs: [],
  };
  await writeJsonAtomic(file, record);
  let revoked = false;
  let ended = false;
  const renew = async () => {
    if (ended || revoked) return;
    // Gone (or being restored): another command found the lease run out and undid the change.
    if (!(await exists(file))) {
      revoked = true;
      clearInterval(timer);
      return;
    }
    record = { ...record, expiresAt: new Date(Date.now() + leaseMs).toISOString() };
    await writeJsonAtomic(file, record).catch(() => {});
  };
  const timer = setInterval(() => void renew(), Math.max(250, Math.floor(leaseMs / 4)));
  timer.unref();
  return {
    async setDirs(dirs) {
      record = { ...record, dirs: [...dirs] };
      await writeJsonAtomic(file, record);
    },
    revoked: () => revoked,
    async done() {
      ended = true;
      clearInterval(timer);
      await rm(file, { force: true }).catch(() => {});
    },
  };
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

const pidsIn = async (dir: string): Promise<number[]> =>
  (await readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);

/**
 * Where `dir` (one of the runner's cgroups) came from in `membership`: the original cgroup's
 * directory in the same hierarchy (v1: by controller; v2: hierarchy 0).
 */
function originalOf(dir: string, membership: CgroupMembership): string {
  const rel = path.relative(CGROUP_ROOT, dir).split(path.sep);
  const controller = rel.length > 1 ? rel[0]! : null;
  const v1 = controller ? membership.find((l) => l.controllers.includes(controller)) : undefined;
  if (controller && v1) return path.join(CGROUP_ROOT, controller, v1.path).replace(/(.)\/$/, '$1');
  const v2 = membership.find((l) => l.hierarchy === '0');
  return controller ? path.join(CGROUP_ROOT, controller) : path.join(CGROUP_ROOT, v2?.path ?? '/');
}

/** The hierarchy root a cgroup directory belongs to (where anything else in it goes). */
const hierarchyRootOf = (dir: string) => {
  const rel = path.relative(CGROUP_ROOT, dir).split(path.sep);
  return rel.length > 1 ? path.join(CGROUP_ROOT, rel[0]!) : CGROUP_ROOT;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Undoes one record's change; returns what is still left (empty: all undone). */
async function undo(record: HostChangeRecord): Promise<string[]> {
  const left: string[] = [];
  const p = record.process;
  const same = pidAlive(p.pid) && (p.start === null || processStart(p.pid) === p.start);
  for (const dir of record.dirs) {
    if (!(await exists(dir))) continue;
    const original = originalOf(dir, p.cgroups);
    const target = (await exists(path.join(original, 'cgroup.procs'))) ? original : hierarchyRootOf(dir);
    for (const pid of await pidsIn(dir)) {
      // The recorded process goes back where it was; anything else the runner put there, to the root.
      const to = same && pid === p.pid ? target : hierarchyRootOf(dir);
      await writeFile(path.join(to, 'cgroup.procs'), String(pid)).catch((e: Error) => {
        left.push(
          `process ${pid} is still in ${dir} (${e.message}): \`echo ${pid} > ${path.join(to, 'cgroup.procs')}\``,
        );
      });
    }
    // A process that just left may hold the directory busy for a moment.
    for (let i = 0; ; i++) {
      try {
        await rmdir(dir);
        break;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') break;
        if (i >= 20) {
          left.push(`the cgroup ${dir} (${code ?? (e as Error).message}): \`rmdir ${dir}\``);
          break;
        }
        await sleep(50);
      }
    }
  }
  return left;
}

export type RestoredHostChange = { record: HostChangeRecord; left: string[]; why: 'gone' | 'expired' };

/**
 * Undoes the recorded changes of runners of this machine that are gone or whose lease ran out;
 * `say` gets one line each. Never throws: a change it could not undo keeps its record (and is said
 * with the commands that undo it by hand).
 */
export async function restoreHostChanges(
  ledgerDir: string,
  say: (line: string) => void = () => {},
  now: number = Date.now(),
): Promise<RestoredHostChange[]> {
  const out: RestoredHostChange[] = [];
  for await (const { name, record } of ledgerRecords(ledgerDir, PREFIX, readRecord)) {
    if (record.hostname !== os.hostname()) continue;
    const alive = ownerAlive(record);
    const expired = Date.parse(record.expiresAt) <= now;
    if (alive && !expired) continue;
    const file = await claim(ledgerDir, name);
    if (!file) continue;
    const left = await undo(record).catch((e: Error) => [e.message]);
    if (left.length === 0) await rm(file, { force: true });
    else await rename(file, path.join(ledgerDir, name.split(CLAIM)[0]!)).catch(() => {});
    const why = alive ? 'expired' : 'gone';
    const who = `${record.what}, throttled by ${record.runId ? `run ${record.runId}` : 'a run'} (${record.startedAt}; ${why === 'gone' ? `runner pid ${record.pid} is gone` : `runner pid ${record.pid} still runs, but its lease ran out at ${record.expiresAt}`})`;
    const originals = [...new Set(record.dirs.map((d) => originalOf(d, record.process.cgroups)))];
    say(
      left.length === 0
        ? `${who}: moved process ${record.process.pid} back to ${originals.length ? originals.join(', ') : 'its cgroups'} and removed ${record.dirs.length ? record.dirs.join(', ') : 'nothing else'}`
        : `${who}: could not undo it all; left: ${left.join('; ')}; \`tunelab cleanup\` tries again`,
    );
    out.push({ record, left, why });
  }
  return out;
}
