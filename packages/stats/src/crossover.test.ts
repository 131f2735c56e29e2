import { describe, expect, it } from 'vitest';
import { findCrossings, interpolate } from './crossover.ts';

describe('findCrossings', () => {
  it('finds where the candidate overtakes the baseline, interpolated between samples', () => {
    // Plain: fast, then collapses; compressed: slow but steady (the 2012 article's shape).
    const plain = [
      { x: 10, y: 100 },
      { x: 20, y: 100 },
      { x: 30, y: 20 },
      { x: 40, y: 10 },
    ];
    const compressed = [
      { x: 10, y: 40 },
      { x: 20, y: 40 },
      { x: 30, y: 40 },
      { x: 40, y: 40 },
    ];
    // At x = 20 the difference is +60, at 30 it is −20: zero at 20 + 10 · 60 / 80 = 27.5.
    expect(findCrossings(plain, compressed)).toEqual([{ x: 27.5, y: 40, above: 'candidate' }]);
    expect(findCrossings(compressed, plain)).toEqual([{ x: 27.5, y: 40, above: 'baseline' }]);
  });

  it('interpolates a candidate sampled at other x values and reports every crossing', () => {
    const a = [
      { x: 0, y: 0 },
      { x: 10, y: 10 },
      { x: 20, y: 0 },
    ];
    const b = [
      { x: 0, y: 5 },
      { x: 20, y: 5 },
    ];
    expect(findCrossings(a, b).map((c) => c.x)).toEqual([5, 15]);
    expect(interpolate(b, 7)).toBe(5);
    expect(interpolate(b, 21)).toBeNull();
  });

  it('finds a crossing between two points of the candidate where the baseline has none (no shared x needed)', () => {
    const base = [
      { x: 0, y: 10 },
      { x: 100, y: 10 },
    ];
    const cand = [
      { x: 0, y: 0 },
      { x: 40, y: 8 },
      { x: 60, y: 12 },
      { x: 100, y: 20 },
    ];
    // Between 40 (−2 below) and 60 (+2 above) the lines meet at 50, y = 10.
    expect(findCrossings(base, cand)).toEqual([{ x: 50, y: 10, above: 'candidate' }]);
  });

  it('reports nothing when one curve stays above, and ignores touching points', () => {
    expect(
      findCrossings(
        [
          { x: 1, y: 3 },
          { x: 2, y: 3 },
        ],
        [
          { x: 1, y: 1 },
          { x: 2, y: 2 },
        ],
      ),
    ).toEqual([]);
    expect(
      findCrossings(
        [
          { x: 1, y: 3 },
          { x: 2, y: 2 },
          { x: 3, y: 3 },
        ],
        [
          { x: 1, y: 2 },
          { x: 2, y: 2 },
          { x: 3, y: 2 },
        ],
      ),
    ).toEqual([]);
    expect(findCrossings([], [])).toEqual([]);
  });
});
