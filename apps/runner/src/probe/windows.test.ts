import { describe, expect, it } from 'vitest';
import { bestQuartile, measureWindowed, noisyWindows, WINDOW_PLAN, type WindowSample } from './windows.ts';

const s = (value: number | null, busy: number | null = 0.1): WindowSample => ({ value, busy });

describe('bestQuartile', () => {
  it('keeps the lowest quartile of a latency and the highest of a throughput', () => {
    expect(bestQuartile([500, 100, 120, 110, 900], 'lower')).toBe(110);
    expect(bestQuartile([300, 12_000, 11_000, 400, 11_500], 'higher')).toBe(11_500);
    expect(bestQuartile([], 'higher')).toBeNull();
    expect(bestQuartile([Number.NaN, 7], 'lower')).toBe(7);
  });
});

describe('noisyWindows', () => {
  it('flags a window 2× worse than the median, one without a figure, one with far busier CPUs; worst first', () => {
    expect(noisyWindows([s(100), s(110), s(400), s(105), s(95)], 'lower')).toEqual([2]);
    expect(noisyWindows([s(10_000), s(3_000), s(11_000), s(null), s(9_000)], 'higher')).toEqual([3, 1]);
    expect(noisyWindows([s(100, 0.1), s(101, 0.15), s(99, 0.9), s(100, 0.1), s(100, 0.2)], 'lower')).toEqual([2]);
    expect(noisyWindows([s(100, null), s(101, null)], 'lower')).toEqual([]);
  });
});

describe('measureWindowed', () => {
  it('measures noisy windows again in their own place, at most maxRetries, and keeps the best quartile', async () => {
    const batches: number[][] = [];
    const fig = await measureWindowed(async (indices) => {
      batches.push(indices);
      // First batch: two windows hit by a busy moment; retries are quiet.
      return batches.length === 1 ? [s(10_000), s(300), s(11_000), s(350), s(10_500)] : indices.map(() => s(10_800));
    }, 'higher');
    expect(batches).toEqual([
      [0, 1, 2, 3, 4],
      [1, 3],
    ]);
    expect(fig.retried).toEqual([1, 3]);
    expect(fig.value).toBe(10_800);
  });

  it('never retries more than maxRetries windows, even when every retry is noisy again', async () => {
    let calls = 0;
    let windows = 0;
    const fig = await measureWindowed(async (indices) => {
      calls++;
      windows += indices.length;
      return indices.map((i) => (i === 0 ? s(10_000) : s(null)));
    }, 'higher');
    expect(windows).toBe(WINDOW_PLAN.windows + WINDOW_PLAN.maxRetries);
    expect(calls).toBeLessThanOrEqual(1 + WINDOW_PLAN.maxRetries);
    expect(fig.retried).toHaveLength(WINDOW_PLAN.maxRetries);
    expect(fig.value).toBe(10_000);
  });

  it('a load that slows most windows still leaves the capability of the best quartile', async () => {
    const fig = await measureWindowed(
      async (indices) => indices.map((i) => s([200, 180, 9_000, 8_000, 210][i]!)),
      'higher',
    );
    // The two fast windows are the disk; three slow ones are not 2× off a median that is itself slow.
    expect(fig.value).toBe(8_000);
  });

  it('no figure in any window: null', async () => {
    const fig = await measureWindowed(async (indices) => indices.map(() => s(null)), 'lower');
    expect(fig.value).toBeNull();
  });
});
