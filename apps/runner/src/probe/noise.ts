/**
 * How noisy this machine is while a run measures (contracts' noise.ts holds the shape,
 * the thresholds and the flag). Before and after the measured window: a fixed CPU workload and
 * 8 kB writes each followed by fsync, repeated; during it: CPU steal (/proc/stat), the 1-minute
 * load average and the lateness of a 100 ms timer. The probes take a few tenths of a second on an
 * idle machine and about 2 s at most under heavy load (`overheadSeconds` says how long they
 * took; `runsMs` how many ran); nothing here can fail a run — a probe
 * that cannot run is left out and said in a warning.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RunNoise } from '@tunelab/contracts';
import { coefficientOfVariation, robustCoefficientOfVariation } from '@tunelab/stats';

/**
 * Repetitions of each probe before the window and again after it: up to PROBE_RUNS, fewer (never
 * under MIN_PROBE_RUNS) once a side has spent PROBE_BUDGET_MS — half of it for the CPU probe — so
 * a machine at load 20 (where one CPU probe took 300 ms) still spends about 2 s in all.
 */
const PROBE_RUNS = 4;
const MIN_PROBE_RUNS = 2;
const PROBE_BUDGET_MS = 800;
/** Iterations of the CPU workload: ~15 ms of CPU on this 2-core VM. */
const CPU_ITERATIONS = 1_000_000;
const IO_WRITES = 4;
const IO_BLOCK = 8192;
const TICK_MS = 100;

/**
 * A fixed, deterministic CPU workload (xorshift32 and integer mixing, no allocation, no I/O): the
 * same instructions every time, so the spread of its wall time is the machine's, not its. Answers
 * a checksum so the loop cannot be optimised away. Not the hardware probe's score workload
 * (cpu-score.ts): that one sorts a typed array, and its wall time spread 2–10× more side by side
 * (CV 42–76 % against 7–23 % at load 2.5–2.9), which would flag quiet runs as noisy.
 */
export function cpuWorkload(iterations: number = CPU_ITERATIONS): number {
  let x = 2463534242;
  let acc = 0;
  for (let i = 0; i < iterations; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    acc = (acc + (x >>> 0) * 31) % 1_000_000_007;
  }
  return acc;
}

type CpuRun = { wallMs: number; cpuMs: number };

function runCpuProbe(): CpuRun {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  cpuWorkload();
  const wallMs = performance.now() - t0;
  const d = process.cpuUsage(cpu0);
  return { wallMs, cpuMs: (d.user + d.system) / 1000 };
}

/** IO_WRITES writes of 8 kB, each followed by fsync, into `file`: the wall time in ms. */
async function runIoProbe(file: string): Promise<number> {
  const block = Buffer.alloc(IO_BLOCK, 0x5a);
  const fh = await open(file, 'w');
  try {
    const t0 = performance.now();
    for (let i = 0; i < IO_WRITES; i++) {
      await fh.write(block, 0, IO_BLOCK, i * IO_BLOCK);
      await fh.sync();
    }
    return performance.now() - t0;
  } finally {
    await fh.close();
  }
}

/** Sample CV in percent (sd with n − 1); null below two values. */
function cvPercent(xs: readonly number[]): number | null {
  if (xs.length < 2 || xs.reduce((a, b) => a + b, 0) <= 0) return null;
  return coefficientOfVariation(xs) * 100;
}

/** 1.4826 × MAD ÷ median in percent (stats' robustCoefficientOfVariation); null below two values or with a median of 0. */
function robustCvPercent(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  try {
    return robustCoefficientOfVariation(xs) * 100;
  } catch (e) {
    if (e instanceof RangeError) return null;
    throw e;
  }
}

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

async function readSteal(): Promise<{ steal: number; total: number } | null> {
  if (process.platform !== 'linux') return null;
  try {
    const line = (await readFile('/proc/stat', 'utf8')).split('\n').find((l) => l.startsWith('cpu '));
    if (!line) return null;
    // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user/nice)
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    return { steal: f[7] ?? 0, total: f.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/** Where the fsync probe writes: a temp folder beside the server's data directory (same filesystem) when it can, else the OS temp directory. */
async function probeDirectory(
  dataDirectory: string | null,
): Promise<{ dir: string; where: 'data-directory-filesystem' | 'temp-directory' } | null> {
  if (dataDirectory) {
    const dir = await mkdtemp(path.join(path.dirname(dataDirectory), '.tunelab-noise-')).catch(() => null);
    if (dir) return { dir, where: 'data-directory-filesystem' };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tunelab-noise-')).catch(() => null);
  return dir ? { dir, where: 'temp-directory' } : null;
}

type Probes = { cpu: CpuRun[]; io: number[] | null; seconds: number };

async function runProbes(file: string | null): Promise<Probes> {
  const t0 = performance.now();
  cpuWorkload(CPU_ITERATIONS / 10); // compiled before it is timed
  const spent = (share: number) => performance.now() - t0 > PROBE_BUDGET_MS * share;
  const cpu: CpuRun[] = [];
  for (let i = 0; i < PROBE_RUNS && (i < MIN_PROBE_RUNS || !spent(0.5)); i++) cpu.push(runCpuProbe());
  let io: number[] | null = null;
  if (file) {
    io = [];
    for (let i = 0; i < PROBE_RUNS && (i < MIN_PROBE_RUNS || !spent(1)); i++) io.push(await runIoProbe(file));
  }
  return { cpu, io, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Runs `measure` inside a noise watch: probes before, steal/load/timer during, probes after.
 * Answers what `measure` answered and the run's noise figures (null if even the CPU probe could
 * not run). A failure of `measure` is passed on once the watch has stopped.
 */
export async function watchNoise<T>(
  dataDirectory: string | null,
  measure: () => Promise<T>,
  warn: (message: string) => void = () => {},
): Promise<[T, RunNoise | null]> {
  const where = await probeDirectory(dataDirectory);
  const file = where ? path.join(where.dir, 'probe') : null;
  if (!where) warn('noise: could not create a folder for the fsync probe; the run records no I/O spread');
  let before: Probes | null = null;
  try {
    before = await runProbes(file);
  } catch (e) {
    warn(`noise: the probes before the run failed (${(e as Error).message}); the run records no noise`);
  }

  const loads: number[] = [];
  const lateness: number[] = [];
  let expected = performance.now() + TICK_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    lateness.push(Math.max(0, now - expected));
    expected = now + TICK_MS;
    if (process.platform !== 'win32') loads.push(os.loadavg()[0] ?? 0);
  }, TICK_MS);
  const steal0 = await readSteal();
  const w0 = performance.now();
  let result: T;
  try {
    result = await measure();
  } finally {
    clearInterval(timer);
  }
  const windowSeconds = (performance.now() - w0) / 1000;
  const steal1 = await readSteal();

  let after: Probes | null = null;
  if (before) {
    try {
      after = await runProbes(file);
    } catch (e) {
      warn(`noise: the probes after the run failed (${(e as Error).message}); the run records no noise`);
    }
  }
  if (where) await rm(where.dir, { recursive: true, force: true }).catch(() => {});
  if (!before || !after) return [result, null];

  const cpuRuns = [...before.cpu, ...after.cpu];
  const cpuWallMs = cpuRuns.map((r) => r.wallMs);
  const cpuWall = cpuRuns.reduce((a, r) => a + r.wallMs, 0);
  const cpuTime = cpuRuns.reduce((a, r) => a + r.cpuMs, 0);
  const ioRuns = before.io && after.io ? [...before.io, ...after.io] : null;
  const sortedLate = [...lateness].sort((a, b) => a - b);
  const stealTotal = steal0 && steal1 ? steal1.total - steal0.total : 0;
  const round = (x: number, digits = 3) => Number(x.toFixed(digits));
  const noise: RunNoise = {
    windowSeconds: round(windowSeconds),
    logicalCpus: os.availableParallelism(),
    cpuStealPct: steal0 && steal1 && stealTotal > 0 ? round(((steal1.steal - steal0.steal) / stealTotal) * 100) : null,
    loadAverage:
      loads.length > 0
        ? { mean: round(loads.reduce((a, b) => a + b, 0) / loads.length), max: round(Math.max(...loads)) }
        : null,
    timerLatenessMs:
      sortedLate.length > 0
        ? {
            p50: round(quantile(sortedLate, 0.5)),
            p99: round(quantile(sortedLate, 0.99)),
            max: round(sortedLate[sortedLate.length - 1]!),
            ticks: sortedLate.length,
          }
        : null,
    cpuProbe: {
      runsMs: cpuWallMs.map((x) => round(x)),
      cvPct: nullableRound(cvPercent(cpuWallMs)),
      robustCvPct: nullableRound(robustCvPercent(cpuWallMs)),
      cpuSharePct: round(Math.min(1000, cpuWall > 0 ? (cpuTime / cpuWall) * 100 : 100), 1),
    },
    ioProbe:
      ioRuns && where
        ? {
            runsMs: ioRuns.map((x) => round(x)),
            cvPct: nullableRound(cvPercent(ioRuns)),
            writesPerRun: IO_WRITES,
            where: where.where,
          }
        : null,
    overheadSeconds: round(before.seconds + after.seconds),
  };
  return [result, noise];
}

const nullableRound = (x: number | null) => (x === null ? null : Number(x.toFixed(3)));
