import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunFailed, TargetUnreachable, UsageError } from '../../../errors.ts';
import {
  analyzeStartup,
  censusDataDir,
  createManagedCluster,
  dropPageCache,
  fileSystemOf,
  findServerBinaries,
  isRoot,
  type ServerBinaries,
} from './index.ts';
import { pidAlive } from './orphans.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const TSX = path.resolve(here, '../../../../../../node_modules/.bin/tsx');

let binaries: ServerBinaries;
let parent: string;
beforeAll(async () => {
  binaries = await findServerBinaries({ minMajor: 14 });
  parent = await mkdtemp(path.join(tmpdir(), 'tunelab-mc-test-'));
  await chmod(parent, 0o755);
});
afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

async function query(cluster: { clientConfig(): pg.ClientConfig }, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client(cluster.clientConfig());
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Rejects with that domain error (the CLI maps UsageError → 2, TargetUnreachable → 3, RunFailed → 1). */
async function expectError(
  p: Promise<unknown>,
  kind: typeof UsageError | typeof TargetUnreachable | typeof RunFailed,
  message: RegExp,
): Promise<void> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(kind);
  expect(e instanceof Error ? e.message : '').toMatch(message);
}

describe('managed cluster lifecycle (real PostgreSQL binaries)', () => {
  it('initdb, start, crash, recover with fsync and syncfs, clean stop, destroy — and the log says how long the sync took', async () => {
    const cluster = await createManagedCluster({ binaries, parentDir: parent });
    let pid: number | null;
    try {
      expect(cluster.root.startsWith(parent)).toBe(true);
      const first = await cluster.start();
      expect(first.readyMs).toBeGreaterThan(0);
      pid = await cluster.postmasterPid();
      expect(pid).not.toBeNull();
      // Unix socket only, the managed settings in place.
      const settings = await query(
        cluster,
        "SELECT name, setting FROM pg_settings WHERE name IN ('listen_addresses', 'lc_messages', 'log_line_prefix', 'port') ORDER BY name",
      );
      expect(
        Object.fromEntries(settings.rows.map((r: { name: string; setting: string }) => [r.name, r.setting])),
      ).toEqual({
        lc_messages: 'C',
        listen_addresses: '',
        log_line_prefix: '%m [%p] ',
        port: String(cluster.port),
      });
      // CHECKPOINT in its own statement: inside the DO's implicit transaction it would precede the
      // (asynchronous) commit, and the crash below would lose the tables.
      await query(
        cluster,
        "SET synchronous_commit = off; DO $$ BEGIN FOR k IN 1..300 LOOP EXECUTE format('CREATE TABLE t%s (i int)', k); END LOOP; END $$",
      );
      await query(cluster, 'CHECKPOINT');
      const census = await censusDataDir(cluster.dataDirectory);
      expect(census.files).toBeGreaterThan(300 + 900); // the tables plus a fresh cluster's ~950 files
      expect(census.bytes).toBeGreaterThan(16 * 1024 * 1024); // at least one WAL segment

      for (const method of ['fsync', 'syncfs']) {
        await cluster.crash();
        expect(await cluster.postmasterPid()).toBeNull();
        const started = await cluster.start({ settings: { recovery_init_sync_method: method } });
        expect((await query(cluster, 'SHOW recovery_init_sync_method')).rows[0]).toEqual({
          recovery_init_sync_method: method,
        });
        const a = analyzeStartup(await cluster.readLog(started.logOffset));
        expect(a.recovered).toBe(true);
        expect(a.syncMs).not.toBeNull();
        expect(a.syncMs!).toBeGreaterThanOrEqual(0);
        expect(a.syncMs!).toBeLessThan(started.readyMs + 1);
        expect(a.redoMs).not.toBeNull(); // "redo is not required" (0) or "redo starts" → "redo done"
        expect(a.errors).toEqual([]);
        expect(a.startupMs).not.toBeNull();
      }
      await cluster.stop();
      const clean = await cluster.start();
      const b = analyzeStartup(await cluster.readLog(clean.logOffset));
      expect(b.recovered).toBe(false);
      expect(b.syncMs).toBeNull();
      expect(
        (await query(cluster, "SELECT count(*)::int AS n FROM pg_class WHERE relname ~ '^t[0-9]+$'")).rows[0],
      ).toEqual({ n: 300 });
      pid = await cluster.postmasterPid();
    } finally {
      await cluster.destroy();
    }
    expect(existsSync(cluster.root)).toBe(false);
    expect(pidAlive(pid!)).toBe(false);
  });

  // Only root can hand the directory to another OS user; as a normal user the runner keeps it itself.
  it.skipIf(!isRoot())(
    'as root: the directory belongs to the postgres OS user (0700) and the server runs as that user',
    async () => {
      const cluster = await createManagedCluster({ binaries, parentDir: parent });
      try {
        await cluster.start();
        const info = await stat(cluster.root);
        expect(info.mode & 0o777).toBe(0o700);
        expect(info.uid).toBe(Number(execFileSync('id', ['-u', 'postgres']).toString().trim()));
        const pid = await cluster.postmasterPid();
        expect(
          execFileSync('ps', ['-o', 'user=', '-p', String(pid)])
            .toString()
            .trim(),
        ).toBe('postgres');
      } finally {
        await cluster.destroy();
      }
      expect(existsSync(cluster.root)).toBe(false);
    },
  );
});

describe('cleanup when the runner is interrupted', () => {
  const runChild = (mode: string) =>
    new Promise<{ code: number | null; root: string; pid: number }>((resolve, reject) => {
      const child = spawn(TSX, [path.join(here, '../../../test-support/managed-cluster-child.ts'), mode], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      let ready: { root: string; pid: number } | null = null;
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /READY (\S+) (\d+)/.exec(out);
        if (m && !ready) {
          ready = { root: m[1]!, pid: Number(m[2]) };
          if (mode === '--sigint') child.kill('SIGINT');
        }
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('exit', (code) =>
        ready
          ? resolve({ code, ...ready })
          : reject(new Error(`child ended before the fixture (code ${code}): ${err}`)),
      );
    });

  it('SIGINT mid-fixture: the server is stopped and the directory removed', async () => {
    const r = await runChild('--sigint');
    expect(r.code).toBe(130);
    expect(pidAlive(r.pid)).toBe(false);
    expect(existsSync(r.root)).toBe(false);
  });

  it('process.exit mid-fixture: the exit hook stops the server and removes the directory', async () => {
    const r = await runChild('--exit');
    expect(r.code).toBe(7);
    expect(pidAlive(r.pid)).toBe(false);
    expect(existsSync(r.root)).toBe(false);
  });
});

describe('bad input and faults leave nothing behind', () => {
  it('no server binaries: --cluster-bin that does not exist, or holds no server', async () => {
    await expectError(
      findServerBinaries({ clusterBin: path.join(parent, 'nope') }),
      UsageError,
      /--cluster-bin .*nope: no such directory/,
    );
    const empty = await mkdtemp(path.join(parent, 'empty-'));
    await expectError(
      findServerBinaries({ clusterBin: empty }),
      UsageError,
      /no executable postgres, pg_ctl, initdb there/,
    );
    // Auto-detection with neither pg_config nor a Debian layout.
    await expectError(
      findServerBinaries({ pgConfig: path.join(parent, 'no-pg_config'), debianRoot: path.join(parent, 'nope') }),
      TargetUnreachable,
      /no PostgreSQL server binaries .* found.*--cluster-bin/,
    );
  });

  it('binaries older than the scenario needs are refused by version', async () => {
    // The check reads `postgres --version`; the real binaries are 15, so ask for more than that…
    await expectError(
      findServerBinaries({ clusterBin: binaries.dir, minMajor: binaries.major + 1 }),
      UsageError,
      new RegExp(`version ${binaries.major} .*needs PostgreSQL ${binaries.major + 1} or newer`),
    );
    // …and a bin directory whose postgres says 13 is refused for a ≥ 14 scenario.
    const old = await mkdtemp(path.join(parent, 'pg13-'));
    for (const name of ['postgres', 'pg_ctl', 'initdb'])
      await writeFile(path.join(old, name), '#!/bin/sh\necho "postgres (PostgreSQL) 13.16"\n', { mode: 0o755 });
    await expectError(
      findServerBinaries({ clusterBin: old, minMajor: 14 }),
      UsageError,
      /version 13 .*needs PostgreSQL 14 or newer/,
    );
  });

  it('--cluster-dir that does not exist, is a file, or the server user cannot use', async () => {
    await expectError(
      createManagedCluster({ binaries, parentDir: path.join(parent, 'missing') }),
      UsageError,
      /--cluster-dir .*missing: no such directory/,
    );
    const file = path.join(parent, 'a-file');
    await writeFile(file, '');
    await expectError(createManagedCluster({ binaries, parentDir: file }), UsageError, /not a directory/);
    const locked = path.join(parent, 'locked');
    await mkdir(locked, { mode: 0o700 });
    await mkdir(path.join(locked, 'inner'));
    if (isRoot()) {
      // root may write anywhere, but the postgres OS user cannot pass a 0700 root-owned directory.
      await expectError(
        createManagedCluster({ binaries, parentDir: path.join(locked, 'inner') }),
        UsageError,
        /"postgres" OS user cannot reach it/,
      );
    } else {
      await chmod(path.join(locked, 'inner'), 0o500);
      await expectError(
        createManagedCluster({ binaries, parentDir: path.join(locked, 'inner') }),
        UsageError,
        /not writable/,
      );
    }
    expect(execFileSync('find', [locked, '-mindepth', '2']).toString().trim()).toBe('');
  });

  it('a port in use: the second server is refused with a clear error (its lock-file FATAL, or the other server answering), and is removed', async () => {
    const a = await createManagedCluster({ binaries, parentDir: parent });
    try {
      await a.start();
      const b = await createManagedCluster({ binaries, parentDir: parent, port: a.port, socketDir: a.socketDir });
      try {
        await expectError(
          b.start({ timeoutMs: 30_000 }),
          RunFailed,
          /port \d+ is in use|exited during startup[\s\S]*lock file .*\.s\.PGSQL\.\d+\.lock/,
        );
        expect(await b.postmasterPid()).toBeNull();
      } finally {
        await b.destroy();
      }
      expect(existsSync(b.root)).toBe(false);
      expect(await a.postmasterPid()).not.toBeNull(); // the first server is untouched
    } finally {
      await a.destroy();
    }
  });

  it('a start that never becomes ready: gives up after the timeout, stops the server, removal leaves nothing', async () => {
    const cluster = await createManagedCluster({ binaries, parentDir: parent });
    try {
      // Every backend sleeps 5 s after authentication, so no connection succeeds within 1.5 s.
      await expectError(
        cluster.start({ settings: { post_auth_delay: '5' }, timeoutMs: 1_500 }),
        RunFailed,
        /not ready after 1500 ms/,
      );
      expect(await cluster.postmasterPid()).toBeNull();
    } finally {
      await cluster.destroy();
    }
    expect(existsSync(cluster.root)).toBe(false);
  });

  it('a -c value that could be misread is refused before anything starts', async () => {
    const cluster = await createManagedCluster({ binaries, parentDir: parent });
    try {
      await expectError(
        cluster.start({ settings: { recovery_init_sync_method: 'fsync -c x=1' } }),
        UsageError,
        /invalid value for server setting recovery_init_sync_method/,
      );
      expect(await cluster.postmasterPid()).toBeNull();
    } finally {
      await cluster.destroy();
    }
  });
});

describe('data directory facts', () => {
  it('file system type of a directory, and a page-cache drop that is not permitted says why', async () => {
    const fs = await fileSystemOf(parent);
    expect(fs.type).toMatch(/^[a-z0-9._-]+$/);
    expect(fs.type).not.toBe('unknown');
    // A /proc file that cannot be written (here: a directory) → skipped with a reason, not an error.
    const outcome = await dropPageCache(parent, parent);
    expect(outcome.dropped).toBe(false);
    if (!outcome.dropped) expect(outcome.reason).toMatch(isRoot() ? /cannot write .*EISDIR/ : /needs root/);
  });
});
