/**
 * A straight line through measured points (e.g. sync time against files in the data directory)
 * and how sure its slope is. Least squares from simple-statistics; the slope's 95 % confidence
 * interval uses the usual t interval with n − 2 degrees of freedom.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { linearRegression, linearRegressionLine, rSquared } from 'simple-statistics';

export type LinearFit = {
  slope: number;
  intercept: number;
  r2: number;
  n: number;
  /** 95 % confidence interval of the slope; null with fewer than three points. */
  slopeInterval: { low: number; high: number } | null;
};

/** Least-squares y = intercept + slope·x; null with fewer than two distinct finite x. */
export function linearFit(points: readonly { x: number; y: number }[]): LinearFit | null {
  const pts = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  if (new Set(pts.map((p) => p.x)).size < 2) return null;
  const data = pts.map((p) => [p.x, p.y]);
  const { m: slope, b: intercept } = linearRegression(data);
  if (!Number.isFinite(slope) || !Number.isFinite(intercept)) return null;
  const line = linearRegressionLine({ m: slope, b: intercept });
  const n = pts.length;
  const flat = pts.every((p) => p.y === pts[0]!.y);
  const r2 = flat ? 1 : rSquared(data, line);
  let slopeInterval: LinearFit['slopeInterval'] = null;
  if (n > 2) {
    const mx = pts.reduce((s, p) => s + p.x, 0) / n;
    const sxx = pts.reduce((s, p) => s + (p.x - mx) ** 2, 0);
    const sse = pts.reduce((s, p) => s + (p.y - line(p.x)) ** 2, 0);
    const half = tQuantile(0.975, n - 2) * Math.sqrt(sse / (n - 2) / sxx);
    if (Number.isFinite(half)) slopeInterval = { low: slope - half, high: slope + half };
  }
  return { slope, intercept, r2: Number.isFinite(r2) ? r2 : 0, n, slopeInterval };
}

/** One measured value of one unit (variant × repetition × sweep point, within one run). */
export type FitSample = {
  run?: string;
  variant: string;
  repetition: number;
  point?: { param: string; value: number } | null;
  metric: string;
  value: number;
};

export type VariantFit = { variant: string; fit: LinearFit | null; n: number };

const unitKey = (s: FitSample) =>
  `${s.run ?? ''}|${s.variant}|${s.repetition}|${s.point ? `${s.point.param}=${s.point.value}` : ''}`;

/**
 * Per variant, `metric` (y) against `per` (x), each y paired with the x recorded in the same unit
 * (same run, variant, repetition and sweep point). Variants in order of first appearance.
 */
export function fitByVariant(samples: readonly FitSample[], metric: string, per: string): VariantFit[] {
  const xs = new Map(samples.filter((s) => s.metric === per).map((s) => [unitKey(s), s.value]));
  const variants = [...new Set(samples.filter((s) => s.metric === metric).map((s) => s.variant))];
  return variants.map((variant) => {
    const pts = samples
      .filter((s) => s.metric === metric && s.variant === variant && xs.has(unitKey(s)))
      .map((s) => ({ x: xs.get(unitKey(s))!, y: s.value }));
    return { variant, fit: linearFit(pts), n: pts.length };
  });
}
