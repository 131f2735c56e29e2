import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { assertSample } from './validate.ts';

/**
 * Change points in a date-ordered series, as Apache Otava (formerly DataStax's Hunter) finds them:
 * Fleming et al., "Hunter: Using Change Point Detection to Hunt for Performance Regressions",
 * ICPE 2023 (https://doi.org/10.1145/3578244.3583719), ported from otava/analysis.py and
 * otava/change_point_divisive/ (Apache-2.0). Two steps:
 * 1. **Split**: windows of `windowLength` points, moved by half a window (or to the last change
 *    found); in each, E-divisive means (Matteson & James 2014) places the candidate that
 *    maximises the energy statistic Q̂ and keeps it while a two-sided t-test between the pieces it
 *    splits has p ≤ the first-pass threshold (10 × `maxP` below 0.05, 2 × below 0.5); the union over
 *    windows is the weak change points.
 * 2. **Merge**: the weakest point (largest p; once every p < `maxP`, the smallest relative change)
 *    is removed while its p ≥ `maxP` or its change ≤ `minMagnitude`, and the stats of the point
 *    after it recomputed on the joined interval — as Otava does, the point before it keeps its stats.
 * TuneLab's addition, `minSegment`: the split step only considers splits that leave at least
 * `minSegment` points on each side, and before either merge rule a point bounding a segment
 * shorter than that (two windows' points close together) is removed — the one with the largest p
 * first — and both its neighbours retested, so one outlier is not a change. `minSegment: 1` (the default) is Otava's algorithm unchanged.
 */
export type ChangePointOptions = {
  /** Points per window of the split step (Otava's `window_len`, default 50). */
  windowLength?: number;
  /** Two-sided p a change must stay below (Otava's `max_pvalue`, default 0.001). */
  maxP?: number;
  /** Relative change a point must exceed to survive the merge step (default 0). */
  minMagnitude?: number;
  /** Fewest points any segment may hold (default 1: Otava). */
  minSegment?: number;
};

/** Otava's `TTestStats`: the two segments a point separates and the t-test between them. */
export type SegmentTest = {
  meanBefore: number;
  meanAfter: number;
  /** Population sd (numpy's std, ddof 0), 0 for one point — as Otava passes it to the test. */
  sdBefore: number;
  sdAfter: number;
  /** Two-sided p of Student's pooled t-test on those figures (NaN when 0 / 0). */
  p: number;
};

export type ChangePoint = {
  /** The first point of the new segment. */
  index: number;
  /** The energy statistic Q̂ the candidate maximised. */
  qhat: number;
  stats: SegmentTest;
  /** meanAfter / meanBefore − 1 (0 when meanBefore is 0). */
  forwardChange: number;
  /** max(|forward change|, |backward change|), Otava's `change_magnitude`. */
  magnitude: number;
};

type Candidate = { index: number; qhat: number };
type Interval = { start: number; stop: number };

const meanOf = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
function populationSd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = meanOf(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length);
}

/**
 * scipy.stats.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2) (Student's pooled test, two-sided) on
 * the population sds, as Otava's TTestSignificanceTester calls it; p = 1 for two points in all.
 */
export function segmentTTest(left: readonly number[], right: readonly number[]): SegmentTest {
  assertSample(left, 'left');
  assertSample(right, 'right');
  const n1 = left.length;
  const n2 = right.length;
  const stats = {
    meanBefore: meanOf(left),
    meanAfter: meanOf(right),
    sdBefore: populationSd(left),
    sdAfter: populationSd(right),
  };
  if (n1 + n2 <= 2) return { ...stats, p: 1 };
  const df = n1 + n2 - 2;
  const pooled = ((n1 - 1) * stats.sdBefore ** 2 + (n2 - 1) * stats.sdAfter ** 2) / df;
  const t = (stats.meanBefore - stats.meanAfter) / Math.sqrt(pooled * (1 / n1 + 1 / n2));
  const p = Number.isNaN(t) ? Number.NaN : 2 * tCdf(-Math.abs(t), df);
  return { ...stats, p };
}

function changePointOf(candidate: Candidate, stats: SegmentTest): ChangePoint {
  const forward = stats.meanBefore === 0 ? 0 : stats.meanAfter / stats.meanBefore - 1;
  const backward = stats.meanAfter === 0 ? 0 : stats.meanBefore / stats.meanAfter - 1;
  return {
    index: candidate.index,
    qhat: candidate.qhat,
    stats,
    forwardChange: forward,
    magnitude: Math.max(Math.abs(forward), Math.abs(backward)),
  };
}

/** The segments between sorted change points (Otava's get_intervals), empty ones left out. */
function intervalsOf(points: readonly { index: number }[], length: number): Interval[] {
  const bounds = [0, ...points.map((p) => p.index), length];
  const out: Interval[] = [];
  for (let i = 0; i + 1 < bounds.length; i += 1)
    if (bounds[i] !== bounds[i + 1]) out.push({ start: bounds[i]!, stop: bounds[i + 1]! });
  return out;
}

/** The t-test of a candidate inside an interval (split) or at an interval's end (merge). */
function testCandidate(candidate: Candidate, series: readonly number[], intervals: readonly Interval[]): ChangePoint {
  for (let i = 0; i < intervals.length; i += 1) {
    const interval = intervals[i]!;
    if (interval.stop === candidate.index && i + 1 < intervals.length) {
      const next = intervals[i + 1]!;
      return changePointOf(
        candidate,
        segmentTTest(series.slice(interval.start, interval.stop), series.slice(next.start, next.stop)),
      );
    }
    if (interval.start < candidate.index && candidate.index < interval.stop) {
      return changePointOf(
        candidate,
        segmentTTest(series.slice(interval.start, candidate.index), series.slice(candidate.index, interval.stop)),
      );
    }
  }
  throw new RangeError(`change point ${candidate.index} lies in no interval`);
}

/**
 * The E-divisive candidate of series[start:end]: the τ maximising
 * Q̂(X, Y) = 2/(m+n)·Σ|Xi−Yj| − 2m/((m+n)(n−1))·Σi<k|Xi−Xk| − 2n/((m+n)(m−1))·Σj<k|Yj−Yk|
 * over X = series[start:τ], Y = series[τ:κ], start < τ < κ ≤ end. Like Otava's numpy argmax over
 * its (τ, κ) matrix, whose cells with κ ≤ τ hold 0, the first maximum in row-major order wins.
 * With `minSegment` > 1 only splits with at least that many points in X, in Y and after τ count
 * (the minimum segment length of changepoint packages); null when the interval has no such split.
 */
export function energyCandidate(
  series: readonly number[],
  start: number,
  end: number,
  minSegment = 1,
): Candidate | null {
  const size = end - start - 1;
  let best: Candidate | null = null;
  let withinX = 0;
  for (let i = 0; i < size; i += 1) {
    const tau = start + i + 1;
    for (let x = start; x < tau - 1; x += 1) withinX += Math.abs(series[x]! - series[tau - 1]!);
    if (tau - start < minSegment || end - tau < minSegment) continue;
    let cross = 0;
    let withinY = 0;
    for (let j = 0; j < size; j += 1) {
      const kappa = start + j + 2;
      let q = 0;
      if (j >= i) {
        const y = kappa - 1;
        for (let x = start; x < tau; x += 1) cross += Math.abs(series[x]! - series[y]!);
        for (let z = tau; z < y; z += 1) withinY += Math.abs(series[z]! - series[y]!);
        if (kappa - tau < minSegment) continue;
        q = energyStatistic(tau - start, kappa - tau, cross, withinX, withinY);
      }
      if (best === null || q > best.qhat) best = { index: tau, qhat: q };
    }
  }
  return best;
}

function energyStatistic(n: number, m: number, cross: number, withinX: number, withinY: number): number {
  const a = (2 / (m + n)) * cross;
  const b = n > 1 ? ((2 * m) / ((m + n) * (n - 1))) * withinX : 0;
  const c = m > 1 ? ((2 * n) / ((m + n) * (m - 1))) * withinY : 0;
  return a - b - c;
}

/** Otava's ChangePointDetector with the t-test tester on series[start:end]; indices of the whole series. */
function detectInWindow(
  series: readonly number[],
  start: number,
  end: number,
  maxP: number,
  minSegment = 1,
): ChangePoint[] {
  const window = series.slice(start, end);
  const points: ChangePoint[] = [];
  for (;;) {
    const intervals = intervalsOf(points, window.length);
    let candidate: Candidate | undefined;
    for (const interval of intervals) {
      if (interval.stop - interval.start < 2) continue;
      const next = energyCandidate(window, interval.start, interval.stop, minSegment);
      if (next !== null && (candidate === undefined || next.qhat > candidate.qhat)) candidate = next;
    }
    if (candidate === undefined) break;
    const point = testCandidate(candidate, window, intervals);
    if (!(point.stats.p <= maxP)) break;
    points.push(point);
    points.sort((x, y) => x.index - y.index);
  }
  return points.map((p) => ({ ...p, index: p.index + start }));
}

/** E-divisive means with the t-test alone, over the whole series (Otava's detector without windows). */
export function eDivisive(series: readonly number[], maxP: number): ChangePoint[] {
  assertSample(series, 'series');
  resolveOptions({ maxP });
  return detectInWindow(series, 0, series.length, maxP);
}

/** The split step: weak change points, each tested against its neighbouring intervals. */
function split(series: readonly number[], windowLength: number, firstPassP: number, minSegment: number): ChangePoint[] {
  const step = Math.trunc(windowLength / 2);
  const points: ChangePoint[] = [];
  let start = 0;
  while (start < series.length) {
    const end = Math.min(start + windowLength, series.length);
    const found = detectInWindow(series, start, end, firstPassP, minSegment);
    start = Math.max(found.at(-1)?.index ?? 0, start + step);
    for (const point of found) if (!points.some((p) => p.index === point.index)) points.push(point);
  }
  points.sort((x, y) => x.index - y.index);
  const intervals = intervalsOf(points, series.length);
  return points.map((p) => testCandidate(p, series, intervals));
}

/** The first item whose key is strictly the greatest (Python's max with a key). */
function firstMax<T>(items: readonly T[], key: (item: T) => number): T {
  let best: T = items[0]!;
  for (const item of items.slice(1)) if (key(item) > key(best)) best = item;
  return best;
}

/** Change points bounding a segment shorter than `minSegment` (the segments at both ends count). */
function shortSegmentPoints(points: readonly ChangePoint[], length: number, minSegment: number): ChangePoint[] {
  return points.filter((point, i) => {
    const before = point.index - (i === 0 ? 0 : points[i - 1]!.index);
    const after = (i + 1 < points.length ? points[i + 1]!.index : length) - point.index;
    return before < minSegment || after < minSegment;
  });
}

type Drop = { point: ChangePoint; short: boolean };

function weakestToDrop(
  points: readonly ChangePoint[],
  length: number,
  options: Required<ChangePointOptions>,
): Drop | null {
  const short = shortSegmentPoints(points, length, options.minSegment);
  if (short.length > 0) return { point: firstMax(short, (p) => p.stats.p), short: true };
  const weakest = firstMax(points, (p) => p.stats.p);
  if (!(weakest.stats.p < options.maxP)) return { point: weakest, short: false };
  const smallest = firstMax(points, (p) => -p.magnitude);
  return smallest.magnitude > options.minMagnitude ? null : { point: smallest, short: false };
}

/** The merge step: drop the weakest point until every one is significant and large enough. */
function merge(
  weak: readonly ChangePoint[],
  series: readonly number[],
  options: Required<ChangePointOptions>,
): ChangePoint[] {
  const points = [...weak];
  while (points.length > 0) {
    const drop = weakestToDrop(points, series.length, options);
    if (drop === null) return points;
    const at = points.indexOf(drop.point);
    points.splice(at, 1);
    const intervals = intervalsOf(points, series.length);
    // Otava recomputes the point after the dropped one (and the next); a short segment's drop
    // recomputes both neighbours, whose joined interval now holds the outlier.
    const recompute = drop.short ? [at - 1, at] : [at, at + 1];
    for (const k of recompute)
      if (k >= 0 && k < points.length) points[k] = testCandidate(points[k]!, series, intervals);
  }
  return points;
}

function resolveOptions(options: ChangePointOptions): Required<ChangePointOptions> {
  const o = { windowLength: 50, maxP: 0.001, minMagnitude: 0, minSegment: 1, ...options };
  if (!Number.isInteger(o.windowLength) || o.windowLength < 2)
    throw new RangeError(`windowLength must be an integer ≥ 2 (got ${String(o.windowLength)})`);
  if (typeof o.maxP !== 'number' || !(o.maxP > 0 && o.maxP <= 1))
    throw new RangeError(`maxP must be in (0, 1] (got ${String(o.maxP)})`);
  if (typeof o.minMagnitude !== 'number' || !(o.minMagnitude >= 0))
    throw new RangeError(`minMagnitude must be a number ≥ 0 (got ${String(o.minMagnitude)})`);
  if (!Number.isInteger(o.minSegment) || o.minSegment < 1)
    throw new RangeError(`minSegment must be an integer ≥ 1 (got ${String(o.minSegment)})`);
  return o;
}

/** Otava's compute_change_points (plus `minSegment`): the change points of a series, by index. */
export function detectChangePoints(series: readonly number[], options: ChangePointOptions = {}): ChangePoint[] {
  assertSample(series, 'series');
  const o = resolveOptions(options);
  const firstPassP = o.maxP < 0.05 ? o.maxP * 10 : o.maxP < 0.5 ? o.maxP * 2 : o.maxP;
  return merge(split(series, o.windowLength, firstPassP, o.minSegment), series, o);
}
