/**
 * How noisy the machine was while a run measured, in the spirit of `bencher noise` and
 * the Phoronix Test Suite's run-to-run deviation: the runner records CPU steal and load average
 * over the measured window, the lateness of a periodic timer during it, and the spread of a short
 * fixed CPU probe and a short I/O probe (fsync of 8 kB writes) repeated before and after it
 * (apps/runner/src/probe/noise.ts). `judgeNoise` is the one place a run is called noisy: the
 * results database, the API, the site and the runner's report all ask it.
 */
import { z } from 'zod';
import { finiteNumber } from './primitives.ts';

const nonNegative = finiteNumber.refine((x) => x >= 0, 'must not be negative');
const percent = nonNegative.refine((x) => x <= 100, 'must be a percentage (0–100)');
const durationsMs = z.array(nonNegative).min(1).max(100);

/** A short probe repeated before and after the measured window: each repetition's wall time (ms) and their CV. */
const ProbeRuns = z.strictObject({
  /** Wall time of each repetition in ms, the ones before the window first. */
  runsMs: durationsMs,
  /** Coefficient of variation of `runsMs` (sd / mean × 100; sample sd); null with one repetition. */
  cvPct: nonNegative.nullable(),
});

export const RunNoise = z.strictObject({
  /** Seconds from the start to the end of the measured window (the probes are outside it). */
  windowSeconds: nonNegative,
  /** logical CPUs of the machine, to read the load per core. */
  logicalCpus: z.number().int().min(1).max(100_000),
  /** Share of CPU time the hypervisor gave to other guests over the window (/proc/stat `steal`); null off Linux. */
  cpuStealPct: percent.nullable(),
  /** The 1-minute load average read every tick of the window: its mean and largest value; null where the OS has none. */
  loadAverage: z.strictObject({ mean: nonNegative, max: nonNegative }).nullable(),
  /** How late a 100 ms timer fired during the window (ms): median, 99th percentile, largest, and how many ticks. */
  timerLatenessMs: z
    .strictObject({
      p50: nonNegative,
      p99: nonNegative,
      max: nonNegative,
      ticks: z.number().int().min(1),
    })
    .nullable(),
  /**
   * A fixed CPU workload; `cpuSharePct` = CPU time ÷ wall time of its repetitions (100 = it always
   * had a core); `robustCvPct` = 1.4826 × MAD ÷ median of `runsMs` × 100 (stats'
   * robustCoefficientOfVariation), the spread of most repetitions, which one slow repetition (a
   * garbage collection, a page fault) moves little. Absent from runs recorded before 2026-11-29.
   */
  cpuProbe: ProbeRuns.extend({ cpuSharePct: nonNegative.max(1000), robustCvPct: nonNegative.nullable().optional() }),
  /** Writes of 8 kB each followed by fsync, in a file on the server's data directory's filesystem or the temp directory; null when it could not write. */
  ioProbe: ProbeRuns.extend({
    writesPerRun: z.number().int().min(1).max(1000),
    where: z.enum(['data-directory-filesystem', 'temp-directory']),
  }).nullable(),
  /** Seconds the probes before and after the window took (what measuring the noise added to the run). */
  overheadSeconds: nonNegative,
});
export type RunNoise = z.infer<typeof RunNoise>;

/**
 * Above any of these a run is flagged noisy. Reasoning (apps/runner/README.md says the same):
 * - steal > 5 %: the hypervisor withheld more than one CPU-second in twenty from this machine; a
 *   timed block then measures the neighbours as much as the database.
 * - load per core > 1.5: a run keeps about one thread runnable (runner and server take turns), so
 *   a quiet machine sits near 1 ÷ cores; above 1.5 per core others queue for every core.
 * - CPU probe spread > 10 %: a fixed deterministic workload on an idle core repeats within a few
 *   percent (PTS reruns a test above 3.5 % deviation; we allow for short probes' granularity). The
 *   spread is the robust CV when the run recorded it, else the CV: of eight repetitions of ~17 ms,
 *   one slowed by 5 ms (the runner's own garbage collection) makes a CV of 10 % on a quiet 2-core
 *   machine, where the robust CV stays near 1 %; a machine busy with other work slows most of them.
 * - CPU share < 80 %: the probe waited for a CPU more than a fifth of its wall time.
 * - timer p99 lateness > 20 ms: the scheduler let a waiting thread wait more than a time slice.
 * - I/O probe CV > 100 %: fsync latency varies a lot even on a quiet disk (virtual disks, write
 *   caches); beyond a standard deviation of once the mean, the disk is shared with other writers.
 */
export const NOISE_THRESHOLDS = {
  cpuStealPct: 5,
  loadPerCore: 1.5,
  cpuProbeCvPct: 10,
  cpuSharePct: 80,
  timerP99Ms: 20,
  ioProbeCvPct: 100,
} as const;

export type NoiseJudgement = {
  noisy: boolean;
  /** What was above its threshold, in words ("load 2.6 per core > 1.5"); empty for a quiet run. */
  reasons: string[];
};

const fmt = (x: number, digits = 1) => x.toFixed(digits);

/** Whether a run's noise figures are above any threshold of NOISE_THRESHOLDS, and which. */
export function judgeNoise(n: RunNoise): NoiseJudgement {
  const t = NOISE_THRESHOLDS;
  const reasons: string[] = [];
  if (n.cpuStealPct !== null && n.cpuStealPct > t.cpuStealPct)
    reasons.push(`CPU steal ${fmt(n.cpuStealPct)} % > ${t.cpuStealPct} %`);
  if (n.loadAverage !== null && n.loadAverage.mean / n.logicalCpus > t.loadPerCore)
    reasons.push(`load ${fmt(n.loadAverage.mean / n.logicalCpus, 2)} per core > ${t.loadPerCore}`);
  const robust = n.cpuProbe.robustCvPct;
  if (robust !== undefined) {
    if (robust !== null && robust > t.cpuProbeCvPct)
      reasons.push(`CPU probe robust CV ${fmt(robust)} % > ${t.cpuProbeCvPct} %`);
  } else if (n.cpuProbe.cvPct !== null && n.cpuProbe.cvPct > t.cpuProbeCvPct)
    reasons.push(`CPU probe CV ${fmt(n.cpuProbe.cvPct)} % > ${t.cpuProbeCvPct} %`);
  if (n.cpuProbe.cpuSharePct < t.cpuSharePct)
    reasons.push(`CPU probe on a CPU ${fmt(n.cpuProbe.cpuSharePct, 0)} % of its time < ${t.cpuSharePct} %`);
  if (n.timerLatenessMs !== null && n.timerLatenessMs.p99 > t.timerP99Ms)
    reasons.push(`timer p99 late by ${fmt(n.timerLatenessMs.p99)} ms > ${t.timerP99Ms} ms`);
  if (n.ioProbe?.cvPct != null && n.ioProbe.cvPct > t.ioProbeCvPct)
    reasons.push(`I/O probe CV ${fmt(n.ioProbe.cvPct)} % > ${t.ioProbeCvPct} %`);
  return { noisy: reasons.length > 0, reasons };
}

/** A run's noise as run details show it: the figures, and the flag with its reasons (judgeNoise). */
export const RunNoiseDetail = z.object({
  ...RunNoise.shape,
  noisy: z.boolean(),
  reasons: z.array(z.string()),
});
export type RunNoiseDetail = z.infer<typeof RunNoiseDetail>;

/** The stored figures with their judgement; null when the run has none (or they no longer parse). */
export function noiseDetailOf(raw: unknown): RunNoiseDetail | null {
  const n = readNoise(raw);
  return n ? { ...n, ...judgeNoise(n) } : null;
}

/** `noisy` on answers and comparisons: `include` (the API's default) pools flagged runs and counts them; `exclude` leaves out those measured without paired blocks. */
export const NoisyPolicy = z.enum(['include', 'exclude']);
export type NoisyPolicy = z.infer<typeof NoisyPolicy>;

/** The runs behind a group or answer and how many of them were flagged noisy. */
export const NoiseCounts = z.object({
  /** Whether flagged runs were pooled (`include`) or left out (`exclude`). */
  policy: NoisyPolicy,
  /** Runs the figures drew on (= runCount) and how many of those were flagged noisy. */
  runs: z.number().int(),
  noisy: z.number().int(),
  /** Runs that recorded no noise figures (from before they were measured, or an article's). */
  unmeasured: z.number().int(),
  /** Runs left out because they were flagged noisy (`noisy=exclude`). */
  excluded: z.number().int(),
  /**
   * Of the `noisy` runs, those measured in paired blocks: each block runs every variant back to back,
   * so a noisy moment slows both sides of its ratios and the verdict's interval carries the noise.
   * They count under either policy; `exclude` leaves out only noisy runs without blocks.
   */
  paired: z.number().int(),
});
export type NoiseCounts = z.infer<typeof NoiseCounts>;

/** The counts in words: "3 runs, 1 flagged noisy (pooled); 2 noisy runs left out; 1 without noise figures". */
export function describeNoiseCounts(c: NoiseCounts): string {
  const runs = (n: number) => `${n} ${n === 1 ? 'run' : 'runs'}`;
  const parts = [
    `${runs(c.runs)}, ${c.noisy} flagged noisy${c.noisy === 0 ? '' : c.paired === c.noisy ? ' (in paired blocks: counted, their intervals carry the noise)' : ' (pooled)'}`,
    c.excluded > 0 ? `${c.excluded} noisy ${c.excluded === 1 ? 'run' : 'runs'} left out` : null,
    c.unmeasured > 0 ? `${c.unmeasured} without noise figures` : null,
  ];
  return parts.filter((x) => x !== null).join('; ');
}

/** One line for a run page, a report or an answer card: the figures and the flag. */
export function describeNoise(n: RunNoise): string {
  const j = judgeNoise(n);
  const parts = [
    n.cpuStealPct !== null ? `steal ${fmt(n.cpuStealPct)} %` : null,
    n.loadAverage !== null
      ? `load ${fmt(n.loadAverage.mean, 2)} (${fmt(n.loadAverage.mean / n.logicalCpus, 2)} per core, max ${fmt(n.loadAverage.max, 2)})`
      : null,
    n.timerLatenessMs !== null ? `timer late p99 ${fmt(n.timerLatenessMs.p99)} ms` : null,
    `CPU probe CV ${n.cpuProbe.cvPct === null ? 'n/a' : `${fmt(n.cpuProbe.cvPct)} %`}${
      n.cpuProbe.robustCvPct == null ? '' : ` (robust ${fmt(n.cpuProbe.robustCvPct)} %)`
    }, on CPU ${fmt(n.cpuProbe.cpuSharePct, 0)} %`,
    n.ioProbe ? `fsync probe CV ${n.ioProbe.cvPct === null ? 'n/a' : `${fmt(n.ioProbe.cvPct)} %`}` : 'no fsync probe',
  ].filter((x): x is string => x !== null);
  return `${j.noisy ? `noisy (${j.reasons.join('; ')})` : 'quiet'}: ${parts.join(', ')}; probes took ${fmt(n.overheadSeconds, 2)} s`;
}

/** A stored run's noise as the reader finds it: the figures, or null when absent or unreadable. */
export function readNoise(raw: unknown): RunNoise | null {
  if (raw === null || raw === undefined) return null;
  const parsed = RunNoise.safeParse(raw);
  return parsed.success ? parsed.data : null;
}
