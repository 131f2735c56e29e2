/**
 * Where two curves cross (e.g. rows/s against rows inserted for a plain and a compressed table).
 * Each curve is a list of (x, y) points; the candidate is interpolated linearly onto the
 * baseline's x values within the range both cover, and every change of sign of
 * baseline − candidate is a crossing, its x interpolated between the two points around it.
 * Pure. The runner's crossover notes use it (apps/runner/src/engine/crossovers.ts); the site's
 * charts still mark crossings with their own `crossings` (apps/site/src/lib/charts.ts: only at x
 * values both lines share, no interpolation onto the baseline's x), so the two can differ.
 */
export type CurvePoint = { x: number; y: number };
export type Crossing = {
  x: number;
  /** The baseline's y at the crossing (both curves meet there). */
  y: number;
  /** Which curve is above after the crossing. */
  above: 'baseline' | 'candidate';
};

/** Sorted by x; at an x given twice the last point counts (a curve is a function of x). */
function sorted(points: readonly CurvePoint[]): CurvePoint[] {
  return points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
}

/** The curve's y at x by linear interpolation, or null outside its range. */
export function interpolate(points: readonly CurvePoint[], x: number): number | null {
  const p = sorted(points);
  if (p.length === 0 || x < p[0]!.x || x > p[p.length - 1]!.x) return null;
  for (let i = 1; i < p.length; i++) {
    const a = p[i - 1]!;
    const b = p[i]!;
    if (x <= b.x) return b.x === a.x ? b.y : a.y + ((b.y - a.y) * (x - a.x)) / (b.x - a.x);
  }
  return p[0]!.y; // a single point at x
}

export function findCrossings(baseline: readonly CurvePoint[], candidate: readonly CurvePoint[]): Crossing[] {
  const base = sorted(baseline);
  const cand = sorted(candidate);
  // Both curves' x values within the range both cover: a crossing between two of the candidate's
  // points is found even when the baseline has no point there.
  const lo = Math.max(base[0]?.x ?? Infinity, cand[0]?.x ?? Infinity);
  const hi = Math.min(base[base.length - 1]?.x ?? -Infinity, cand[cand.length - 1]?.x ?? -Infinity);
  const xs = [...new Set([...base, ...cand].map((p) => p.x))].filter((x) => x >= lo && x <= hi).sort((a, b) => a - b);
  const diffs = xs.flatMap((x) => {
    const yb = interpolate(base, x);
    const yc = interpolate(cand, x);
    return yb === null || yc === null || yb === yc ? [] : [{ x, yb, d: yb - yc }];
  });
  const out: Crossing[] = [];
  for (let i = 1; i < diffs.length; i++) {
    const a = diffs[i - 1]!;
    const b = diffs[i]!;
    if (Math.sign(a.d) === Math.sign(b.d)) continue;
    const t = a.d / (a.d - b.d);
    const x = a.x + (b.x - a.x) * t;
    out.push({ x, y: interpolate(base, x) ?? a.yb, above: b.d > 0 ? 'baseline' : 'candidate' });
  }
  return out;
}
