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
import { execFile } from 'node:child_process';
import { closeSync, constants, fdatasyncSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import * as hdr from 'hdr-histogram-js';
import type { DiskFigures, Wrap } from './disk-figures.ts';

const run = promisify(execFile);
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

function writeSequential(
  file: string,
  fileBytes: number,
  notes: string[],
): { written: number; mbps: number | null; direct: boolean } {
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
  const start = performance.now();
  let written = 0;
  try {
    while (written < fileBytes && performance.now() - start < 1_500) {
      written += writeSync(fd, chunk, 0, MIB, written);
    }
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const seconds = (performance.now() - start) / 1000;
  return { written, mbps: written > 0 ? written / 1e6 / seconds : null, direct: fd === direct };
}

function timeFsync(file: string, written: number) {
  const fd = openSync(file, 'r+');
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
  });
  const block = Buffer.alloc(BLOCK, 7);
  const span = Math.max(1, Math.min(1024, Math.floor(written / BLOCK)));
  try {
    const start = performance.now();
    for (let i = 0; performance.now() - start < 750 && i < 10_000; i++) {
      writeSync(fd, block, 0, BLOCK, (i % span) * BLOCK);
      const t = process.hrtime.bigint();
      fdatasyncSync(fd);
      h.recordValue(Math.max(1, Math.round(Number(process.hrtime.bigint() - t) / 1000)));
    }
    return h.totalCount
      ? { fsyncP50Us: h.getValueAtPercentile(50), fsyncP99Us: h.getValueAtPercentile(99), fsyncSamples: h.totalCount }
      : { fsyncP50Us: null, fsyncP99Us: null, fsyncSamples: 0 };
  } finally {
    h.destroy();
    closeSync(fd);
  }
}

/**
 * The child that reads: plain ESM, given the file, its size in blocks and the duration per depth.
 * Each chain owns an aligned 8 kB window; offsets come from a xorshift generator per chain.
 */
const READER = `
import { open } from 'node:fs/promises';
import { constants, readSync } from 'node:fs';
const [file, blocksArg, msArg] = process.argv.slice(1);
const blocks = Number(blocksArg), ms = Number(msArg);
const fh = await open(file, constants.O_RDONLY | constants.O_DIRECT);
async function aligned() {
  const raw = Buffer.allocUnsafeSlow(8192 + 4096);
  for (let at = 0; at < 4096; at += 16) {
    const w = raw.subarray(at, at + 8192);
    try { await fh.read(w, 0, 8192, 0); return w; } catch (e) { if (e.code !== 'EINVAL') throw e; }
  }
  throw new Error('no aligned buffer for O_DIRECT');
}
// Queue depth 1 is one blocking pread after another on this thread (fio's psync): no hand-off to
// the thread pool and back per read, which on a loaded machine waits for a CPU twice.
async function depth1() {
  const w = await aligned();
  let done = 0, x = 2654435761;
  const start = performance.now(), end = start + ms;
  while (performance.now() < end) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    readSync(fh.fd, w, 0, 8192, (x % blocks) * 8192);
    done++;
  }
  return done / ((performance.now() - start) / 1000);
}
async function depth(n) {
  const windows = [];
  for (let i = 0; i < n; i++) windows.push(await aligned());
  let done = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  await Promise.all(windows.map(async (w, c) => {
    let x = (c + 1) * 2654435761 >>> 0 || 1;
    while (performance.now() < end) {
      x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
      await fh.read(w, 0, 8192, (x % blocks) * 8192);
      done++;
    }
  }));
  return done / ((performance.now() - start) / 1000);
}
const qd1 = await depth1();
const qd16 = await depth(16);
await fh.close();
process.stdout.write(JSON.stringify({ qd1, qd16 }));
`;

async function randomReads(file: string, written: number, notes: string[], wrap?: Wrap) {
  const blocks = Math.floor(written / BLOCK);
  const argv = [process.execPath, '--input-type=module', '-e', READER, file, String(blocks), '750'];
  const [command, ...args] = wrap ? wrap(argv) : argv;
  try {
    const { stdout } = await run(command!, args, {
      env: { PATH: process.env.PATH ?? '', UV_THREADPOOL_SIZE: '16' },
      timeout: 15_000,
      killSignal: 'SIGKILL',
    });
    const r = JSON.parse(stdout) as { qd1: number; qd16: number };
    return { readIopsQd1: r.qd1 > 0 ? r.qd1 : null, readIopsQd16: r.qd16 > 0 ? r.qd16 : null };
  } catch (e) {
    const message = ((e as { stderr?: string }).stderr || (e as Error).message).trim().split('\n').pop() ?? '';
    notes.push(`random reads not measured: ${message.slice(0, 300)}`);
    return { readIopsQd1: null, readIopsQd16: null };
  }
}

/**
 * `wrap` (a resource envelope's): the random reads run inside it (they are a child process), so a
 * read limit shows in the figures and the tier; the writes and fsyncs run in the runner's own
 * process, outside it, and say so.
 */
export async function measureDiskWithNode(file: string, fileBytes: number, wrap?: Wrap): Promise<DiskFigures> {
  const notes: string[] = ['measured by the runner, not fio: 16 reads in flight are 16 threads of blocking pread'];
  if (wrap)
    notes.push(
      'inside the envelope: the random reads only; sequential writes and fsync ran outside it (install fio to measure them inside)',
    );
  const seq = writeSequential(file, fileBytes, notes);
  const fsync = timeFsync(file, seq.written);
  let reads: Pick<DiskFigures, 'readIopsQd1' | 'readIopsQd16'> = { readIopsQd1: null, readIopsQd16: null };
  if (seq.written < 8 * MIB) notes.push(`only ${seq.written} bytes written in 1.5 s: random reads not measured`);
  else if (seq.direct) reads = await randomReads(file, seq.written, notes, wrap);
  return { ...fsync, ...reads, seqWriteMBps: seq.mbps, notes };
}
