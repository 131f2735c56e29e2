import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { sampleVariance, scaled, scaleOf, sum, type Interval } from './descriptive.ts';
import { assertProbability, assertSample } from './validate.ts';

export type RelativeDifference = {
  /** mean(candidate) − mean(baseline) */
  absolute: number;
  /** (mean(candidate) − mean(baseline)) / mean(baseline) */
  relative: number;
  /** Fieller interval for `relative`; ±Infinity when it is unbounded (see below). */
  ci: Interval;
  level: number;
  /** Satterthwaite degrees of freedom used for the t quantile. */
  df: number;
};

/**
 * Relative difference of means with a Fieller confidence interval for the ratio of means
 * ρ = μc / μb (Fieller 1954), unequal variances, shifted by −1.
 *
 * The interval is every ρ with (x̄c − ρ·x̄b)² ≤ t² (s²c/nc + ρ² s²b/nb), where t is the
 * two-sided Student t quantile with Welch–Satterthwaite degrees of freedom evaluated at the
 * estimate ρ̂ = x̄c / x̄b: df = (s²c/nc + ρ̂² s²b/nb)² / ((s²c/nc)²/(nc−1) + (ρ̂² s²b/nb)²/(nb−1))
 * (cf. Tamhane & Logan 2004; R's mratios::ttestratio(var.equal = FALSE)). Unlike the delta
 * method it is asymmetric and stays honest when the baseline mean is noisy. When the baseline
 * mean is not itself significantly different from 0 (x̄b² ≤ t² s²b/nb) the set is unbounded and
 * the interval is reported as (−∞, +∞). When neither sample has spread it collapses to the point.
 * `scripts/reference.py` computes the same interval with scipy for the tests.
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
  const vb = sampleVariance(baseline) / baseline.length;
  const vc = sampleVariance(candidate) / candidate.length;
  const ratio = mc / mb;
  const relative = ratio - 1;
  const absolute = (mc - mb) / k;
  const scaledVb = ratio ** 2 * vb;
  const total = vc + scaledVb;
  if (!Number.isFinite(total)) {
    // The baseline mean is next to nothing beside the candidate's (8e-323 against 3e18): ρ̂ or
    // its variance overflows, and no bounded interval can be given.
    return {
      absolute,
      relative,
      ci: { low: -Infinity, high: Infinity },
      level,
      df: baseline.length + candidate.length - 2,
    };
  }
  if (total === 0) {
    // No spread on either side that matters at ρ̂: nothing to be unsure about.
    return {
      absolute,
      relative,
      ci: { low: relative, high: relative },
      level,
      df: baseline.length + candidate.length - 2,
    };
  }
  // Satterthwaite df on the shares of the variance: the squares of tiny variances underflow.
  const df = 1 / ((vc / total) ** 2 / (candidate.length - 1) + (scaledVb / total) ** 2 / (baseline.length - 1));
  const t = tQuantile(1 - (1 - level) / 2, df);
  const a = mb ** 2 - t ** 2 * vb;
  const discriminant = mb ** 2 * vc + mc ** 2 * vb - t ** 2 * vb * vc;
  if (a <= 0 || discriminant < 0) {
    return { absolute, relative, ci: { low: -Infinity, high: Infinity }, level, df };
  }
  const root1 = (mc * mb - t * Math.sqrt(discriminant)) / a;
  const root2 = (mc * mb + t * Math.sqrt(discriminant)) / a;
  return {
    absolute,
    relative,
    ci: { low: Math.min(root1, root2) - 1, high: Math.max(root1, root2) - 1 },
    level,
    df,
  };
}
