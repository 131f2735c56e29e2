/**
 * Resource envelopes: the article's conditions on a smaller or faster machine. A
 * database server runs inside a cgroup with a memory limit (the page cache its reads fill is
 * charged to the cgroup, so a table larger than the limit is read from disk again) and block-I/O
 * limits in operations and bytes per second on the data directory's disk.
 *
 * cgroup v1 (`memory` and `blkio` hierarchies under /sys/fs/cgroup): memory.limit_in_bytes and
 * blkio.throttle.{read,write}_{iops,bps}_device. v1 throttles reads and direct or synchronous
 * writes issued by the process; buffered writes flushed later by the kernel's writeback threads
 * are not charged to it (the kernel's blkio documentation), so a write limit binds on WAL fsyncs
 * and O_DIRECT, not on checkpoints' buffered writes — said in every description. cgroup v2:
 * memory.max and io.max (riops, wiops, rbps, wbps), which also covers writeback.
 * https://docs.kernel.org/admin-guide/cgroup-v1/blkio-controller.html
 * https://docs.kernel.org/admin-guide/cgroup-v1/memory.html
 * https://docs.kernel.org/admin-guide/cgroup-v2.html
 *
 * Needs root. Where cgroups cannot be used the caller gets EnvelopeUnavailable with a sentence,
 * never a silent unconstrained run.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import bytes from 'bytes';
import { EnvelopeUnavailable } from '../errors.ts';
import { blockDeviceNumbers, exists, processCgroups, type CgroupMembership } from './sysfs.ts';

export { EnvelopeUnavailable };

export type Envelope = {
  /** memory.limit_in_bytes / memory.max */
  memoryBytes?: number;
  readIops?: number;
  writeIops?: number;
  /** bytes per second */
  readBps?: number;
  writeBps?: number;
};

/** Bad `--envelope` text: the CLI prints the message and exits with a usage error. */
export class EnvelopeSyntaxError extends Error {}

const MB = 1_000_000;
/** The smallest memory limit: below it a PostgreSQL server's own processes do not fit. */
export const MIN_ENVELOPE_MEMORY_BYTES = 64 * 1024 * 1024;
const NAMES = {
  memory: 'memoryBytes',
  'read-iops': 'readIops',
  'write-iops': 'writeIops',
  'read-mbps': 'readBps',
  'write-mbps': 'writeBps',
} as const;
type Name = keyof typeof NAMES;
export const ENVELOPE_HELP =
  'memory=SIZE (512MB, 2GB: binary units as in postgresql.conf), read-iops=N, write-iops=N, read-mbps=N, write-mbps=N (10^6 bytes/s), comma-separated';

const positive = (name: string, text: string): number => {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0))
    throw new EnvelopeSyntaxError(`--envelope ${name}=${text}: expected a positive number`);
  return n;
};

/** `memory=2GB,read-iops=150,write-mbps=40` → limits; throws EnvelopeSyntaxError naming the part. */
export function parseEnvelope(text: string): Envelope {
  const out: Envelope = {};
  const parts = text.split(',').map((p) => p.trim());
  if (parts.every((p) => p === '')) throw new EnvelopeSyntaxError(`--envelope is empty; give ${ENVELOPE_HELP}`);
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    if (!Object.hasOwn(NAMES, name))
      throw new EnvelopeSyntaxError(`--envelope: unknown limit "${name}"; expected ${ENVELOPE_HELP}`);
    const key = NAMES[name as Name];
    if (out[key] !== undefined) throw new EnvelopeSyntaxError(`--envelope: ${name} is given twice`);
    if (name === 'memory') {
      const n = /^\d+(\.\d+)?\s*(b|kb|mb|gb|tb)$/i.test(value) ? bytes.parse(value) : null;
      if (n === null || !(n >= MIN_ENVELOPE_MEMORY_BYTES))
        throw new EnvelopeSyntaxError(
          `--envelope memory=${value}: expected a size of at least 64MB with its unit, e.g. memory=2GB`,
        );
      out.memoryBytes = n;
    } else if (name === 'read-mbps' || name === 'write-mbps') {
      out[key] = Math.round(positive(name, value) * MB);
    } else {
      out[key] = Math.round(positive(name, value));
    }
  }
  return out;
}

/** "memory 2GB, reads 150 IOPS, writes 40 MB/s" — the words a class and an answer use. */
export function describeEnvelope(e: Envelope): string {
  const parts: string[] = [];
  if (e.memoryBytes !== undefined) parts.push(`memory ${bytes.format(e.memoryBytes, { unitSeparator: '' })}`);
  const io = (what: string, iops?: number, bps?: number) => {
    const limits = [iops !== undefined ? `${iops} IOPS` : null, bps !== undefined ? `${bps / MB} MB/s` : null];
    const text = limits.filter(Boolean).join(', ');
    if (text) parts.push(`${what} ${text}`);
  };
  io('reads', e.readIops, e.readBps);
  io('writes', e.writeIops, e.writeBps);
  return parts.join(', ');
}

export type AppliedEnvelope = {
  mechanism: 'cgroup-v1' | 'cgroup-v2';
  envelope: Envelope;
  /** In words, with what the mechanism does not limit. */
  description: string;
  /** The cgroup's directories (one per v1 hierarchy; one for v2). */
  dirs: string[];
  /** Moves a running process (all its threads) into the envelope. */
  enter(pid: number): Promise<void>;
  /**
   * A command line that enters the envelope, then execs `argv`: children the command forks
   * (a postmaster's backends) start inside it.
   */
  wrap(argv: readonly string[]): string[];
  /** Processes inside the envelope now. */
  pids(): Promise<number[]>;
  /** Moves what is left back to the root cgroup and removes the cgroup. */
  remove(): Promise<void>;
};

const V1 = '/sys/fs/cgroup';

async function write(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (e) {
    throw new EnvelopeUnavailable(`cannot write ${text} to ${file}: ${(e as Error).message}`);
  }
}

function wrapWith(procsFiles: readonly string[], argv: readonly string[]): string[] {
  // sh moves itself into every cgroup, then becomes the command; the paths are positional
  // arguments, never spliced into the script.
  const script = 'while [ "$1" != "--" ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';
  return ['/bin/sh', '-c', script, 'tunelab-envelope', ...procsFiles, '--', ...argv];
}

async function pidsOf(procs: string): Promise<number[]> {
  const text = await readFile(procs, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

async function applyV1(e: Envelope, devnum: string | null, id: string): Promise<AppliedEnvelope> {
  const wanted: [string, [string, string][]][] = [];
  if (e.memoryBytes !== undefined) wanted.push(['memory', [['memory.limit_in_bytes', String(e.memoryBytes)]]]);
  const io: [string, string][] = [];
  if (devnum) {
    if (e.readIops !== undefined) io.push(['blkio.throttle.read_iops_device', `${devnum} ${e.readIops}`]);
    if (e.writeIops !== undefined) io.push(['blkio.throttle.write_iops_device', `${devnum} ${e.writeIops}`]);
    if (e.readBps !== undefined) io.push(['blkio.throttle.read_bps_device', `${devnum} ${e.readBps}`]);
    if (e.writeBps !== undefined) io.push(['blkio.throttle.write_bps_device', `${devnum} ${e.writeBps}`]);
  }
  if (io.length) wanted.push(['blkio', io]);
  const dirs: string[] = [];
  const cleanup = async () => {
    for (const d of dirs.reverse()) await rmdir(d).catch(() => {});
  };
  try {
    for (const [hierarchy, files] of wanted) {
      if (!(await exists(path.join(V1, hierarchy, 'cgroup.procs'))))
        throw new EnvelopeUnavailable(`the cgroup v1 ${hierarchy} controller is not mounted at ${V1}/${hierarchy}`);
      const dir = path.join(V1, hierarchy, `tunelab-envelope-${id}`);
      await mkdir(dir).catch((err: Error) => {
        throw new EnvelopeUnavailable(`cannot create the cgroup ${dir}: ${err.message}`);
      });
      dirs.push(dir);
      for (const [file, value] of files) await write(path.join(dir, file), value);
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  const procs = dirs.map((d) => path.join(d, 'cgroup.procs'));
  const writeback =
    e.writeBps !== undefined || e.writeIops !== undefined
      ? ' (cgroup v1 limits the writes a process issues and waits for — WAL fsyncs, O_DIRECT — not buffered writes the kernel flushes later)'
      : '';
  return {
    mechanism: 'cgroup-v1',
    envelope: e,
    description: `${describeEnvelope(e)} with cgroup v1${writeback}`,
    dirs: [...dirs],
    async enter(pid) {
      for (const p of procs) await write(p, String(pid));
    },
    wrap: (argv) => wrapWith(procs, argv),
    async pids() {
      return [...new Set((await Promise.all(procs.map(pidsOf))).flat())];
    },
    async remove() {
      for (const d of dirs) {
        const root = path.join(path.dirname(d), 'cgroup.procs');
        for (const pid of await pidsOf(path.join(d, 'cgroup.procs')))
          await writeFile(root, String(pid)).catch(() => {});
      }
      for (const d of dirs) {
        // A process that just exited may hold the directory busy for a moment.
        for (let i = 0; ; i++) {
          try {
            await rmdir(d);
            break;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') break;
            if (i >= 20) throw err;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      }
    },
  };
}

async function applyV2(e: Envelope, devnum: string | null, id: string): Promise<AppliedEnvelope> {
  const root = '/sys/fs/cgroup';
  const controllers = (await readFile(path.join(root, 'cgroup.subtree_control'), 'utf8').catch(() => '')).split(/\s+/);
  for (const c of [e.memoryBytes !== undefined ? 'memory' : null, devnum ? 'io' : null].filter(Boolean) as string[]) {
    if (!controllers.includes(c)) await write(path.join(root, 'cgroup.subtree_control'), `+${c}`);
  }
  const dir = path.join(root, `tunelab-envelope-${id}`);
  await mkdir(dir).catch((err: Error) => {
    throw new EnvelopeUnavailable(`cannot create the cgroup ${dir}: ${err.message}`);
  });
  try {
    if (e.memoryBytes !== undefined) await write(path.join(dir, 'memory.max'), String(e.memoryBytes));
    if (devnum) {
      const limits = [
        e.readIops !== undefined ? `riops=${e.readIops}` : '',
        e.writeIops !== undefined ? `wiops=${e.writeIops}` : '',
        e.readBps !== undefined ? `rbps=${e.readBps}` : '',
        e.writeBps !== undefined ? `wbps=${e.writeBps}` : '',
      ].filter(Boolean);
      if (limits.length) await write(path.join(dir, 'io.max'), `${devnum} ${limits.join(' ')}`);
    }
  } catch (err) {
    await rmdir(dir).catch(() => {});
    throw err;
  }
  const procs = path.join(dir, 'cgroup.procs');
  return {
    mechanism: 'cgroup-v2',
    envelope: e,
    description: `${describeEnvelope(e)} with cgroup v2`,
    dirs: [dir],
    enter: (pid) => write(procs, String(pid)),
    wrap: (argv) => wrapWith([procs], argv),
    pids: () => pidsOf(procs),
    async remove() {
      for (const pid of await pidsOf(procs))
        await writeFile(path.join(root, 'cgroup.procs'), String(pid)).catch(() => {});
      await rmdir(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** A cgroup a runner made: an envelope, or insert_stream's write throttle (io-throttle.ts), named with its pid. */
const RUNNER_CGROUP = /^tunelab-(?:envelope|throttle)-(\d+)-[0-9a-f]+$/;

/** The runner cgroups under `parent` (down to `depth` levels: a throttle sits inside the server's own cgroup). */
async function runnerCgroups(parent: string, depth: number): Promise<{ dir: string; pid: number }[]> {
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
  const out: { dir: string; pid: number }[] = [];
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const m = RUNNER_CGROUP.exec(e.name);
    if (m) out.push({ dir: path.join(parent, e.name), pid: Number(m[1]) });
    else if (depth > 1) out.push(...(await runnerCgroups(path.join(parent, e.name), depth - 1)));
  }
  return out;
}

/**
 * Envelopes and throttles whose runner is gone: their processes go back to the cgroup the runner's
 * was made in (an envelope's: the root; a throttle's: the server's own), the cgroups go.
 */
export async function sweepOrphanEnvelopes(): Promise<string[]> {
  const swept: string[] = [];
  const found = [
    ...(await runnerCgroups(path.join(V1, 'memory'), 4)),
    ...(await runnerCgroups(path.join(V1, 'blkio'), 4)),
    ...(await runnerCgroups(V1, 1)),
  ];
  for (const { dir, pid: owner } of found) {
    if (alive(owner)) continue;
    const parent = path.dirname(dir);
    for (const pid of await pidsOf(path.join(dir, 'cgroup.procs')))
      await writeFile(path.join(parent, 'cgroup.procs'), String(pid)).catch(() => {});
    await rmdir(dir).then(
      () => swept.push(dir),
      () => {},
    );
  }
  return swept;
}

/**
 * A cgroup holding `envelope`'s limits, for processes that use `device` (the data directory's
 * disk; needed for I/O limits). Throws EnvelopeUnavailable with a sentence where it cannot.
 */
export async function createEnvelope(envelope: Envelope, opts: { device: string | null }): Promise<AppliedEnvelope> {
  if (process.getuid?.() !== 0)
    throw new EnvelopeUnavailable('an envelope limits a server with cgroups, which needs root; the runner is not root');
  const needsIo = ['readIops', 'writeIops', 'readBps', 'writeBps'].some(
    (k) => envelope[k as keyof Envelope] !== undefined,
  );
  if (needsIo && !opts.device)
    throw new EnvelopeUnavailable('I/O limits need the data directory’s block device, and none was found');
  const devnum = needsIo && opts.device ? await blockDeviceNumbers(opts.device, true, EnvelopeUnavailable) : null;
  await sweepOrphanEnvelopes();
  // The creator's pid in the name: a runner killed outright (SIGKILL) leaves its cgroup, and the
  // next envelope on this machine moves what is in it back to the root and removes it.
  const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  if (await exists(path.join(V1, 'memory', 'cgroup.procs'))) return applyV1(envelope, devnum, id);
  if (await exists('/sys/fs/cgroup/cgroup.controllers')) return applyV2(envelope, devnum, id);
  throw new EnvelopeUnavailable('no cgroup v1 memory/blkio or cgroup v2 hierarchy is mounted under /sys/fs/cgroup');
}

export type { CgroupMembership };

/** A process's cgroups, as an envelope moves it back into them. */
export const cgroupsOf = (pid: number): Promise<CgroupMembership> => processCgroups(pid, EnvelopeUnavailable);

export async function moveBack(pid: number, membership: CgroupMembership, applied: AppliedEnvelope): Promise<void> {
  for (const dir of applied.dirs) {
    let procs: string | null = null;
    if (applied.mechanism === 'cgroup-v1') {
      const controller = path.basename(path.dirname(dir));
      const line = membership.find((l) => l.controllers.includes(controller));
      if (line) procs = path.join(V1, controller, line.path, 'cgroup.procs');
    } else {
      const line = membership.find((l) => l.hierarchy === '0');
      if (line) procs = path.join('/sys/fs/cgroup', line.path, 'cgroup.procs');
    }
    // A process that is gone has nothing to move; remove() takes what is left to the root.
    if (procs) await writeFile(procs, String(pid)).catch(() => {});
  }
}
