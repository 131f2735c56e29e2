/**
 * `tunelab probe` and the probe before every run: measures the disk under a directory (fsync
 * latency, O_DIRECT random reads at queue depth 1 and 16, sequential writes) on one temporary file,
 * removed at the end, and a single-core CPU score — about 5 s in all, at most ~10 s (every step has
 * a time cap). fio measures the disk when it is on PATH (disk-fio.ts), else the runner's own probe
 * (disk-node.ts); the figures name which did.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MeasuredHardware } from '@tunelab/contracts';
import { CPU_WORKLOAD, measureCpuScore } from './cpu-score.ts';
import type { DiskFigures } from './disk-figures.ts';
import { fioVersion, measureDiskWithFio } from './disk-fio.ts';
import type { Wrap } from './disk-figures.ts';
import { measureDiskWithNode } from './disk-node.ts';

export type DiskTool = 'auto' | 'fio' | 'node';

/** A directory the probe cannot write in; the CLI says it in one sentence (exit 2). */
export class ProbeDirError extends Error {
  override name = 'ProbeDirError';
}

/** 64 MiB: large enough that reads spread over 8,192 blocks, small enough to write in ≤ 2 s on a slow disk. */
const FILE_BYTES = 64 * 1024 * 1024;

function checkDirectory(dir: string): void {
  let st;
  try {
    st = statSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ProbeDirError(
      code === 'ENOENT' ? `${dir} does not exist` : `${dir} cannot be read (${code ?? (e as Error).message})`,
    );
  }
  if (!st.isDirectory()) throw new ProbeDirError(`${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new ProbeDirError(`${dir} is not writable by this user: the probe writes a temporary file there`);
  }
}

export type MeasureOptions = {
  dir: string;
  /** auto (default): fio when on PATH, else the runner's probe. */
  tool?: DiskTool;
  fileBytes?: number;
  /**
   * Runs the disk probe inside a resource envelope (envelope.ts `wrap`): the figures are the
   * envelope's. With fio all of them; the runner's own probe only its random reads (a child
   * process), said in its notes.
   */
  wrap?: Wrap;
};

/** Measures the disk under `opts.dir` and this CPU. Throws ProbeDirError for a directory it cannot use. */
export async function measureHardware(opts: MeasureOptions): Promise<MeasuredHardware> {
  checkDirectory(opts.dir);
  const started = performance.now();
  const measuredAt = new Date().toISOString();
  const loadAverage1m = os.platform() === 'win32' ? null : Math.round(os.loadavg()[0]! * 100) / 100;
  const tool = opts.tool ?? 'auto';
  const fio = tool === 'node' ? null : await fioVersion();
  if (tool === 'fio' && !fio) throw new ProbeDirError('fio is not on PATH (Debian/Ubuntu: apt-get install fio)');
  const file = path.join(opts.dir, `.tunelab-probe-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const remove = () => rmSync(file, { force: true });
  process.once('exit', remove); // Ctrl-C or a crash mid-probe still removes the file
  let disk: DiskFigures;
  let diskTool = fio ?? 'tunelab-node';
  const fileBytes = opts.fileBytes ?? FILE_BYTES;
  try {
    if (fio) {
      try {
        disk = await measureDiskWithFio(file, fileBytes, opts.wrap);
      } catch (e) {
        if (tool === 'fio') throw e;
        const why = ((e as { stderr?: string }).stderr || (e as Error).message).trim().split('\n')[0] ?? '';
        disk = await measureDiskWithNode(file, fileBytes, opts.wrap);
        disk.notes.unshift(`${fio} failed (${why.slice(0, 200)}): measured by the runner instead`);
        diskTool = 'tunelab-node';
      }
    } else disk = await measureDiskWithNode(file, fileBytes, opts.wrap);
  } finally {
    remove();
    process.off('exit', remove);
  }
  const { notes, ...figures } = disk;
  const cpuScore = measureCpuScore();
  return MeasuredHardware.parse({
    measuredAt,
    durationMs: Math.round(performance.now() - started),
    diskTool,
    ...figures,
    cpuScore,
    cpuWorkload: CPU_WORKLOAD,
    loadAverage1m,
    logicalCpus: os.availableParallelism(),
    notes,
  });
}

/**
 * Where the probe before a run writes: a writable directory on the data directory's filesystem —
 * its parent (so nothing lands among the server's files), the temp dir when it is on the same
 * filesystem, else the data directory itself. Null when none is (the runner cannot write there).
 */
export function probeDirectoryFor(dataDirectory: string): string | null {
  let dev: number;
  try {
    dev = statSync(dataDirectory).dev;
  } catch {
    return null;
  }
  for (const dir of [path.dirname(dataDirectory), os.tmpdir(), dataDirectory]) {
    try {
      if (statSync(dir).dev !== dev) continue;
      checkDirectory(dir);
      return dir;
    } catch {
      continue;
    }
  }
  return null;
}
