/**
 * A throwaway PostgreSQL cluster that the runner creates, owns and removes.
 *
 * Layout: `<parent>/tunelab-cluster-XXXXXX/` (mode 0700, owned by the server's OS user) holds
 * `data/` (PGDATA) and `server.log` (the postmaster's stderr, appended across starts). The server
 * listens on a Unix socket only (`listen_addresses = ''`) in that directory (or in a short temp
 * dir when the path is too long for a socket), on a port no one else uses. Every process and the
 * directory are removed by `destroy()`, on `signal` abort (the server is stopped at once), and as
 * a last resort when the Node process exits.
 *
 * With a ledger directory the cluster is recorded before initdb, so a runner killed with SIGKILL
 * (no exit hook) leaves an orphan that the next run or `tunelab cleanup` removes (orphans.ts).
 *
 * Crashing is `pg_ctl stop -m immediate` (SIGQUIT to the postmaster: no shutdown checkpoint, so the
 * next start runs crash recovery), never SIGKILL of the postmaster, which would leave shared memory
 * and orphaned backends behind.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdtemp, open, readFile, rm, stat, appendFile, access, constants } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { RunFailed, UsageError } from '../../../errors.ts';
import type { ManagedCluster } from '../../driver.ts';
import type { ServerBinaries } from './binaries.ts';
import { pidAlive, recordCluster, sweepOrphanedClusters } from './orphans.ts';
import { asServerUser, ensureServerOsUser, isRoot, run, runServerBinary, serverOsUser } from './process.ts';

export type ManagedClusterOptions = {
  binaries: ServerBinaries;
  /** Where the cluster directory goes (`--cluster-dir`); default the OS temp dir. */
  parentDir?: string;
  /** postgresql.conf settings added to the managed ones (name → value as written in the file). */
  settings?: Record<string, string>;
  /** The user's settings (`--set name=value`): written quoted, after the managed ones, so they win. */
  userSettings?: Record<string, string>;
  /** Tests: a fixed port and a socket directory shared with another cluster. */
  port?: number;
  socketDir?: string;
  /** On abort the server is stopped at once (`pg_ctl stop -m immediate`); `destroy()` still removes it. */
  signal?: AbortSignal;
  /** initdb time limit (default 120 s). */
  initdbTimeoutMs?: number;
  /**
   * The runner's ledger (TUNELAB_LEDGER_DIR): the cluster is recorded there before initdb and
   * orphans of killed runners are swept first (orphans.ts). Without it nothing is recorded.
   */
  ledgerDir?: string;
  /** The run that owns the cluster (in its record). */
  runId?: string;
  /** Lines worth showing (orphans swept, a record that could not be written). */
  say?: (text: string) => void;
  /**
   * A resource envelope (probe/envelope.ts) every start of the server enters before it execs:
   * the postmaster and every process it forks run inside its cgroup.
   */
  envelope?: { wrap(argv: readonly string[]): string[] };
};

export type StartOptions = {
  /** `-c name=value` for this start only, e.g. { recovery_init_sync_method: 'syncfs' }. */
  settings?: Record<string, string>;
  /** Give up when no connection succeeds within this time (default 60 s). */
  timeoutMs?: number;
  /** Connection attempts are this far apart (default 10 ms). */
  pollMs?: number;
};

export type StartResult = {
  /** Spawn of the postmaster → first successful connection, ms (monotonic clock). */
  readyMs: number;
  /** Connection attempts made until then. */
  attempts: number;
  /** Offset in the log file where this start's lines begin. */
  logOffset: number;
};

const SETTING_NAME = /^[a-z_][a-z0-9_.]*$/;
/** A -c value on the command line: no quoting needed, nothing a shell or the parser could misread. */
const SETTING_VALUE = /^[A-Za-z0-9_.:+-]+$/;
/** sun_path is 108 bytes on Linux; the socket file adds `/.s.PGSQL.NNNNN` and the lock `.lock`. */
const MAX_SOCKET_DIR = 80;

/** The managed server settings; see the issue and postgresql.org/docs/current/runtime-config-logging.html. */
function managedSettings(port: number, socketDir: string, major: number): Record<string, string> {
  return {
    listen_addresses: "''",
    port: String(port),
    unix_socket_directories: quoteConf(socketDir),
    unix_socket_permissions: '0700',
    lc_messages: "'C'",
    log_line_prefix: "'%m [%p] '",
    log_timezone: "'UTC'",
    logging_collector: 'off',
    // PostgreSQL 15+: a LOG line every second while the startup process syncs or replays.
    ...(major >= 15 ? { log_startup_progress_interval: "'1s'" } : {}),
    autovacuum: 'off',
  };
}

function quoteConf(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A free TCP port on 127.0.0.1 (the socket is Unix-only, but a free TCP port keeps `psql -p` unambiguous). */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// Last resort: clusters still alive when the process exits (a second Ctrl-C, process.exit).
const LIVE = new Set<ManagedPostgresCluster>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const c of LIVE) c.destroySync();
  });
}

/** Checks `--cluster-dir`: it must exist, be a directory and be writable. */
async function checkParentDir(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => null);
  if (!info) throw new UsageError(`--cluster-dir ${dir}: no such directory`);
  if (!info.isDirectory()) throw new UsageError(`--cluster-dir ${dir}: not a directory`);
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new UsageError(`--cluster-dir ${dir}: not writable by this user`);
  }
}

export class ManagedPostgresCluster implements ManagedCluster {
  readonly root: string;
  readonly dataDirectory: string;
  readonly logFile: string;
  readonly socketDir: string;
  readonly port: number;
  readonly binaries: ServerBinaries;
  /** initdb time, ms. */
  initdbMs = 0;
  private child: ChildProcess | null = null;
  private childExit: Promise<void> | null = null;
  private ownSocketDir: boolean;
  private destroyed = false;
  /** Its record in the ledger (orphans.ts), removed with the cluster. */
  private recordFile: string | null = null;
  private removeAbortListener: () => void = () => {};
  private envelope: ManagedClusterOptions['envelope'];

  private constructor(p: {
    root: string;
    socketDir: string;
    ownSocketDir: boolean;
    port: number;
    binaries: ServerBinaries;
  }) {
    this.root = p.root;
    this.dataDirectory = path.join(p.root, 'data');
    this.logFile = path.join(p.root, 'server.log');
    this.socketDir = p.socketDir;
    this.ownSocketDir = p.ownSocketDir;
    this.port = p.port;
    this.binaries = p.binaries;
  }

  /** Creates the directory and runs initdb; on any failure nothing is left behind. */
  static async create(opts: ManagedClusterOptions): Promise<ManagedPostgresCluster> {
    opts.signal?.throwIfAborted();
    const parent = path.resolve(opts.parentDir ?? tmpdir());
    await checkParentDir(parent);
    const say = opts.say ?? (() => {});
    if (opts.ledgerDir) await sweepOrphanedClusters(opts.ledgerDir, say);
    let root: string;
    try {
      root = await mkdtemp(path.join(parent, 'tunelab-cluster-'));
    } catch (e) {
      throw new UsageError(
        `--cluster-dir ${parent}: cannot create a directory there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
    let socketDir = opts.socketDir ?? root;
    const ownSocketDir = opts.socketDir === undefined && root.length > MAX_SOCKET_DIR;
    if (ownSocketDir) socketDir = await mkdtemp(path.join(tmpdir(), 'tlsock-'));
    const cluster = new ManagedPostgresCluster({
      root,
      socketDir,
      ownSocketDir,
      port: opts.port ?? (await findFreePort()),
      binaries: opts.binaries,
    });
    cluster.envelope = opts.envelope;
    LIVE.add(cluster);
    installExitHook();
    if (opts.ledgerDir)
      cluster.recordFile = await recordCluster(opts.ledgerDir, {
        runId: opts.runId ?? null,
        root,
        dataDirectory: cluster.dataDirectory,
        socketDir,
        ownSocketDir,
        port: cluster.port,
        binDir: opts.binaries.dir,
      }).catch((e: unknown) => {
        say(
          `cannot record the managed server in ${opts.ledgerDir} (${(e as Error).message}); if this process is killed, remove ${root} by hand`,
        );
        return null;
      });
    try {
      await cluster.giveToServerUser(root, parent);
      if (ownSocketDir) await cluster.giveToServerUser(socketDir, tmpdir());
      const started = performance.now();
      // --no-sync: a throwaway cluster; whatever initdb left dirty is flushed by the first crash
      // recovery's sync, which scenarios treat as a warm-up.
      await runServerBinary(
        path.join(opts.binaries.dir, 'initdb'),
        ['-D', cluster.dataDirectory, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
        {
          timeoutMs: opts.initdbTimeoutMs ?? 120_000,
          cwd: root,
        },
      );
      cluster.initdbMs = performance.now() - started;
      const settings = {
        ...managedSettings(cluster.port, socketDir, opts.binaries.major),
        ...opts.settings,
        ...Object.fromEntries(Object.entries(opts.userSettings ?? {}).map(([k, v]) => [k, quoteConf(v)])),
      };
      for (const name of Object.keys(settings))
        if (!SETTING_NAME.test(name)) throw new UsageError(`invalid server setting name "${name}"`);
      const conf = Object.entries(settings)
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n');
      await appendFile(path.join(cluster.dataDirectory, 'postgresql.conf'), `\n# TuneLab managed cluster\n${conf}\n`);
      opts.signal?.throwIfAborted();
    } catch (e) {
      await cluster.destroy();
      if (e instanceof UsageError || e instanceof RunFailed) throw e;
      throw new RunFailed(`creating the managed PostgreSQL cluster in ${parent} failed: ${(e as Error).message}`);
    }
    if (opts.signal) {
      const onAbort = () => void cluster.stopNow();
      opts.signal.addEventListener('abort', onAbort, { once: true });
      cluster.removeAbortListener = () => opts.signal?.removeEventListener('abort', onAbort);
    }
    return cluster;
  }

  /** As root: the directory goes to the postgres OS user, mode 0700, and that user must reach it. */
  private async giveToServerUser(dir: string, parent: string): Promise<void> {
    await chmod(dir, 0o700);
    if (!isRoot()) return;
    const user = await ensureServerOsUser().catch((e: unknown) => {
      throw new RunFailed((e as Error).message);
    });
    const { stdout } = await run('id', ['-u', user], { timeoutMs: 5_000 });
    const { stdout: gid } = await run('id', ['-g', user], { timeoutMs: 5_000 });
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    const [f, a] = asServerUser('test', ['-w', dir, '-a', '-x', dir]);
    await run(f, a, { timeoutMs: 5_000 }).catch(() => {
      throw new UsageError(
        `--cluster-dir ${parent}: the "${user}" OS user cannot reach it (a parent directory is not searchable by that user)`,
      );
    });
  }

  get serverVersion(): string {
    return this.binaries.version;
  }

  /** A `pg` client configuration for a database of this cluster (over the Unix socket). */
  clientConfig(database = 'postgres'): pg.ClientConfig {
    return { host: this.socketDir, port: this.port, user: 'postgres', database, connectionTimeoutMillis: 10_000 };
  }

  /** A connection URL for the runner's PostgreSQL driver: the socket directory as the host. */
  url(database = 'postgres'): string {
    return `postgresql://postgres@${encodeURIComponent(this.socketDir)}:${this.port}/${encodeURIComponent(database)}`;
  }

  /** The pid in postmaster.pid when that process is alive, else null. */
  async postmasterPid(): Promise<number | null> {
    const text = await readFile(path.join(this.dataDirectory, 'postmaster.pid'), 'utf8').catch(() => null);
    const pid = Number(text?.split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) return null;
    return pidAlive(pid) ? pid : null;
  }

  async logSize(): Promise<number> {
    return (await stat(this.logFile).catch(() => null))?.size ?? 0;
  }

  /** The server log from a byte offset (a start's `logOffset`) to its end. */
  async readLog(fromOffset = 0): Promise<string> {
    const buf = await readFile(this.logFile).catch(() => Buffer.alloc(0));
    return buf.subarray(fromOffset).toString('utf8');
  }

  /**
   * Starts the postmaster directly (no `pg_ctl -w`: it polls at 100 ms and gives up after 60 s)
   * and connects every `pollMs` until a connection succeeds. The postmaster exiting, the timeout
   * or the abort signal end the wait with an error, the server stopped.
   */
  async start(opts: StartOptions = {}, signal?: AbortSignal): Promise<StartResult> {
    if (this.destroyed) throw new Error('the managed cluster was removed');
    if (this.child || (await this.postmasterPid()) !== null) throw new Error('the managed cluster is already running');
    const args = ['-D', this.dataDirectory];
    for (const [name, value] of Object.entries(opts.settings ?? {})) {
      if (!SETTING_NAME.test(name)) throw new UsageError(`invalid server setting name "${name}"`);
      if (!SETTING_VALUE.test(value))
        throw new UsageError(`invalid value for server setting ${name}: "${value}" (letters, digits, _ . : + - only)`);
      args.push('-c', `${name}=${value}`);
    }
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const pollMs = opts.pollMs ?? 10;
    const logOffset = await this.logSize();
    const log = await open(this.logFile, 'a');
    if (isRoot())
      await log.chown(Number((await run('id', ['-u', serverOsUser()], { timeoutMs: 5_000 })).stdout.trim()), -1);
    const [serverFile, serverArgv] = asServerUser(path.join(this.binaries.dir, 'postgres'), args);
    const wrapped = this.envelope?.wrap([serverFile, ...serverArgv]);
    const [file, argv] = wrapped ? [wrapped[0]!, wrapped.slice(1)] : [serverFile, serverArgv];
    const spawned = performance.now();
    // detached: a session of its own, so a terminal's Ctrl-C reaches the runner, which stops it.
    const child = spawn(file, argv, { cwd: this.root, detached: true, stdio: ['ignore', log.fd, log.fd] });
    await log.close();
    child.unref();
    this.child = child;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    this.childExit = new Promise((resolve) => {
      child.once('exit', (code, sig) => {
        exited = { code, signal: sig };
        if (this.child === child) this.child = null;
        resolve();
      });
      child.once('error', (e) => {
        exited = { code: null, signal: null };
        if (this.child === child) this.child = null;
        void appendFile(this.logFile, `tunelab: could not start ${file}: ${e.message}\n`).catch(() => {});
        resolve();
      });
    });

    let attempts = 0;
    for (;;) {
      const attemptAt = performance.now();
      if (exited) {
        const tail = await this.logTail(logOffset);
        throw new RunFailed(
          `the managed PostgreSQL server exited during startup (${describeExit(exited)}); its log says:\n${tail}`,
        );
      }
      if (signal?.aborted) {
        await this.stopNow();
        signal.throwIfAborted();
      }
      if (attemptAt - spawned > timeoutMs) {
        await this.stopNow();
        const tail = await this.logTail(logOffset);
        throw new RunFailed(
          `the managed PostgreSQL server was not ready after ${Math.round(timeoutMs)} ms (spawned, no successful connection); stopped it. Its log says:\n${tail}`,
        );
      }
      attempts++;
      const connected = await this.tryConnect(Math.max(100, Math.min(2_000, timeoutMs)));
      if (connected.ok) {
        const readyMs = connected.at - spawned;
        if (connected.dataDirectory !== this.dataDirectory) {
          // Another server answers on this socket: ours cannot have the port (it exits on its lock file).
          await this.stopNow();
          const tail = await this.logTail(logOffset);
          throw new RunFailed(
            `port ${this.port} is in use: the server answering on ${this.socketDir} has data directory ${connected.dataDirectory}, not ${this.dataDirectory}; the managed server's log says:\n${tail}`,
          );
        }
        return { readyMs, attempts, logOffset };
      }
      const wait = pollMs - (performance.now() - attemptAt);
      if (wait > 0) await sleep(wait);
    }
  }

  /** One connection attempt; on success, when it succeeded and whose data directory it reached. */
  private async tryConnect(
    timeoutMs: number,
  ): Promise<{ ok: true; at: number; dataDirectory: string } | { ok: false }> {
    const client = new pg.Client({ ...this.clientConfig(), connectionTimeoutMillis: timeoutMs, query_timeout: 10_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      const at = performance.now();
      const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
      return { ok: true, at, dataDirectory: rows[0]?.data_directory ?? '' };
    } catch {
      return { ok: false };
    } finally {
      await client.end().catch(() => {});
    }
  }

  private async logTail(fromOffset: number): Promise<string> {
    const lines = (await this.readLog(fromOffset))
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.includes('the database system is starting up'));
    return (
      lines
        .slice(-8)
        .map((l) => `  ${l}`)
        .join('\n') || '  (nothing)'
    );
  }

  private pgCtl(args: string[], timeoutMs: number) {
    return runServerBinary(path.join(this.binaries.dir, 'pg_ctl'), ['-D', this.dataDirectory, ...args], {
      timeoutMs,
      cwd: this.root,
    });
  }

  /** Crash: `pg_ctl stop -m immediate` (the postmaster gets SIGQUIT; the next start recovers). */
  async crash(): Promise<void> {
    if ((await this.postmasterPid()) === null) throw new Error('crash: the managed cluster is not running');
    await this.pgCtl(['stop', '-m', 'immediate', '-w', '-t', '60'], 70_000);
    await this.waitForChild();
  }

  /**
   * `fast`: clean shutdown (a shutdown checkpoint, no recovery at the next start); `immediate`:
   * the crash. Nothing to do when the server is not running.
   */
  async stop(mode: 'fast' | 'immediate' = 'fast', timeoutMs = 300_000): Promise<void> {
    if ((await this.postmasterPid()) === null) return;
    if (mode === 'immediate') return this.crash();
    await this.pgCtl(['stop', '-m', 'fast', '-w', '-t', String(Math.ceil(timeoutMs / 1000))], timeoutMs + 10_000);
    await this.waitForChild();
  }

  private async waitForChild(): Promise<void> {
    if (this.childExit) await Promise.race([this.childExit, sleep(10_000)]);
  }

  /**
   * Stops the server at once if it runs (abort, failed start); errors are swallowed. Right after
   * the spawn postmaster.pid may not exist yet: wait for it (up to 5 s) while the process lives.
   */
  async stopNow(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const pid = await this.postmasterPid();
      if (pid !== null) {
        await this.pgCtl(['stop', '-m', 'immediate', '-w', '-t', '60'], 70_000).catch(() => {});
        // pg_ctl failed: the same SIGQUIT it would have sent.
        if ((await this.postmasterPid()) === pid) process.kill(pid, 'SIGQUIT');
        break;
      }
      if (!this.child) break;
      if (i === 49) this.child.kill('SIGQUIT');
      await sleep(100);
    }
    await this.waitForChild();
  }

  /** Stops every process and removes the directory. Idempotent. */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.removeAbortListener();
    try {
      await this.stopNow();
      for (let i = 0; i < 100 && (await this.postmasterPid()) !== null; i++) await sleep(100);
    } finally {
      await rm(this.root, { recursive: true, force: true, maxRetries: 3 });
      if (this.ownSocketDir) await rm(this.socketDir, { recursive: true, force: true });
      if (this.recordFile) await rm(this.recordFile, { force: true });
      LIVE.delete(this);
    }
  }

  /** The exit-hook version of destroy(): synchronous, best effort. */
  destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    const [f, a] = asServerUser(path.join(this.binaries.dir, 'pg_ctl'), [
      '-D',
      this.dataDirectory,
      'stop',
      '-m',
      'immediate',
      '-w',
      '-t',
      '30',
    ]);
    spawnSync(f, a, { stdio: 'ignore', timeout: 35_000, cwd: tmpdir() });
    rmSync(this.root, { recursive: true, force: true });
    if (this.ownSocketDir) rmSync(this.socketDir, { recursive: true, force: true });
    if (this.recordFile) rmSync(this.recordFile, { force: true });
    LIVE.delete(this);
  }
}

function describeExit(e: { code: number | null; signal: NodeJS.Signals | null }): string {
  return e.signal ? `signal ${e.signal}` : e.code === null ? 'could not be spawned' : `exit code ${e.code}`;
}

/** Creates a managed cluster (see ManagedPostgresCluster.create). */
export const createManagedCluster = (opts: ManagedClusterOptions) => ManagedPostgresCluster.create(opts);
