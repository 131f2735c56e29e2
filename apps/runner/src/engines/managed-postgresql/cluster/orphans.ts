/**
 * Managed clusters in the runner's ledger (TUNELAB_LEDGER_DIR), so that a runner killed with
 * SIGKILL (no exit hook runs) does not leave its server running and its directory behind.
 *
 * Before a managed cluster's initdb, `recordCluster()` writes `<ledger>/managed-<dir name>.json`:
 * the owning runner's pid (and its start time, so a reused pid is not taken for it), host name,
 * run id, the cluster directory, data and socket directories, port and the bin directory of its
 * pg_ctl. `destroy()` removes the record. A record whose runner process is gone is an orphan:
 * `sweepOrphanedClusters()` (run before every managed cluster is created, at the start of a
 * `--target` run and by `tunelab cleanup`) stops its server with `pg_ctl stop -m immediate` as
 * the server's OS user (SIGQUIT to the postmaster it names when pg_ctl is gone), removes its
 * directories and then the record. Records of another host, or of a live process, are left alone.
 */
import { readFileSync } from 'node:fs';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readJsonRecord, writeJsonAtomic } from '../../../json-file.ts';
import { runServerBinary } from './process.ts';

export const CLUSTER_RECORD_FORMAT = 'tunelab-managed-cluster/1';
const PREFIX = 'managed-';
/** A record being swept: `<record>.sweep-<pid of the sweeper>`. */
export const CLAIM = '.sweep-';

/**
 * The runner process that wrote a record on this host, so that a later command can tell a live
 * owner from a dead one (`ownerAlive`): its pid, the pid's start time (/proc; a reused pid is not
 * taken for it), the host and when it began.
 */
export type ProcessOwner = { pid: number; pidStart: string | null; hostname: string; startedAt: string };

/** This process as the owner of a record it writes now. */
export const thisProcess = (): ProcessOwner => ({
  pid: process.pid,
  pidStart: processStart(process.pid),
  hostname: os.hostname(),
  startedAt: new Date().toISOString(),
});

export type ClusterRecord = ProcessOwner & {
  format: typeof CLUSTER_RECORD_FORMAT;
  /** The run that owns the cluster, when known. */
  runId: string | null;
  /** `tunelab-cluster-XXXXXX/`, removed whole. */
  root: string;
  dataDirectory: string;
  socketDir: string;
  /** The socket directory is a temp dir of its own (removed too). */
  ownSocketDir: boolean;
  port: number;
  /** Where pg_ctl is. */
  binDir: string;
};

export type SweptCluster = {
  record: ClusterRecord;
  /** The postmaster that was running, if any. */
  stoppedPid: number | null;
  /** Empty when everything went; otherwise what is left and why. */
  problems: string[];
};

/** The start time of a process (field 22 of /proc/<pid>/stat), or null when unknown. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether `pid` is a live process (EPERM: alive, someone else's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process a record names still runs (another host's records count as alive). */
export function ownerAlive(r: Omit<ProcessOwner, 'startedAt'>): boolean {
  if (r.hostname !== os.hostname()) return true;
  if (!pidAlive(r.pid)) return false;
  return r.pidStart === null || processStart(r.pid) === r.pidStart;
}

const recordFile = (ledgerDir: string, root: string) => path.join(ledgerDir, `${PREFIX}${path.basename(root)}.json`);

/** Writes the record of a cluster this process is about to initdb and start; throws when it cannot. */
export async function recordCluster(
  ledgerDir: string,
  c: Omit<ClusterRecord, 'format' | keyof ProcessOwner>,
): Promise<string> {
  const record: ClusterRecord = { format: CLUSTER_RECORD_FORMAT, ...c, ...thisProcess() };
  const file = recordFile(ledgerDir, c.root);
  await writeJsonAtomic(file, record);
  return file;
}

const readRecord = (file: string) => readJsonRecord<ClusterRecord>(file, CLUSTER_RECORD_FORMAT);

/** The postmaster pid in `<data>/postmaster.pid` when that process is alive and is this cluster's. */
async function runningPostmaster(dataDirectory: string): Promise<number | null> {
  const text = await readFile(path.join(dataDirectory, 'postmaster.pid'), 'utf8').catch(() => null);
  const lines = text?.split('\n') ?? [];
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) return null;
  // Line 2 is the data directory; a reused pid runs something else.
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.includes(dataDirectory) && lines[1] !== dataDirectory) return null;
  } catch {
    // No /proc (not Linux): trust postmaster.pid.
  }
  return pid;
}

async function stopServer(record: ClusterRecord, problems: string[]): Promise<number | null> {
  const pid = await runningPostmaster(record.dataDirectory);
  if (pid === null) return null;
  await runServerBinary(
    path.join(record.binDir, 'pg_ctl'),
    ['-D', record.dataDirectory, 'stop', '-m', 'immediate', '-w', '-t', '30'],
    { timeoutMs: 40_000, cwd: '/' },
  ).catch(() => {
    // pg_ctl is gone (the server was removed) or failed: the same SIGQUIT it sends.
    try {
      process.kill(pid, 'SIGQUIT');
    } catch {
      /* already gone */
    }
  });
  for (let i = 0; i < 100 && pidAlive(pid); i++) await sleep(100);
  if (pidAlive(pid)) problems.push(`its server (pid ${pid}) did not stop`);
  return pid;
}

/**
 * Claims a record (renames it to `…sweep-<our pid>`), so two sweeps at once never both stop the
 * same server; a claim whose sweeper died is taken over.
 */
export async function claim(dir: string, name: string): Promise<string | null> {
  const claimed = path.join(dir, `${name.split(CLAIM)[0]}${CLAIM}${process.pid}`);
  try {
    await rename(path.join(dir, name), claimed);
    return claimed;
  } catch {
    return null; // someone else took it
  }
}

/**
 * The records in `ledgerDir` whose names start with `prefix`, in name order: each `.json` one, and
 * each claimed one (`<record>.sweep-<pid>`) whose claimer is gone (a live claim is being handled
 * right now); unreadable records are passed over.
 */
export async function* ledgerRecords<R>(
  ledgerDir: string,
  prefix: string,
  read: (file: string) => Promise<R | null>,
): AsyncGenerator<{ name: string; record: R }> {
  const names = await readdir(ledgerDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(prefix)).sort()) {
    const isClaim = name.includes(CLAIM);
    if (!isClaim && !name.endsWith('.json')) continue;
    if (isClaim && pidAlive(Number(name.split(CLAIM)[1]))) continue;
    const record = await read(path.join(ledgerDir, name));
    if (record) yield { name, record };
  }
}

/**
 * Stops and removes the managed clusters of this machine whose runner process is gone; `say` gets
 * one line per cluster. Never throws: what could not be removed is in `problems` and the record
 * stays for the next sweep.
 */
export async function sweepOrphanedClusters(
  ledgerDir: string,
  say: (line: string) => void = () => {},
): Promise<SweptCluster[]> {
  const out: SweptCluster[] = [];
  for await (const { name, record } of ledgerRecords(ledgerDir, PREFIX, readRecord)) {
    if (ownerAlive(record)) continue;
    const file = await claim(ledgerDir, name);
    if (!file) continue;
    const problems: string[] = [];
    let stoppedPid: number | null = null;
    try {
      stoppedPid = await stopServer(record, problems);
      if (problems.length === 0) {
        await rm(record.root, { recursive: true, force: true, maxRetries: 3 });
        if (record.ownSocketDir) await rm(record.socketDir, { recursive: true, force: true });
      }
    } catch (e) {
      problems.push((e as Error).message);
    }
    if (problems.length === 0) await rm(file, { force: true });
    else await rename(file, path.join(ledgerDir, name.split(CLAIM)[0]!)).catch(() => {});
    const who = `a managed PostgreSQL server left by ${record.runId ? `run ${record.runId}` : 'a runner'} (${record.startedAt}; runner pid ${record.pid} is gone)`;
    say(
      problems.length === 0
        ? `${who}: ${stoppedPid !== null ? `stopped its server (pid ${stoppedPid}, port ${record.port}) and ` : 'its server was not running; '}removed ${record.root}`
        : `${who}: could not remove it (${problems.join('; ')}); its directory is ${record.root}, \`tunelab cleanup\` tries again`,
    );
    out.push({ record, stoppedPid, problems });
  }
  return out;
}

/**
 * The recorded managed clusters of live runner processes (another host's records count as live)
 * whose binaries are under `binRoot`: a server build in use, not to be removed or replaced.
 */
export async function liveClustersUsing(ledgerDir: string, binRoot: string): Promise<ClusterRecord[]> {
  const names = await readdir(ledgerDir).catch(() => [] as string[]);
  const root = path.resolve(binRoot);
  const out: ClusterRecord[] = [];
  for (const name of names.filter((n) => n.startsWith(PREFIX) && n.endsWith('.json'))) {
    const record = await readRecord(path.join(ledgerDir, name));
    if (!record || !ownerAlive(record)) continue;
    const bin = path.resolve(record.binDir);
    if (bin === root || bin.startsWith(`${root}${path.sep}`)) out.push(record);
  }
  return out;
}
