/**
 * The runner's own disk probe, used when fio is not installed. It measures the same figures as
 * disk-fio.ts, with these differences (said in the README and in the figures' notes):
 * - O_DIRECT needs a buffer aligned to the device's logical block; Node cannot ask for one, so the
 *   probe allocates 4 kB more than it needs and finds the aligned offset by trying reads at every
 *   16-byte step (the allocator's alignment). Where no offset works (a filesystem without O_DIRECT), sequential writes are
 *   buffered and made durable by one fdatasync, and random reads are not measured (no tier).
 * - Random reads run in a child Node process whose libuv thread pool has 16 threads: 16 reads in
 *   flight are 16 blocking preads on 16 threads (fio's psync × 16 jobs), not one asynchronous queue
 *   (fio's libaio at iodepth 16). Queue depth 1 is one blocking pread after another on the child's
 *   main thread, as fio's psync.
 * - fsync latency is timed around fdatasync after an 8 kB write (fs.*Sync calls on this thread).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { closeSync, constants, fdatasyncSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import * as hdr from 'hdr-histogram-js';
import type { DiskFigures, Wrap } from './disk-figures.ts';
import {
  bestQuartile,
  inProcess,
  measureWindowed,
  medianBusy,
  retriedLabels,
  WINDOW_PLAN,
  type WindowedFigure,
  type WindowSample,
} from './windows.ts';

const MIB = 1024 * 1024;
const BLOCK = 8192;

/** An aligned window of `size` bytes inside a larger buffer, or null when O_DIRECT refuses them all. */
function alignedWindow(fd: number, size: number, probeOffset: number): Buffer | null {
  const raw = Buffer.allocUnsafeSlow(size + 4096);
  for (let at = 0; at < 4096; at += 16) {
    const window = raw.subarray(at, at + size);
    try {
      readSync(fd, window, 0, BLOCK, probeOffset);
      return window;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EINVAL') throw e;
    }
  }
  return null;
}

/**
 * The nice value the probe's disk windows run at where the OS allows it (root or CAP_SYS_NICE;
 * elsewhere they run at the runner's own): a disk figure should not wait on the CPU scheduler.
 */
export const PROBE_NICE = -10;

/** Window time caps (ms): sequential writes, fsync, random reads (each of WINDOW_PLAN.windows windows). */
const WINDOW_MS = { seqWrite: 300, fsync: 140, read: 140 } as const;

type Target = { fd: number; chunk: Buffer; direct: boolean; fileBytes: number };

/** Opens the file for the windowed sequential writes: O_DIRECT with an aligned 1 MiB buffer when the filesystem takes it. */
function openForWrites(file: string, fileBytes: number, notes: string[]): Target {
  // A first block written buffered, so the aligned read that finds the buffer's offset has data.
  const seedFd = openSync(file, 'w');
  writeSync(seedFd, Buffer.alloc(BLOCK, 1), 0, BLOCK, 0);
  fsyncSync(seedFd);
  closeSync(seedFd);
  let direct: number | null = null;
  try {
    direct = openSync(file, constants.O_RDWR | constants.O_DIRECT);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EINVAL') throw e;
  }
  let chunk = direct === null ? null : alignedWindow(direct, MIB, 0);
  const fd = chunk && direct !== null ? direct : openSync(file, 'r+');
  if (fd !== direct && direct !== null) closeSync(direct);
  if (!chunk) {
    chunk = Buffer.alloc(MIB);
    notes.push('O_DIRECT is not available here: sequential writes went through the page cache, then fdatasync');
  }
  for (let i = 0; i < MIB; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
  return { fd, chunk, direct: fd === direct, fileBytes };
}

/**
 * Sequential writes in windows: each window writes the file from its start, 1 MiB at a time, until
 * `fileBytes` or WINDOW_MS.seqWrite, then fdatasync; its MB/s. (The first window allocates the
 * file, the others overwrite it, as fio's writes over a laid-out file.) Resolves to the figure and
 * the bytes the longest window wrote, which the random reads then cover.
 */
async function writeSequential(t: Target): Promise<{ figure: WindowedFigure; written: number }> {
  let written = 0;
  const figure = await measureWindowed(
    inProcess(() => {
      const start = performance.now();
      let bytes = 0;
      while (bytes < t.fileBytes && performance.now() - start < WINDOW_MS.seqWrite)
        bytes += writeSync(t.fd, t.chunk, 0, MIB, bytes);
      fdatasyncSync(t.fd);
      written = Math.max(written, bytes);
      const seconds = (performance.now() - start) / 1000;
      return bytes > 0 ? bytes / 1e6 / seconds : null;
    }),
    'higher',
  );
  return { figure, written };
}

type FsyncWindow = { p50: number; p99: number; count: number };

/** fdatasync latency after 8 kB writes, in windows of WINDOW_MS.fsync: each window's p50 and p99. */
async function timeFsync(file: string, written: number) {
  const fd = openSync(file, 'r+');
  const block = Buffer.alloc(BLOCK, 7);
  const span = Math.max(1, Math.min(1024, Math.floor(written / BLOCK)));
  const stats: (FsyncWindow | undefined)[] = [];
  let i = 0;
  const window = (index: number): number | null => {
    const h = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 60_000_000,
      numberOfSignificantValueDigits: 3,
    });
    try {
      const start = performance.now();
      for (let n = 0; performance.now() - start < WINDOW_MS.fsync && n < 2_000; n++, i++) {
        writeSync(fd, block, 0, BLOCK, (i % span) * BLOCK);
        const t = process.hrtime.bigint();
        fdatasyncSync(fd);
        h.recordValue(Math.max(1, Math.round(Number(process.hrtime.bigint() - t) / 1000)));
      }
      stats[index] = h.totalCount
        ? { p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), count: h.totalCount }
        : undefined;
      return stats[index]?.p50 ?? null;
    } finally {
      h.destroy();
    }
  };
  try {
    // The p50 of each window decides which windows are noisy; the p99 of the same windows is kept alongside.
    const figure = await measureWindowed(inProcess(window), 'lower');
    const kept = stats.filter((w): w is FsyncWindow => w !== undefined);
    const p99 = bestQuartile(
      kept.map((w) => w.p99),
      'lower',
    );
    const p50 = figure.value;
    return {
      figure,
      fsyncP50Us: p50,
      fsyncP99Us: p50 === null || p99 === null ? null : Math.max(p50, p99),
      fsyncSamples: kept.reduce((a, w) => a + w.count, 0),
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * The child that reads: plain ESM, given the file and its size in blocks; it stays up and measures
 * windows on request, one line on stdin each (`qd1 MS N` / `qd16 MS N`: N windows of MS ms), and
 * answers one JSON line per request: each window's reads per second and the share of the CPUs busy
 * meanwhile (/proc/stat). Each chain owns an aligned 8 kB buffer; offsets come from a xorshift
 * generator per chain.
 */
const READER = `const PRIORITY = ${PROBE_NICE};
import { open } from 'node:fs/promises';
import { constants, readFileSync, readSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setPriority } from 'node:os';
// Scheduled ahead of ordinary processes where allowed (root, CAP_SYS_NICE): on saturated CPUs a read
// at queue depth 1 otherwise waits for a CPU after each completion, and measures the scheduler.
try { setPriority(PRIORITY); } catch {}
const [file, blocksArg] = process.argv.slice(1);
const blocks = Number(blocksArg);
const fh = await open(file, constants.O_RDONLY | constants.O_DIRECT);
async function aligned() {
  const raw = Buffer.allocUnsafeSlow(8192 + 4096);
  for (let at = 0; at < 4096; at += 16) {
    const w = raw.subarray(at, at + 8192);
    try { await fh.read(w, 0, 8192, 0); return w; } catch (e) { if (e.code !== 'EINVAL') throw e; }
  }
  throw new Error('no aligned buffer for O_DIRECT');
}
function cpu() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\\n')[0].trim().split(/\\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - f[4], total };
  } catch { return null; }
}
const share = (a, b) => (a && b && b.total > a.total ? Math.min(1, Math.max(0, (b.busy - a.busy) / (b.total - a.total))) : null);
let x1 = 2654435761;
// Queue depth 1 is one blocking pread after another on this thread (fio's psync): no hand-off to
// the thread pool and back per read, which on a loaded machine waits for a CPU twice.
async function depth1(w, ms) {
  let done = 0;
  const start = performance.now(), end = start + ms;
  while (performance.now() < end) {
    x1 ^= x1 << 13; x1 >>>= 0; x1 ^= x1 >>> 17; x1 ^= x1 << 5; x1 >>>= 0;
    readSync(fh.fd, w, 0, 8192, (x1 % blocks) * 8192);
    done++;
  }
  return done / ((performance.now() - start) / 1000);
}
const seeds = Array.from({ length: 16 }, (_, c) => ((c + 1) * 2654435761) >>> 0 || 1);
async function depth(windows, ms) {
  let done = 0;
  const start = performance.now(), end = start + ms;
  await Promise.all(windows.map(async (w, c) => {
    let x = seeds[c];
    while (performance.now() < end) {
      x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
      await fh.read(w, 0, 8192, (x % blocks) * 8192);
      done++;
    }
    seeds[c] = x;
  }));
  return done / ((performance.now() - start) / 1000);
}
let one = null, sixteen = null;
for await (const line of createInterface({ input: process.stdin })) {
  const [kind, msArg, nArg] = line.split(' ');
  const out = [];
  for (let i = 0; i < Number(nArg); i++) {
    const before = cpu();
    let value;
    if (kind === 'qd1') value = await depth1(one ??= await aligned(), Number(msArg));
    else {
      sixteen ??= await Promise.all(Array.from({ length: 16 }, () => aligned()));
      value = await depth(sixteen, Number(msArg));
    }
    out.push({ value: value > 0 ? value : null, busy: share(before, cpu()) });
  }
  process.stdout.write(JSON.stringify(out) + '\\n');
}
await fh.close();
`;

/** The reader child: `batch(kind, n)` measures n windows; `close()` ends it. */
function startReader(file: string, blocks: number, wrap?: Wrap) {
  const argv = [process.execPath, '--input-type=module', '-e', READER, file, String(blocks)];
  const [command, ...args] = wrap ? wrap(argv) : argv;
  const child = spawn(command!, args, {
    env: { PATH: process.env.PATH ?? '', UV_THREADPOOL_SIZE: '16' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let buffered = '';
  const waiting: { resolve: (s: string) => void; reject: (e: Error) => void }[] = [];
  const fail = (e: Error) => {
    for (const w of waiting.splice(0)) w.reject(e);
  };
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      waiting.shift()?.resolve(line);
    }
  });
  child.on('error', fail);
  child.on('exit', (code, signal) =>
    fail(new Error(stderr.trim().split('\n').pop() || `the reader exited (${signal ?? `code ${code}`})`)),
  );
  child.stdin.on('error', () => {}); // a dead child's pipe: its exit says why
  return {
    batch(kind: 'qd1' | 'qd16', n: number): Promise<WindowSample[]> {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the reader took more than ${READER_TIMEOUT_MS / 1000} s`));
        }, READER_TIMEOUT_MS);
        waiting.push({
          resolve: (line) => (clearTimeout(timer), resolve(line)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        child.stdin.write(`${kind} ${WINDOW_MS.read} ${n}\n`);
      }).then((line) => JSON.parse(line) as WindowSample[]);
    },
    close() {
      child.stdin.end();
      setTimeout(() => child.kill('SIGKILL'), 2_000).unref();
    },
  };
}

const READER_TIMEOUT_MS = 15_000;

async function randomReads(file: string, written: number, notes: string[], wrap?: Wrap) {
  const reader = startReader(file, Math.floor(written / BLOCK), wrap);
  try {
    const qd1 = await measureWindowed((indices) => reader.batch('qd1', indices.length), 'higher');
    const qd16 = await measureWindowed((indices) => reader.batch('qd16', indices.length), 'higher');
    return { qd1, qd16 };
  } catch (e) {
    const message = ((e as Error).message || '').trim().split('\n').pop() ?? '';
    notes.push(`random reads not measured: ${message.slice(0, 300)}`);
    return { qd1: null, qd16: null };
  } finally {
    reader.close();
  }
}

/**
 * `wrap` (a resource envelope's): the random reads run inside it (they are a child process), so a
 * read limit shows in the figures and the tier; the writes and fsyncs run in the runner's own
 * process, outside it, and say so. Every figure is the best quartile of WINDOW_PLAN.windows short
 * windows, noisy ones measured again (windows.ts).
 */
export async function measureDiskWithNode(file: string, fileBytes: number, wrap?: Wrap): Promise<DiskFigures> {
  const notes: string[] = ['measured by the runner, not fio: 16 reads in flight are 16 threads of blocking pread'];
  if (wrap)
    notes.push(
      'inside the envelope: the random reads only; sequential writes and fsync ran outside it (install fio to measure them inside)',
    );
  // The writes and fsyncs run on this thread: at PROBE_NICE while they do, where allowed.
  const nice = os.getPriority();
  try {
    os.setPriority(Math.min(nice, PROBE_NICE));
  } catch {
    // not allowed (not root): the runner's own priority
  }
  try {
    return await measureDisk(file, fileBytes, notes, wrap);
  } finally {
    try {
      os.setPriority(nice);
    } catch {
      // back to where it was cannot fail for the process itself; nothing to undo otherwise
    }
  }
}

async function measureDisk(file: string, fileBytes: number, notes: string[], wrap?: Wrap): Promise<DiskFigures> {
  const target = openForWrites(file, fileBytes, notes);
  let seq: WindowedFigure;
  let bytes: number;
  try {
    ({ figure: seq, written: bytes } = await writeSequential(target));
  } finally {
    closeSync(target.fd);
  }
  const fsync = await timeFsync(file, bytes);
  let reads: { qd1: WindowedFigure | null; qd16: WindowedFigure | null } = { qd1: null, qd16: null };
  if (bytes < 8 * MIB) notes.push(`only ${bytes} bytes written in ${WINDOW_MS.seqWrite} ms: random reads not measured`);
  else if (target.direct) reads = await randomReads(file, bytes, notes, wrap);
  const figures = { seqWrite: seq, fsync: fsync.figure, readQd1: reads.qd1, readQd16: reads.qd16 };
  return {
    fsyncP50Us: fsync.fsyncP50Us,
    fsyncP99Us: fsync.fsyncP99Us,
    fsyncSamples: fsync.fsyncSamples,
    readIopsQd1: reads.qd1?.value ?? null,
    readIopsQd16: reads.qd16?.value ?? null,
    seqWriteMBps: seq.value,
    windows: {
      perFigure: WINDOW_PLAN.windows,
      retried: retriedLabels(figures),
      cpuBusy: medianBusy(Object.values(figures)),
    },
    notes,
  };
}
