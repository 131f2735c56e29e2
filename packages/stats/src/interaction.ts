import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { Interval } from './descriptive.ts';
import { assertProbability } from './validate.ts';

/** What a variant's summary gives: n, mean, sample sd, and its smallest value (is it a positive quantity?). */
export type Moments = { n: number; mean: number; sd: number; min: number };
/** One pair (baseline, candidate) measured under one condition (a server major, a hardware class). */
export type PairMoments = { baseline: Moments; candidate: Moments };

/**
 * `log-ratio`: every value of the four samples is > 0, and the test is on the difference of the
 * two log ratios of means (a ratio of ratios). `difference`: some value is ≤ 0, and the test is on
 * the difference of the two differences of means, in the metric's unit.
 */
export type InteractionMethod = 'log-ratio' | 'difference';

export type Interaction = {
  method: InteractionMethod;
  /**
   * `log-ratio`: (c̄A / b̄A) ÷ (c̄B / b̄B), the ratio of the pair's ratio on A to that on B (1 = the
   * same). `difference`: (c̄A − b̄A) − (c̄B − b̄B) (0 = the same).
   */
  estimate: number;
  /** Interval of `estimate` at `level`: with `log-ratio` always within (0, +∞). */
  ci: Interval;
  level: number;
  t: number;
  /** Welch–Satterthwaite degrees of freedom of the four variance terms. */
  df: number;
  /** Two-sided p of "the pair's ratio (difference) is the same under A and B". */
  p: number;
};

/**
 * Does the pair's answer differ between two conditions (server majors, hardware classes)? The
 * interaction of pair × condition, tested as a difference, not as two verdicts that differ.
 *
 * With every value > 0 (durations, rates, sizes): D = ln(c̄A/b̄A) − ln(c̄B/b̄B), the log of the
 * ratio of ratios, whose variance by the delta method (Var ln x̄ ≈ s²/(n·x̄²); Casella & Berger,
 * "Statistical Inference", 2nd ed., §5.5.4) is the sum of the four independent terms s²/(n·x̄²);
 * t = D / √ΣuΣ with Welch–Satterthwaite df (Σu)² / Σ(u²/(n − 1)), a Welch-type test on the log
 * scale; the interval exp(D ± t·se) is the ratio of ratios' and never reaches 0. Otherwise the
 * same test on (c̄A − b̄A) − (c̄B − b̄B) with the terms s²/n (a Welch test of a contrast of four
 * means). With no spread at all the estimate is exact: p = 1 when it shows no difference, else 0.
 * `scripts/reference.py` computes both independently with SciPy.
 */
export function interactionTest(a: PairMoments, b: PairMoments, level = 0.95): Interaction {
  assertProbability(level, 'level');
  const cells = [a.baseline, a.candidate, b.baseline, b.candidate];
  cells.forEach((m, i) => assertMoments(m, ['a.baseline', 'a.candidate', 'b.baseline', 'b.candidate'][i] ?? 'moments'));
  const positive = cells.every((m) => m.min > 0 && m.mean > 0);
  const method: InteractionMethod = positive ? 'log-ratio' : 'difference';
  // Each cell's contribution to the contrast and the variance of its estimate.
  const terms = cells.map((m) =>
    positive ? { value: Math.log(m.mean), u: (m.sd / m.mean) ** 2 / m.n } : { value: m.mean, u: m.sd ** 2 / m.n },
  );
  const [ab, ac, bb, bc] = terms as [Term, Term, Term, Term];
  const d = ac.value - ab.value - (bc.value - bb.value);
  const total = terms.reduce((s, x) => s + x.u, 0);
  const back = (x: number) => (positive ? Math.exp(x) : x);
  const dfFloor = cells.reduce((s, m) => s + m.n, 0) - 4;
  if (total === 0 || !Number.isFinite(total)) {
    const exact = total === 0;
    return {
      method,
      estimate: back(d),
      ci: exact ? { low: back(d), high: back(d) } : { low: positive ? 0 : -Infinity, high: Infinity },
      level,
      t: exact ? (d === 0 ? 0 : Math.sign(d) * Infinity) : 0,
      df: dfFloor,
      p: exact ? (d === 0 ? 1 : 0) : 1,
    };
  }
  // Satterthwaite on the shares of the variance, as in welchTTest (squares of tiny terms underflow).
  const df = 1 / cells.reduce((s, m, i) => s + ((terms[i]?.u ?? 0) / total) ** 2 / (m.n - 1), 0);
  const se = Math.sqrt(total);
  const t = d / se;
  const half = tQuantile(1 - (1 - level) / 2, df) * se;
  return {
    method,
    estimate: back(d),
    ci: { low: back(d - half), high: back(d + half) },
    level,
    t,
    df,
    p: Math.min(1, 2 * tCdf(-Math.abs(t), df)),
  };
}

type Term = { value: number; u: number };

function assertMoments(m: Moments, name: string): void {
  if (typeof m !== 'object' || m === null) throw new RangeError(`${name} must be { n, mean, sd, min }`);
  if (!Number.isInteger(m.n) || m.n < 2) throw new RangeError(`${name}.n must be an integer >= 2 (got ${String(m.n)})`);
  for (const k of ['mean', 'sd', 'min'] as const)
    if (typeof m[k] !== 'number' || !Number.isFinite(m[k]))
      throw new RangeError(`${name}.${k} must be a finite number (got ${String(m[k])})`);
  if (m.sd < 0) throw new RangeError(`${name}.sd must be >= 0 (got ${m.sd})`);
}
