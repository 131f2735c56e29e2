/**
 * One owner per embedded database. PGlite is a whole PostgreSQL inside one process, with its own
 * buffers and WAL position: a second process opening the same directory keeps its own view and
 * each overwrites the other's files (acknowledged runs lost, samples pointing at runs
 * that do not exist, duplicate unique keys). So whoever opens a PGlite directory first takes a
 * lock beside it, and everyone else is refused with a sentence naming the owner.
 *
 * - The lock is proper-lockfile's (an atomic `mkdir` of `<dataDir>.lock`, its mtime refreshed
 *   every few seconds). It is removed when the process exits, by a signal too (signal-exit); a
 *   process that dies without running any code (SIGKILL, a power cut) leaves it behind.
 * - Beside it, `<dataDir>.owner.json` records the owner's pid, host, start time and (for an API)
 *   the URL it serves, so other openers can say who holds the database and go through its API.
 * - A lock left by a process that is gone is recovered at once when its pid is dead on this host;
 *   any other leftover lock is taken over once its mtime is older than STALE_MS (proper-lockfile's
 *   own staleness rule). Every opener takes the lock and writes its record under a second lock
 *   (`<dataDir>.recovery`), so a recoverer never mistakes a live opener's lock for the dead one's.
 */
import { hostname } from 'node:os';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import lockfile from 'proper-lockfile';

/** A lock not refreshed for this long belongs to a process that is gone (or frozen this long). */
const STALE_MS = 60_000;
const UPDATE_MS = 5_000;

export type OwnerRecord = {
  pid: number;
  hostname: string;
  startedAt: string;
  /** The command line of the owner, for the message ("tsx apps/api/src/server.ts"). */
  command: string;
  /** Where the owner serves the TuneLab API, once it listens. */
  url?: string;
};

export type Ownership = {
  readonly record: OwnerRecord;
  /** Records the URL this process serves the API at, so other openers can go through it. */
  advertise(url: string): Promise<void>;
  release(): Promise<void>;
};

/** Another process owns the embedded database; `owner` is its record (null while it is still being written). */
export class DatabaseOwnedError extends Error {
  readonly code = 'database-owned';
  constructor(
    readonly dataDir: string,
    readonly owner: OwnerRecord | null,
  ) {
    super(describeOwner(dataDir, owner));
  }
}

function describeOwner(dataDir: string, owner: OwnerRecord | null): string {
  if (!owner) return `the embedded results database in ${dataDir} is in use by another process that is still starting`;
  const where = owner.hostname === hostname() ? '' : ` on ${owner.hostname}`;
  const what = owner.url ? `the TuneLab API at ${owner.url}` : owner.command;
  return `the embedded results database in ${dataDir} is in use by process ${owner.pid}${where} (${what}, since ${owner.startedAt})`;
}

const lockPathOf = (dir: string) => `${dir}.lock`;
const recordPathOf = (dir: string) => `${dir}.owner.json`;
// proper-lockfile keeps its locks by file name: the guard must lock a name of its own.
const guardPathOf = (dir: string) => `${dir}.recovery`;

/** The owner record next to an embedded database directory, or null when there is none (or it is unreadable). */
export async function readOwner(dataDir: string): Promise<OwnerRecord | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(recordPathOf(resolve(dataDir)), 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return null;
    const r = parsed as Partial<OwnerRecord>;
    if (typeof r.pid !== 'number' || typeof r.hostname !== 'string' || typeof r.startedAt !== 'string') return null;
    return {
      pid: r.pid,
      hostname: r.hostname,
      startedAt: r.startedAt,
      command: typeof r.command === 'string' ? r.command : 'unknown command',
      ...(typeof r.url === 'string' ? { url: r.url } : {}),
    };
  } catch {
    return null;
  }
}

function isGoneFromThisHost(owner: OwnerRecord): boolean {
  if (owner.hostname !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function writeRecord(dir: string, record: OwnerRecord): Promise<void> {
  const path = recordPathOf(dir);
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(record, null, 2) + '\n');
  await rename(tmp, path);
}

const isLocked = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ELOCKED';

/**
 * Takes the embedded database in `dataDir` for this process, or throws DatabaseOwnedError naming
 * the process that has it. `onLost` is called if the lock is taken away (its directory removed or
 * refreshed by someone else); by default that throws, ending the process, since two writers would
 * corrupt the database.
 */
export async function takeOwnership(dataDir: string, onLost?: (err: Error) => void): Promise<Ownership> {
  const dir = resolve(dataDir);
  const onCompromised = (err: Error) => {
    const lost = new Error(
      `lost the lock on the embedded results database in ${dir} (${err.message}); stopping so that two processes never write it`,
    );
    if (onLost) onLost(lost);
    else throw lost;
  };
  const tryLock = () =>
    lockfile.lock(dir, {
      lockfilePath: lockPathOf(dir),
      realpath: false,
      stale: STALE_MS,
      update: UPDATE_MS,
      retries: 0,
      onCompromised,
    });
  const record: OwnerRecord = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    command: process.argv
      .slice(1, 3)
      .map((a) => a.replace(/^.*node_modules\/\.bin\//, ''))
      .join(' '),
  };
  // Taking the lock and writing the record happen under a second lock, the guard, for every
  // opener: so whoever holds the guard never sees a lock beside the record of an earlier owner.
  // Without it a recoverer could read a dead owner's record next to a lock just taken by a live
  // opener that had not written its own record yet, remove that lock, and both would win (CI saw
  // two recoverers win once: the first wrote its record after it had let go of the guard).
  const guard = await lockfile.lock(guardPathOf(dir), {
    realpath: false,
    stale: 10_000,
    retries: { retries: 30, minTimeout: 50, maxTimeout: 500 },
    // The guard is held for a mkdir and a small write. If this process stalls 10 s inside them,
    // another opener may take it over; that must not end this process (the default throws).
    onCompromised: () => {},
  });
  let unlock: () => Promise<void>;
  try {
    try {
      unlock = await tryLock();
    } catch (err) {
      if (!isLocked(err)) throw err;
      const owner = await readOwner(dir);
      if (!owner || !isGoneFromThisHost(owner)) throw new DatabaseOwnedError(dir, owner);
      unlock = await recover(dir, owner, tryLock);
    }
    try {
      await writeRecord(dir, record);
    } catch (err) {
      await unlock();
      throw err;
    }
  } finally {
    // A guard taken over while stalled is already gone: releasing it then rejects, harmlessly.
    await guard().catch(() => {});
  }
  let released = false;
  return {
    get record() {
      return record;
    },
    advertise: async (url) => {
      record.url = url;
      await writeRecord(dir, record);
    },
    release: async () => {
      if (released) return;
      released = true;
      // The record first: a record without a lock is ignored, a lock without a record is not.
      await rm(recordPathOf(dir), { force: true });
      await unlock();
    },
  };
}

/** Removes the lock of `dead` and takes it (the caller holds the guard). */
async function recover(dir: string, dead: OwnerRecord, tryLock: () => Promise<() => Promise<void>>) {
  const now = await readOwner(dir);
  const same = now !== null && now.pid === dead.pid && now.startedAt === dead.startedAt;
  if (same) await rm(lockPathOf(dir), { recursive: true, force: true });
  try {
    return await tryLock();
  } catch (err) {
    if (isLocked(err)) throw new DatabaseOwnedError(dir, await readOwner(dir));
    throw err;
  }
}
