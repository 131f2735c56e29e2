import { describe, expect, it } from 'vitest';
import { fitByVariant, linearFit } from './fit.ts';

describe('linearFit', () => {
  it('fits y = a + b·x by least squares, with r² and a slope interval', () => {
    const exact = linearFit([
      { x: 1000, y: 175 },
      { x: 2000, y: 345 },
      { x: 4000, y: 685 },
    ])!;
    expect(exact.slope).toBeCloseTo(0.17, 10);
    expect(exact.intercept).toBeCloseTo(5, 8);
    expect(exact.r2).toBeCloseTo(1, 10);
    expect(exact.slopeInterval!.high - exact.slopeInterval!.low).toBeCloseTo(0, 8);
    // x = 1..5, y = 2.1 3.9 6.2 7.8 10.1: Sxx 10, Sxy 19.9, SSE 0.107; SE(slope) = √(0.107/3/10) = 0.059722,
    // t(0.975, 3) = 3.182446 → slope 1.99 ± 0.190059.
    const noisy = linearFit([2.1, 3.9, 6.2, 7.8, 10.1].map((y, i) => ({ x: i + 1, y })))!;
    expect(noisy.slope).toBeCloseTo(1.99, 10);
    expect(noisy.slopeInterval!.low).toBeCloseTo(1.799941, 5);
    expect(noisy.slopeInterval!.high).toBeCloseTo(2.180059, 5);
    expect(noisy.r2).toBeGreaterThan(0.99);
  });

  it('needs two distinct x; two points have no interval; a flat line has r² 1', () => {
    expect(
      linearFit([
        { x: 1, y: 1 },
        { x: 1, y: 2 },
      ]),
    ).toBeNull();
    expect(
      linearFit([
        { x: 1, y: Number.NaN },
        { x: 2, y: 2 },
      ]),
    ).toBeNull();
    expect(
      linearFit([
        { x: 1, y: 1 },
        { x: 2, y: 2 },
      ])!.slopeInterval,
    ).toBeNull();
    expect(
      linearFit([
        { x: 1, y: 3 },
        { x: 2, y: 3 },
        { x: 5, y: 3 },
      ]),
    ).toMatchObject({ slope: 0, r2: 1 });
  });
});

describe('fitByVariant', () => {
  it('pairs each value with the x recorded in the same run, repetition and sweep point', () => {
    const samples = [10_000, 30_000].flatMap((files, i) =>
      ['a', 'b'].flatMap((run) => [
        {
          run,
          variant: 'fsync',
          repetition: 1,
          point: { param: 'tables', value: i },
          metric: 'files',
          value: files + (run === 'b' ? 1000 : 0),
        },
        {
          run,
          variant: 'fsync',
          repetition: 1,
          point: { param: 'tables', value: i },
          metric: 'sync',
          value: 0.002 * (files + (run === 'b' ? 1000 : 0)),
        },
        { run, variant: 'syncfs', repetition: 1, point: { param: 'tables', value: i }, metric: 'sync', value: 7 },
      ]),
    );
    const [fsync, syncfs] = fitByVariant(samples, 'sync', 'files');
    expect(fsync).toMatchObject({ variant: 'fsync', n: 4 });
    expect(fsync!.fit!.slope).toBeCloseTo(0.002, 12);
    expect(syncfs).toEqual({ variant: 'syncfs', fit: null, n: 0 });
  });
});
