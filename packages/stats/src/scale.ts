/**
 * Answers at a scale nobody measured: each variant's metric is fitted against scale on log–log
 * axes (ln y = a + b·ln x, ordinary least squares), the usual power law of database chores
 * (a VACUUM of twice the rows takes about 2^b times as long). From the fits:
 * - `predictAt`: the metric at scale x with the 95 % confidence interval of the fitted (median)
 *   value and the prediction interval of one new measurement — the textbook OLS intervals on the
 *   log scale, exponentiated, so neither can hold an impossible (≤ 0) value;
 * - `pairAtScale`: candidate ÷ baseline at x from two independent fits, the difference of the two
 *   fitted log values with Welch–Satterthwaite degrees of freedom (as `welchTTest` does for two
 *   samples), its interval and two-sided p, and the prediction interval of one new pair of runs;
 * - `crossingScale`: where the two fitted lines meet, with a Fieller-type interval (every x whose
 *   ratio interval holds 1), which can be unbounded;
 * - `heldOutErrors`: fit without one measured scale, predict it (leave-one-scale-out).
 * Reference values: scripts/scale-reference.py (statsmodels OLS, SciPy, NumPy).
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { Interval } from './descriptive.ts';

export type ScalePoint = { x: number; y: number };

export type LogLogFit = {
  /** Points used (x > 0 and y > 0). */
  n: number;
  /** ln y = intercept + slope · ln x */
  slope: number;
  intercept: number;
  /** Residual standard deviation on the log scale (n − 2 degrees of freedom). */
  residualSd: number;
  df: number;
  meanLogX: number;
  /** Σ (ln x − mean ln x)² */
  sxx: number;
  /** The smallest and largest measured scale. */
  range: { min: number; max: number };
};

export type ScalePrediction = {
  x: number;
  /** exp of the fitted ln y: the fitted median of the metric at x. */
  estimate: number;
  /** Confidence interval of the fitted value. */
  ci: Interval;
  /** Prediction interval of one new measurement at x. */
  pi: Interval;
  /** How far x lies outside the measured range, as a factor ≥ 1 (1 inside it). */
  extrapolation: number;
};

const usable = (points: readonly ScalePoint[]) =>
  points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && p.x > 0 && p.y > 0);

/**
 * The log–log least-squares line; null with fewer than three usable points or fewer than two
 * distinct scales (no residual degrees of freedom, no interval).
 */
export function logLogFit(points: readonly ScalePoint[]): LogLogFit | null {
  const pts = usable(points);
  const n = pts.length;
  if (n < 3 || new Set(pts.map((p) => p.x)).size < 2) return null;
  const lx = pts.map((p) => Math.log(p.x));
  const ly = pts.map((p) => Math.log(p.y));
  const mx = lx.reduce((s, v) => s + v, 0) / n;
  const my = ly.reduce((s, v) => s + v, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (lx[i]! - mx) ** 2;
    sxy += (lx[i]! - mx) * (ly[i]! - my);
  }
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (ly[i]! - intercept - slope * lx[i]!) ** 2;
  const xs = pts.map((p) => p.x);
  return {
    n,
    slope,
    intercept,
    residualSd: Math.sqrt(sse / (n - 2)),
    df: n - 2,
    meanLogX: mx,
    sxx,
    range: { min: Math.min(...xs), max: Math.max(...xs) },
  };
}

function checkScale(x: number): number {
  if (!Number.isFinite(x) || x <= 0) throw new RangeError(`a scale must be a positive finite number, got ${x}`);
  return Math.log(x);
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be between 0 and 1, got ${level}`);
}

/** Variance of the fitted ln y at ln x (the mean response), and of one new ln y there. */
function variances(fit: LogLogFit, lx: number): { mean: number; single: number } {
  const s2 = fit.residualSd ** 2;
  const mean = s2 * (1 / fit.n + (lx - fit.meanLogX) ** 2 / fit.sxx);
  return { mean, single: s2 + mean };
}

/** How far x lies outside [min, max], as a factor (1 inside). */
export function extrapolationFactor(range: { min: number; max: number }, x: number): number {
  if (x > range.max) return x / range.max;
  if (x < range.min) return range.min / x;
  return 1;
}

export function predictAt(fit: LogLogFit, x: number, level = 0.95): ScalePrediction {
  const lx = checkScale(x);
  checkLevel(level);
  const center = fit.intercept + fit.slope * lx;
  const v = variances(fit, lx);
  const t = tQuantile(1 - (1 - level) / 2, fit.df);
  const band = (variance: number): Interval => ({
    low: Math.exp(center - t * Math.sqrt(variance)),
    high: Math.exp(center + t * Math.sqrt(variance)),
  });
  return {
    x,
    estimate: Math.exp(center),
    ci: band(v.mean),
    pi: band(v.single),
    extrapolation: extrapolationFactor(fit.range, x),
  };
}

export type PairAtScale = {
  x: number;
  /** candidate ÷ baseline of the fitted values at x. */
  ratio: number;
  /** Confidence interval of that ratio. */
  ci: Interval;
  /** Prediction interval of the ratio of one new run of each at x. */
  pi: Interval;
  /** Two-sided p of "the fitted values are equal at x". */
  p: number;
  /** Welch–Satterthwaite degrees of freedom of the confidence interval and p. */
  df: number;
  /** How far x lies outside the range both fits cover, as a factor ≥ 1. */
  extrapolation: number;
};

const satterthwaite = (a: number, dfA: number, b: number, dfB: number) => (a + b) ** 2 / (a ** 2 / dfA + b ** 2 / dfB);

/** Both fits' common range: the answer is interpolated only where both were measured. */
function sharedRange(a: LogLogFit, b: LogLogFit) {
  return { min: Math.max(a.range.min, b.range.min), max: Math.min(a.range.max, b.range.max) };
}

export function pairAtScale(baseline: LogLogFit, candidate: LogLogFit, x: number, level = 0.95): PairAtScale {
  const lx = checkScale(x);
  checkLevel(level);
  const d = candidate.intercept + candidate.slope * lx - (baseline.intercept + baseline.slope * lx);
  const vb = variances(baseline, lx);
  const vc = variances(candidate, lx);
  const q = 1 - (1 - level) / 2;
  const interval = (a: number, b: number): { interval: Interval; df: number } => {
    if (a + b === 0) return { interval: { low: Math.exp(d), high: Math.exp(d) }, df: baseline.df + candidate.df };
    const df = satterthwaite(a, candidate.df, b, baseline.df);
    const half = tQuantile(q, df) * Math.sqrt(a + b);
    return { interval: { low: Math.exp(d - half), high: Math.exp(d + half) }, df };
  };
  const mean = interval(vc.mean, vb.mean);
  const single = interval(vc.single, vb.single);
  const se = Math.sqrt(vc.mean + vb.mean);
  const p = se === 0 ? (d === 0 ? 1 : 0) : 2 * (1 - tCdf(Math.abs(d) / se, mean.df));
  return {
    x,
    ratio: Math.exp(d),
    ci: mean.interval,
    pi: single.interval,
    p,
    df: mean.df,
    extrapolation: extrapolationFactor(sharedRange(baseline, candidate), x),
  };
}

export type ScaleCrossing = {
  /** The scale where the two fitted lines meet. */
  x: number;
  /**
   * Every scale where the ratio's confidence interval holds 1 (Fieller): bounded, or null where the
   * data cannot bound it (the set is then a half-line, two half-lines or every scale).
   */
  interval: Interval | null;
  /** Which variant is lower (faster, for a duration) above the crossing. */
  lowerAbove: 'baseline' | 'candidate';
  /** Whether the crossing lies inside the range both fits measured. */
  withinRange: boolean;
};

/** Where candidate and baseline meet, or null when the lines are parallel. */
export function crossingScale(baseline: LogLogFit, candidate: LogLogFit, level = 0.95): ScaleCrossing | null {
  checkLevel(level);
  const da = candidate.intercept - baseline.intercept;
  const db = candidate.slope - baseline.slope;
  if (db === 0 || !Number.isFinite(da / db)) return null;
  const l0 = -da / db;
  const sc = candidate.residualSd ** 2;
  const sb = baseline.residualSd ** 2;
  // (da + db·l)² = t²·[Vc(l) + Vb(l)], Vi(l) = s²i·(1/ni + (l − mi)²/Sxx_i): a quadratic in l.
  const v0 = variances(candidate, l0).mean + variances(baseline, l0).mean;
  const df =
    v0 === 0
      ? baseline.df + candidate.df
      : satterthwaite(variances(candidate, l0).mean, candidate.df, variances(baseline, l0).mean, baseline.df);
  const t2 = tQuantile(1 - (1 - level) / 2, df) ** 2;
  const ku = sc / candidate.sxx + sb / baseline.sxx;
  const A = db ** 2 - t2 * ku;
  const B =
    2 * da * db + 2 * t2 * ((sc * candidate.meanLogX) / candidate.sxx + (sb * baseline.meanLogX) / baseline.sxx);
  const C =
    da ** 2 -
    t2 *
      (sc / candidate.n +
        (sc * candidate.meanLogX ** 2) / candidate.sxx +
        sb / baseline.n +
        (sb * baseline.meanLogX ** 2) / baseline.sxx);
  const disc = B ** 2 - 4 * A * C;
  let interval: Interval | null = null;
  if (A > 0 && disc >= 0) {
    const r = Math.sqrt(disc);
    const [l1, l2] = [(-B - r) / (2 * A), (-B + r) / (2 * A)];
    interval = { low: Math.exp(Math.min(l1, l2)), high: Math.exp(Math.max(l1, l2)) };
  }
  const x = Math.exp(l0);
  const shared = sharedRange(baseline, candidate);
  return {
    x,
    interval,
    // Above the crossing the line with the larger slope is higher.
    lowerAbove: db > 0 ? 'baseline' : 'candidate',
    withinRange: x >= shared.min && x <= shared.max,
  };
}

export type HeldOutError = {
  /** The measured scale left out. */
  x: number;
  /** Geometric mean of the values measured there. */
  observed: number;
  /** The fit without that scale, at that scale. */
  predicted: number;
  /** (predicted ÷ observed − 1) × 100 */
  errorPct: number;
};

/**
 * Leave one measured scale out at a time, fit the rest, predict the one left out. Scales whose
 * remaining points cannot be fitted (fewer than three points or two scales) are skipped.
 */
export function heldOutErrors(points: readonly ScalePoint[]): HeldOutError[] {
  const pts = usable(points);
  const scales = [...new Set(pts.map((p) => p.x))].sort((a, b) => a - b);
  return scales.flatMap((x) => {
    const fit = logLogFit(pts.filter((p) => p.x !== x));
    if (!fit) return [];
    const here = pts.filter((p) => p.x === x);
    const observed = Math.exp(here.reduce((s, p) => s + Math.log(p.y), 0) / here.length);
    const predicted = Math.exp(fit.intercept + fit.slope * Math.log(x));
    return [{ x, observed, predicted, errorPct: (predicted / observed - 1) * 100 }];
  });
}
