/**
 * The disk figures measured by fio (https://fio.readthedocs.io), when `fio` is on PATH. Two fio
 * processes, each job after the previous one (`--stonewall`), on one temporary file:
 *  1. `seqwrite`: 1 MiB O_DIRECT writes of up to FILE_BYTES, at most 1.5 s, then fsync → MB/s;
 *     `fsync`: 8 kB buffered writes over the written start of the file, each followed by
 *     fdatasync, at most 0.75 s → fio's sync latency percentiles (p50, p99).
 *  2. `qd1`: random 8 kB O_DIRECT reads (psync, one in flight) for 0.75 s; `qd16`: the same through
 *     libaio with 16 in flight, 0.75 s — both over the bytes step 1 wrote, never over unwritten
 *     (preallocated) extents, which the filesystem answers with zeros without reading the disk.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { DiskFigures, Wrap } from './disk-figures.ts';
import { PROBE_NICE } from './disk-node.ts';
import {
  bestQuartile,
  measureWindowed,
  medianBusy,
  retriedLabels,
  WINDOW_PLAN,
  type WindowedFigure,
} from './windows.ts';

const run = promisify(execFile);
const MIB = 1024 * 1024;

type FioJob = {
  jobname: string;
  error: number;
  job_runtime: number;
  read: { iops: number; io_bytes: number };
  write: { iops: number; io_bytes: number; bw_bytes: number };
  sync?: { lat_ns: { N: number; percentile?: Record<string, number> } };
};

/** `fio-3.33`, or null when fio is not on PATH (or does not answer). */
export async function fioVersion(): Promise<string | null> {
  try {
    const { stdout } = await run('fio', ['--version'], { timeout: 5_000 });
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

async function fio(args: string[], timeoutMs: number, wrap?: Wrap): Promise<FioJob[]> {
  const argv = ['fio', '--output-format=json', ...args];
  const [file, ...rest] = wrap ? wrap(argv) : argv;
  const { stdout } = await run(file!, rest, {
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 16 * MIB,
  });
  // fio may print notes before the JSON document.
  const doc = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { jobs: FioJob[] };
  const failed = doc.jobs.find((j) => j.error !== 0);
  if (failed) throw new Error(`fio job ${failed.jobname} failed with error ${failed.error}`);
  return doc.jobs;
}

/** Window time caps (ms), as the runner's own probe: sequential writes, fsync, random reads. */
const WINDOW_MS = { seqWrite: 300, fsync: 140, read: 140 } as const;

type Kind = 'seqwrite' | 'fsync' | 'qd1' | 'qd16';

/** The options of one window's fio job of `kind` (after the shared ones). */
function jobOf(kind: Kind, fileBytes: number, written: number): string[] {
  switch (kind) {
    case 'seqwrite':
      return [
        '--rw=write',
        '--bs=1m',
        '--direct=1',
        `--size=${fileBytes}`,
        `--runtime=${WINDOW_MS.seqWrite}ms`,
        '--end_fsync=1',
      ];
    case 'fsync':
      return ['--rw=write', '--bs=8k', '--direct=0', '--size=8m', '--fdatasync=1', `--runtime=${WINDOW_MS.fsync}ms`];
    case 'qd1':
      return [
        '--rw=randread',
        '--bs=8k',
        '--direct=1',
        `--size=${written}`,
        '--time_based',
        `--runtime=${WINDOW_MS.read}ms`,
      ];
    case 'qd16':
      return [...jobOf('qd1', fileBytes, written), '--ioengine=libaio', '--iodepth=16'];
  }
}

/**
 * Windows of one figure in one fio process: n jobs of `kind`, each after the previous one
 * (`--stonewall`), each job one window. The CPU share per window is not known (null): fio runs them
 * all in one process.
 */
async function fioWindows(
  kind: Kind,
  n: number,
  common: string[],
  sizes: { fileBytes: number; written: number },
  wrap?: Wrap,
): Promise<FioJob[]> {
  const jobs = Array.from({ length: n }, (_, i) => [
    `--name=${kind}-${i}`,
    ...(i > 0 ? ['--stonewall'] : []),
    ...jobOf(kind, sizes.fileBytes, sizes.written),
  ]).flat();
  return fio([...common, ...jobs], 20_000, wrap);
}

/**
 * Every figure is the best quartile of WINDOW_PLAN.windows short windows (windows.ts), each figure's
 * windows one fio process, the noisy ones measured again by one more.
 */
export async function measureDiskWithFio(file: string, fileBytes: number, wrap?: Wrap): Promise<DiskFigures> {
  const notes: string[] = [];
  // Ahead of ordinary processes where allowed (root): a disk figure should not wait on the scheduler.
  const nice = process.getuid?.() === 0 ? [`--nice=${PROBE_NICE}`] : [];
  const common = [`--filename=${file}`, '--ioengine=psync', '--thread', '--group_reporting=0', ...nice];
  let written = 0;
  const sizes = { fileBytes, written: 0 };
  const seqWrite = await measureWindowed(async (indices) => {
    const jobs = await fioWindows('seqwrite', indices.length, common, sizes, wrap);
    return jobs.map((j) => {
      written = Math.max(written, Math.floor(j.write.io_bytes / MIB) * MIB);
      return {
        value: j.job_runtime > 0 && j.write.io_bytes > 0 ? j.write.io_bytes / 1e6 / (j.job_runtime / 1000) : null,
        busy: null,
      };
    });
  }, 'higher');
  const p99s: (number | undefined)[] = [];
  let fsyncSamples = 0;
  const pct = (j: FioJob, key: string) => {
    const v = j.sync?.lat_ns.percentile?.[key];
    return v === undefined ? null : v / 1000;
  };
  const fsync = await measureWindowed(async (indices) => {
    const jobs = await fioWindows('fsync', indices.length, common, sizes, wrap);
    return jobs.map((j, k) => {
      p99s[indices[k]!] = pct(j, '99.000000') ?? undefined;
      fsyncSamples += j.sync?.lat_ns.N ?? 0;
      return { value: pct(j, '50.000000'), busy: null };
    });
  }, 'lower');
  let qd1: WindowedFigure | null = null;
  let qd16: WindowedFigure | null = null;
  if (written < 8 * MIB)
    notes.push(`only ${written} bytes written in ${WINDOW_MS.seqWrite} ms: random reads not measured`);
  else {
    sizes.written = written;
    const reads = (kind: 'qd1' | 'qd16') =>
      measureWindowed(async (indices) => {
        const jobs = await fioWindows(kind, indices.length, common, sizes, wrap);
        return jobs.map((j) => ({ value: j.read.iops > 0 ? j.read.iops : null, busy: null }));
      }, 'higher');
    qd1 = await reads('qd1');
    qd16 = await reads('qd16');
  }
  const p99 = bestQuartile(
    p99s.filter((x): x is number => x !== undefined),
    'lower',
  );
  const figures = { seqWrite, fsync, readQd1: qd1, readQd16: qd16 };
  return {
    fsyncP50Us: fsync.value,
    fsyncP99Us: fsync.value === null || p99 === null ? null : Math.max(fsync.value, p99),
    fsyncSamples,
    readIopsQd1: qd1?.value ?? null,
    readIopsQd16: qd16?.value ?? null,
    seqWriteMBps: seqWrite.value,
    windows: {
      perFigure: WINDOW_PLAN.windows,
      retried: retriedLabels(figures),
      cpuBusy: medianBusy(Object.values(figures)),
    },
    notes,
  };
}
