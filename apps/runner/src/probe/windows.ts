/**
 * A disk figure measured in several short windows instead of one long one: a busy
 * moment (a backup, a test suite, a neighbour VM) slows some windows, not the disk. Each figure
 * keeps the best quartile of its windows — the lowest-latency quartile of fsync, the highest of
 * IOPS and MB/s — which is what the disk can do, not what one moment left of it. A window that is
 * noisy (its figure more than NOISE_RULES.ratio × worse than the windows' median, or the CPUs far
 * busier during it than during the others, or no figure at all) is measured again, at most
 * WINDOW_PLAN.maxRetries windows per figure, so the probe takes about as long as one long window.
 */
import { readFileSync } from 'node:fs';
import { median, quantileSorted } from 'simple-statistics';

/** One window's figure and the share of the CPUs busy meanwhile (idle and iowait excepted), 0–1 (null: not known). */
export type WindowSample = { value: number | null; busy: number | null };

/** Which way a figure improves: fsync latency is `lower`, IOPS and MB/s `higher`. */
export type Better = 'lower' | 'higher';

export const WINDOW_PLAN = {
  /** Windows per figure. With 5 the best quartile is the second best (simple-statistics' quantile). */
  windows: 5,
  /** Windows measured again at most, per figure. */
  maxRetries: 2,
} as const;

export const NOISE_RULES = {
  /** A window this many times worse than the windows' median is noisy. */
  ratio: 2,
  /** A window during which the CPUs were busier by this share (0–1) than the median window is noisy. */
  busyAbove: 0.3,
} as const;

/** The best quartile of `values` (the lowest quartile of a latency, the highest of a throughput); null for none. */
export function bestQuartile(values: readonly number[], better: Better): number | null {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  return quantileSorted(xs, better === 'lower' ? 0.25 : 0.75);
}

/**
 * The noisy windows, worst first: no figure; a figure NOISE_RULES.ratio × worse than the median of
 * the windows' figures; a CPU share NOISE_RULES.busyAbove above the windows' median share.
 */
export function noisyWindows(samples: readonly WindowSample[], better: Better): number[] {
  const values = samples.map((s) => s.value).filter((v): v is number => v !== null && Number.isFinite(v));
  const busies = samples.map((s) => s.busy).filter((b): b is number => b !== null && Number.isFinite(b));
  const mid = values.length ? median(values) : null;
  const midBusy = busies.length ? median(busies) : null;
  // How much worse than the median a window is (1 = the median; higher = worse); Infinity: no figure.
  const badness = (s: WindowSample) =>
    s.value === null || !Number.isFinite(s.value) || s.value <= 0
      ? Infinity
      : mid === null || mid <= 0
        ? 1
        : better === 'lower'
          ? s.value / mid
          : mid / s.value;
  const noisy = samples
    .map((s, i) => ({ i, bad: badness(s) }))
    .filter(({ i, bad }) => {
      const busy = samples[i]!.busy;
      return bad > NOISE_RULES.ratio || (busy !== null && midBusy !== null && busy - midBusy > NOISE_RULES.busyAbove);
    });
  return noisy.sort((a, b) => b.bad - a.bad).map(({ i }) => i);
}

/** A figure from its windows. */
export type WindowedFigure = {
  /** The best quartile of the windows' figures; null when no window measured one. */
  value: number | null;
  /** Every window's figure, after the retries. */
  samples: WindowSample[];
  /** The windows measured again (indices into `samples`), in the order they were retried. */
  retried: number[];
};

/**
 * Measures a figure in `plan.windows` windows: `runBatch(indices)` measures the windows of those
 * indices one after another and returns their samples in order (one call for several windows, so
 * a child process starts once); the noisy windows are measured again, at most `plan.maxRetries` of
 * them, each replacing its own sample; the best quartile is kept.
 */
export async function measureWindowed(
  runBatch: (indices: number[]) => Promise<WindowSample[]>,
  better: Better,
  plan: { windows: number; maxRetries: number } = WINDOW_PLAN,
): Promise<WindowedFigure> {
  const samples = (await runBatch(Array.from({ length: plan.windows }, (_, i) => i))).slice(0, plan.windows);
  const retried: number[] = [];
  let budget = plan.maxRetries;
  while (budget > 0) {
    const noisy = noisyWindows(samples, better).slice(0, budget);
    if (noisy.length === 0) break;
    const again = (await runBatch(noisy)).slice(0, noisy.length);
    if (again.length === 0) break;
    again.forEach((sample, k) => {
      samples[noisy[k]!] = sample;
      retried.push(noisy[k]!);
    });
    budget -= again.length;
  }
  const values = samples.map((s) => s.value).filter((v): v is number => v !== null && v > 0);
  return { value: bestQuartile(values, better), samples, retried };
}

/** A batch of windows measured one after another in this process by `measure(index)`. */
export const inProcess =
  (measure: (index: number) => number | null) =>
  (indices: number[]): Promise<WindowSample[]> =>
    Promise.resolve(indices.map((i) => timedWindow(() => measure(i))));

/**
 * The CPU counters of /proc/stat: busy (everything but idle and iowait: user, system, interrupts,
 * steal) and total jiffies. A probe waiting on its own I/O is not busy; other processes' work is.
 */
export type CpuCounters = { busy: number; total: number };

/** The machine's CPU counters now, or null where /proc/stat is not (not Linux). */
export function readCpuCounters(): CpuCounters | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('cpu '));
    if (!line) return null;
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
  } catch {
    return null;
  }
}

/** The share of the CPUs busy between two readings, 0–1; null when unknown or no time passed. */
export function busyBetween(a: CpuCounters | null, b: CpuCounters | null): number | null {
  if (!a || !b || b.total <= a.total) return null;
  return Math.min(1, Math.max(0, (b.busy - a.busy) / (b.total - a.total)));
}

/** Runs `measure` as one window: its figure and the CPU share meanwhile. */
export function timedWindow(measure: () => number | null): WindowSample {
  const before = readCpuCounters();
  const value = measure();
  return { value, busy: busyBetween(before, readCpuCounters()) };
}

/** `fsync#2, readQd1#0`: the retried windows of each figure, for the figures' `windows.retried`. */
export function retriedLabels(figures: Record<string, WindowedFigure | null>): string[] {
  return Object.entries(figures).flatMap(([name, f]) => (f ? f.retried.map((i) => `${name}#${i}`) : []));
}

/** The median CPU share over every window of the figures; null when none was known. */
export function medianBusy(figures: readonly (WindowedFigure | null)[]): number | null {
  const b = figures.flatMap((f) => (f ? f.samples.map((s) => s.busy) : [])).filter((x): x is number => x !== null);
  return b.length ? Math.round(median(b) * 1000) / 1000 : null;
}
