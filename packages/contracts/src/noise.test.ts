import { describe, expect, it } from 'vitest';
import { describeNoiseCounts, judgeNoise, NOISE_THRESHOLDS, noiseDetailOf, RunNoise } from './noise.ts';

const QUIET: RunNoise = {
  windowSeconds: 12.5,
  logicalCpus: 2,
  cpuStealPct: 0.4,
  loadAverage: { mean: 1.1, max: 1.4 },
  timerLatenessMs: { p50: 0.3, p99: 2.1, max: 3, ticks: 120 },
  cpuProbe: { runsMs: [14.1, 14.3, 14.0, 14.2, 14.4, 14.1, 14.2, 14.3], cvPct: 0.9, cpuSharePct: 98.5 },
  ioProbe: { runsMs: [4, 5, 4.5, 6, 4, 5, 4.2, 4.8], cvPct: 14, writesPerRun: 4, where: 'temp-directory' },
  overheadSeconds: 0.31,
};

describe('judgeNoise', () => {
  it('calls figures under every threshold quiet', () => {
    expect(judgeNoise(RunNoise.parse(QUIET))).toEqual({ noisy: false, reasons: [] });
  });

  it('flags each figure above its threshold, saying which', () => {
    const t = NOISE_THRESHOLDS;
    const cases: [Partial<RunNoise>, RegExp][] = [
      [{ cpuStealPct: t.cpuStealPct + 0.1 }, /CPU steal 5\.1 % > 5 %/],
      [{ loadAverage: { mean: 2 * t.loadPerCore + 0.2, max: 4 } }, /load 1\.60 per core > 1\.5/],
      [{ cpuProbe: { ...QUIET.cpuProbe, cvPct: 25 } }, /CPU probe CV 25\.0 % > 10 %/],
      [{ cpuProbe: { ...QUIET.cpuProbe, cpuSharePct: 40 } }, /on a CPU 40 % of its time < 80 %/],
      [{ timerLatenessMs: { p50: 1, p99: 30, max: 40, ticks: 50 } }, /timer p99 late by 30\.0 ms > 20 ms/],
      [{ ioProbe: { ...QUIET.ioProbe!, cvPct: 150 } }, /I\/O probe CV 150\.0 % > 100 %/],
    ];
    for (const [change, reason] of cases) {
      const j = judgeNoise({ ...QUIET, ...change });
      expect(j.noisy).toBe(true);
      expect(j.reasons).toHaveLength(1);
      expect(j.reasons[0]).toMatch(reason);
    }
    // At the threshold is not above it.
    expect(judgeNoise({ ...QUIET, cpuStealPct: t.cpuStealPct }).noisy).toBe(false);
  });

  it('judges the CPU probe by its robust CV when the run recorded one, else by its CV', () => {
    // One repetition of eight slowed by 5 ms: a CV of 10.3 %, a robust CV of 1.2 % (reference.py).
    const oneSlow = { runsMs: [17.4, 17.1, 17.1, 17.1, 19.1, 16.5, 17.1, 22.1], cvPct: 10.3, cpuSharePct: 100 };
    expect(judgeNoise({ ...QUIET, cpuProbe: { ...oneSlow, robustCvPct: 1.2 } })).toEqual({ noisy: false, reasons: [] });
    expect(judgeNoise({ ...QUIET, cpuProbe: oneSlow }).reasons).toEqual(['CPU probe CV 10.3 % > 10 %']);
    // Most repetitions spread: both are high, and the robust one decides.
    expect(judgeNoise({ ...QUIET, cpuProbe: { ...oneSlow, cvPct: 10.3, robustCvPct: 11.4 } }).reasons).toEqual([
      'CPU probe robust CV 11.4 % > 10 %',
    ]);
    expect(judgeNoise({ ...QUIET, cpuProbe: { ...oneSlow, cvPct: null, robustCvPct: null } }).noisy).toBe(false);
    expect(RunNoise.safeParse({ ...QUIET, cpuProbe: { ...oneSlow, robustCvPct: -1 } }).success).toBe(false);
  });

  it('leaves out what a platform cannot measure (no steal, no load, no fsync probe)', () => {
    expect(judgeNoise({ ...QUIET, cpuStealPct: null, loadAverage: null, ioProbe: null }).noisy).toBe(false);
  });

  it('reads stored figures back with their flag; junk reads as unmeasured', () => {
    expect(noiseDetailOf({ ...QUIET, cpuStealPct: 9 })).toMatchObject({ noisy: true, cpuStealPct: 9 });
    expect(noiseDetailOf(null)).toBeNull();
    expect(noiseDetailOf({ windowSeconds: 'x' })).toBeNull();
  });

  it('refuses impossible figures in a submission, naming the field', () => {
    const bad = RunNoise.safeParse({ ...QUIET, cpuStealPct: 140 });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['cpuStealPct']);
  });
});

describe('describeNoiseCounts', () => {
  it('says the runs, the flagged, the left out and the unmeasured', () => {
    expect(describeNoiseCounts({ policy: 'include', runs: 3, noisy: 1, unmeasured: 0, excluded: 0, paired: 0 })).toBe(
      '3 runs, 1 flagged noisy (pooled)',
    );
    expect(describeNoiseCounts({ policy: 'exclude', runs: 1, noisy: 0, unmeasured: 1, excluded: 2, paired: 0 })).toBe(
      '1 run, 0 flagged noisy; 2 noisy runs left out; 1 without noise figures',
    );
    expect(describeNoiseCounts({ policy: 'exclude', runs: 2, noisy: 1, unmeasured: 0, excluded: 1, paired: 1 })).toBe(
      '2 runs, 1 flagged noisy (in paired blocks: counted, their intervals carry the noise); 1 noisy run left out',
    );
  });
});
