/**
 * Where two curves cross (e.g. rows/s against rows inserted for a plain and a compressed table).
 * Each curve is a list of (x, y) points; the candidate is interpolated linearly onto the
 * baseline's x values within the range both cover, and every change of sign of
 * baseline − candidate is a crossing, its x interpolated between the two points around it.
 * Pure; the site and the runner compute the same crossings.
 */
export type CurvePoint = { x: number; y: number };
export type Crossing = {
  x: number;
  /** Which curve is above after the crossing. */
  above: 'baseline' | 'candidate';
};

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
  const diffs = sorted(baseline)
    .map((p) => ({ x: p.x, d: interpolate(candidate, p.x) === null ? null : p.y - interpolate(candidate, p.x)! }))
    .filter((p): p is { x: number; d: number } => p.d !== null && p.d !== 0);
  const out: Crossing[] = [];
  for (let i = 1; i < diffs.length; i++) {
    const a = diffs[i - 1]!;
    const b = diffs[i]!;
    if (Math.sign(a.d) === Math.sign(b.d)) continue;
    out.push({ x: a.x + ((b.x - a.x) * a.d) / (a.d - b.d), above: b.d > 0 ? 'baseline' : 'candidate' });
  }
  return out;
}
