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

export async function measureDiskWithFio(file: string, fileBytes: number, wrap?: Wrap): Promise<DiskFigures> {
  const notes: string[] = [];
  const common = [`--filename=${file}`, '--ioengine=psync', '--thread', '--group_reporting=0'];
  const [seq, sync] = await fio(
    [
      ...common,
      '--name=seqwrite',
      '--rw=write',
      '--bs=1m',
      '--direct=1',
      `--size=${fileBytes}`,
      '--runtime=1500ms',
      '--end_fsync=1',
      '--name=fsync',
      '--stonewall',
      '--rw=write',
      '--bs=8k',
      '--direct=0',
      '--size=8m',
      '--fdatasync=1',
      '--runtime=750ms',
    ],
    20_000,
    wrap,
  );
  const written = Math.floor((seq?.write.io_bytes ?? 0) / MIB) * MIB;
  const seqWriteMBps = seq && seq.job_runtime > 0 ? seq.write.io_bytes / 1e6 / (seq.job_runtime / 1000) : null;
  const pct = sync?.sync?.lat_ns.percentile ?? {};
  const us = (key: string) => (pct[key] === undefined ? null : pct[key] / 1000);
  let readIopsQd1: number | null = null;
  let readIopsQd16: number | null = null;
  if (written < 8 * MIB) notes.push(`only ${written} bytes written in 1.5 s: random reads not measured`);
  else {
    const [qd1, qd16] = await fio(
      [
        ...common,
        '--rw=randread',
        '--bs=8k',
        '--direct=1',
        `--size=${written}`,
        '--time_based',
        '--runtime=750ms',
        '--name=qd1',
        '--name=qd16',
        '--stonewall',
        '--ioengine=libaio',
        '--iodepth=16',
      ],
      20_000,
      wrap,
    );
    readIopsQd1 = qd1 && qd1.read.iops > 0 ? qd1.read.iops : null;
    readIopsQd16 = qd16 && qd16.read.iops > 0 ? qd16.read.iops : null;
  }
  return {
    fsyncP50Us: us('50.000000'),
    fsyncP99Us: us('99.000000'),
    fsyncSamples: sync?.sync?.lat_ns.N ?? 0,
    readIopsQd1,
    readIopsQd16,
    seqWriteMBps,
    notes,
  };
}
