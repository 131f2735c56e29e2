/** A run's noise figures that judgeNoise flags noisy: what a busy machine records, for the tests of runs left out. */
import type { RunNoise } from '@tunelab/contracts';

/** A CPU probe spread of 10 % (a 2-core VM beside a CI run): above its threshold, so flagged noisy. */
export const NOISY: RunNoise = {
  windowSeconds: 8,
  logicalCpus: 2,
  cpuStealPct: 1.9,
  loadAverage: { mean: 1.6, max: 1.6 },
  timerLatenessMs: { p50: 0.4, p99: 5, max: 6, ticks: 80 },
  cpuProbe: { runsMs: [26, 29, 28, 32, 25, 24, 24, 26], cvPct: 10.2, cpuSharePct: 89 },
  ioProbe: null,
  overheadSeconds: 0.25,
};
