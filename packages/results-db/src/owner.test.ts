import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseOwnedError, openResultsDb, readOwner } from './index.ts';

const HOLD_OPEN = fileURLToPath(new URL('../scripts/hold-open.ts', import.meta.url));

/** A real process that opens `dataDir`, stores runner `name` and holds the database. */
function holdOpen(dataDir: string, name: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', HOLD_OPEN, dataDir, name], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ready')) resolve(child);
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`hold-open exited ${code}: ${out}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

describe('one owner per embedded database directory', () => {
  let dir: string;
  let dataDir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tl_owner_db_'));
    dataDir = join(dir, 'results');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('refuses a second opener in the same process, naming this pid, and lets it in after close', async () => {
    const db = await openResultsDb(undefined, { dataDir });
    try {
      const err = await openResultsDb(undefined, { dataDir }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DatabaseOwnedError);
      expect((err as Error).message).toContain(`in use by process ${process.pid}`);
      expect((await readOwner(dataDir))?.pid).toBe(process.pid);
      await db.advertise('http://127.0.0.1:1234');
      expect((await readOwner(dataDir))?.url).toBe('http://127.0.0.1:1234');
    } finally {
      await db.close();
    }
    expect(await readOwner(dataDir)).toBeNull();
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
    const again = await openResultsDb(undefined, { dataDir });
    await again.close();
    // Three PGlite opens (one migrating): 22 s at load 5, so up to ~70 s at load 15.
  }, 120_000);

  it('refuses while another process holds it; a graceful stop keeps its writes and frees the directory', async () => {
    const child = await holdOpen(dataDir, 'graceful-a');
    const err = await openResultsDb(undefined, { dataDir }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseOwnedError);
    expect((err as DatabaseOwnedError).owner?.pid).toBe(child.pid);
    expect((err as Error).message).toContain(`in use by process ${child.pid}`);
    child.stdin?.end();
    expect(await exited(child)).toBe(0);
    const db = await openResultsDb(undefined, { dataDir });
    try {
      expect((await db.listRunners()).map((r) => r.name)).toEqual(['graceful-a']);
    } finally {
      await db.close();
    }
    // A process that starts tsx and migrates PGlite, then an open here: 25 s at load 5.
  }, 120_000);

  it('recovers the lock of a SIGKILLed owner at once, with everything it acknowledged', async () => {
    const first = await holdOpen(dataDir, 'killed-a');
    first.kill('SIGKILL');
    await exited(first);
    // The lock directory and the record are still there: the process ran no exit code.
    expect(existsSync(`${dataDir}.lock`)).toBe(true);
    expect((await readOwner(dataDir))?.pid).toBe(first.pid);
    // "At once": by the dead pid, not by proper-lockfile's staleness (a lock not refreshed for
    // STALE_MS). The lock's mtime is put in the future, so it can never turn stale during this
    // test however slow the machine: only the dead-pid recovery can let anyone in.
    const future = new Date(Date.now() + 24 * 3600 * 1000);
    await utimes(`${dataDir}.lock`, future, future);
    // Two processes recover: exactly one wins, the other names the winner.
    const racers = await Promise.allSettled([holdOpen(dataDir, 'killed-b'), holdOpen(dataDir, 'killed-c')]);
    const winners = racers.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const losers = racers.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0]).toMatch(new RegExp(`in use by process ${winners[0]!.pid}`));
    winners[0]!.stdin?.end();
    expect(await exited(winners[0]!)).toBe(0);
    const db = await openResultsDb(undefined, { dataDir });
    try {
      const names = (await db.listRunners()).map((r) => r.name);
      expect(names).toHaveLength(2);
      expect(names[0]).toBe('killed-a');
    } finally {
      await db.close();
    }
    // Three processes that each start tsx and open PGlite (the first also migrates), two of them
    // at once: 60 s was not enough at load 15 in CI.
  }, 180_000);
});
