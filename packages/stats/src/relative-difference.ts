import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { sampleVariance, scaled, scaleOf, sum, type Interval } from './descriptive.ts';
import { assertProbability, assertSample } from './validate.ts';

/**
 * How the interval was found: `log-ratio` (every value of both samples > 0: durations, rates,
 * sizes) or `fieller` (any value ≤ 0).
 */
export type RelativeDifferenceMethod = 'log-ratio' | 'fieller';

export type RelativeDifference = {
  /** mean(candidate) − mean(baseline) */
  absolute: number;
  /** (mean(candidate) − mean(baseline)) / mean(baseline) */
  relative: number;
  /**
   * Interval for `relative` (see `method`). With `log-ratio` it lies within (−1, +∞): the ratio
   * of two positive means is positive. ±Infinity marks an end that cannot be bounded.
   */
  ci: Interval;
  /**
   * The same interval for the ratio of means μc / μb itself (`ci` + 1, without the rounding of
   * tiny ratios to −1 in `ci`): with `log-ratio` its low end is always > 0.
   */
  ratioCi: Interval;
  level: number;
  /** Satterthwaite degrees of freedom used for the t quantile. */
  df: number;
  /**
   * Two-sided p-value of "no change" (ratio 1) from the statistic the interval is built on, so the
   * interval at level L excludes no change exactly when p < 1 − L: with `log-ratio`
   * t = ln(x̄c/x̄b) / √(s²c/(nc·x̄c²) + s²b/(nb·x̄b²)); with `fieller` the interval's own condition
   * at ρ = 1, t = (x̄c − x̄b) / √(s²c/nc + s²b/nb) — both at the interval's df. (Fieller's set can
   * be unbounded while p is small: then the interval, which includes no change, decides.)
   */
  p: number;
  method: RelativeDifferenceMethod;
};

/**
 * Relative difference of means, x̄c / x̄b − 1, with a confidence interval for the ratio of
 * means ρ = μc / μb shifted by −1. Unequal variances throughout.
 *
 * When every value of both samples is > 0 (durations, rates, sizes), the interval is built on
 * the log scale, so it can never reach an impossible ratio ≤ 0 (a duration more than 100%
 * shorter): by the delta method, Var(ln x̄) ≈ s²/(n·x̄²), and
 *   ln(x̄c/x̄b) ± t · sqrt(s²c/(nc·x̄c²) + s²b/(nb·x̄b²)),
 * with t the two-sided Student t quantile at the Welch–Satterthwaite df of those two log-scale
 * variance terms, exponentiated, minus 1. The point estimate stays x̄c/x̄b − 1. (The delta
 * method, Casella & Berger, "Statistical Inference", 2nd ed., §5.5.4, applied to
 * ln x̄c − ln x̄b, the log of the ratio of means; the two means are independent.) It is
 * asymmetric like Fieller's on the ratio scale, and close to it when both means are well
 * determined; unlike Fieller's it is always bounded, since the log scale has no impossible side.
 *
 * Otherwise (some value ≤ 0) it is Fieller's interval (Fieller 1954): every ρ with
 * (x̄c − ρ·x̄b)² ≤ t² (s²c/nc + ρ² s²b/nb), t at the Welch–Satterthwaite df evaluated at
 * ρ̂ = x̄c / x̄b (cf. Tamhane & Logan 2004; R's mratios::ttestratio(var.equal = FALSE)). When
 * the baseline mean is not itself significantly different from 0 (x̄b² ≤ t² s²b/nb) the set is
 * unbounded and reported as (−∞, +∞).
 *
 * With no spread on either side the interval collapses to the point.
 * `scripts/reference.py` computes both intervals independently with SciPy for the tests.
 */
export function relativeDifference(
  rawBaseline: readonly number[],
  rawCandidate: readonly number[],
  level = 0.95,
): RelativeDifference {
  assertSample(rawBaseline, 'baseline', 2);
  assertSample(rawCandidate, 'candidate', 2);
  assertProbability(level, 'level');
  // The ratio and its interval are scale-free; only `absolute` is scaled back (it may overflow to ±∞).
  const k = scaleOf([...rawBaseline, ...rawCandidate]);
  const baseline = scaled(rawBaseline, k);
  const candidate = scaled(rawCandidate, k);
  const mb = sum(baseline) / baseline.length;
  const mc = sum(candidate) / candidate.length;
  if (mb === 0) throw new RangeError('baseline has mean 0, so a relative difference is undefined');
  const sides: Sides = {
    mb,
    mc,
    vb: sampleVariance(baseline) / baseline.length,
    vc: sampleVariance(candidate) / candidate.length,
    nb: baseline.length,
    nc: candidate.length,
  };
  const allPositive = baseline.every((x) => x > 0) && candidate.every((x) => x > 0);
  const found = allPositive ? logRatioInterval(sides, level) : fiellerInterval(sides, level);
  return { absolute: (mc - mb) / k, relative: mc / mb - 1, level, ...found };
}

/** Means, variances of the means (s²/n) and sizes of both samples, at the common scale. */
type Sides = { mb: number; mc: number; vb: number; vc: number; nb: number; nc: number };
type Found = { ci: Interval; ratioCi: Interval; df: number; p: number; method: RelativeDifferenceMethod };

/** Two-sided p of a t statistic; t = 0/0 (no difference, no spread) is p = 1. */
const twoSided = (t: number, df: number) => (Number.isNaN(t) ? 1 : Math.min(1, 2 * tCdf(-Math.abs(t), df)));

function logRatioInterval({ mb, mc, vb, vc, nb, nc }: Sides, level: number): Found {
  const method = 'log-ratio';
  // ln of each mean, not of the ratio: x̄c/x̄b may overflow (3e18 against 8e-323) where the logs do not.
  const logRatio = Math.log(mc) - Math.log(mb);
  // Relative variances (s/x̄)²/n; computed as squares of ratios so that they neither overflow nor underflow early.
  const ub = (Math.sqrt(vb) / mb) ** 2;
  const uc = (Math.sqrt(vc) / mc) ** 2;
  const total = ub + uc;
  if (total === 0) {
    const point = Math.exp(logRatio);
    const df = nb + nc - 2;
    return {
      ci: { low: point - 1, high: point - 1 },
      ratioCi: { low: point, high: point },
      df,
      p: logRatio === 0 ? 1 : 0,
      method,
    };
  }
  if (!Number.isFinite(total)) {
    return { ci: { low: -1, high: Infinity }, ratioCi: { low: 0, high: Infinity }, df: nb + nc - 2, p: 1, method };
  }
  const df = 1 / ((uc / total) ** 2 / (nc - 1) + (ub / total) ** 2 / (nb - 1));
  const halfWidth = tQuantile(1 - (1 - level) / 2, df) * Math.sqrt(total);
  // expm1 keeps the bounds exact near 0; a bound that overflows is +Infinity.
  const ci = { low: Math.expm1(logRatio - halfWidth), high: Math.expm1(logRatio + halfWidth) };
  const ratioCi = { low: Math.exp(logRatio - halfWidth), high: Math.exp(logRatio + halfWidth) };
  return { ci, ratioCi, df, p: twoSided(logRatio / Math.sqrt(total), df), method };
}

function fiellerInterval({ mb, mc, vb, vc, nb, nc }: Sides, level: number): Found {
  const method = 'fieller';
  const ratio = mc / mb;
  const relative = ratio - 1;
  const scaledVb = ratio ** 2 * vb;
  const total = vc + scaledVb;
  if (!Number.isFinite(total)) {
    // The baseline mean is next to nothing beside the candidate's (8e-323 against 3e18): ρ̂ or
    // its variance overflows, and no bounded interval can be given.
    return {
      ci: { low: -Infinity, high: Infinity },
      ratioCi: { low: -Infinity, high: Infinity },
      df: nb + nc - 2,
      p: 1,
      method,
    };
  }
  // No spread on either side that matters at ρ̂: nothing to be unsure about.
  if (total === 0) {
    const df = nb + nc - 2;
    return {
      ci: { low: relative, high: relative },
      ratioCi: { low: ratio, high: ratio },
      df,
      p: ratio === 1 ? 1 : 0,
      method,
    };
  }
  // Satterthwaite df on the shares of the variance: the squares of tiny variances underflow.
  const df = 1 / ((vc / total) ** 2 / (nc - 1) + (scaledVb / total) ** 2 / (nb - 1));
  const t = tQuantile(1 - (1 - level) / 2, df);
  // The interval's own condition at ρ = 1: (x̄c − x̄b)² ≤ t²(s²c/nc + s²b/nb).
  const p = twoSided((mc - mb) / Math.sqrt(vc + vb), df);
  const a = mb ** 2 - t ** 2 * vb;
  const discriminant = mb ** 2 * vc + mc ** 2 * vb - t ** 2 * vb * vc;
  if (a <= 0 || discriminant < 0) {
    return { ci: { low: -Infinity, high: Infinity }, ratioCi: { low: -Infinity, high: Infinity }, df, p, method };
  }
  const root1 = (mc * mb - t * Math.sqrt(discriminant)) / a;
  const root2 = (mc * mb + t * Math.sqrt(discriminant)) / a;
  const ratioCi = { low: Math.min(root1, root2), high: Math.max(root1, root2) };
  return { ci: { low: ratioCi.low - 1, high: ratioCi.high - 1 }, ratioCi, df, p, method };
}
