/**
 * The figures a scenario declares in `report` (scenario.yaml) beside its verdicts: ratios to a
 * baseline variant (with the article's ratio when published.json has one), straight lines fitted
 * across every unit of a run, and where two variants' curves cross.
 */
import type { CrossingAnswer, FitAnswer, RatioAnswer, ScenarioDocument } from '@tunelab/contracts';
import { findCrossings, fitByVariant, mean, relativeDifference, type FitSample } from '@tunelab/stats';
import { quantityOf } from './direction.ts';

/** One value of one unit (run × variant × repetition × sweep point). */
export type UnitSample = FitSample & { run: string };
/** One point of a time series (`series(metric, x, value)` in a step). */
export type SeriesPoint = {
  run: string;
  variant: string;
  repetition: number;
  metric: string;
  x: number;
  value: number;
};

const finiteOrNull = (x: number) => (Number.isFinite(x) ? x : null);

/**
 * Per declared ratio: each variant's mean of `metric` ÷ the baseline's, its 95% Fieller interval
 * and the article's ratio (published.json map `published`), inside the interval widened by
 * `tolerance` or not. Every unit given is pooled (a ratio is declared for a metric the sweep does
 * not change).
 */
export function declaredRatios(
  doc: ScenarioDocument,
  figures: Record<string, Record<string, number>>,
  samples: readonly UnitSample[],
): RatioAnswer[] {
  return (doc.report.ratios ?? []).flatMap((ratio) => {
    const values = new Map<string, number[]>();
    for (const s of samples)
      if (s.metric === ratio.metric) values.set(s.variant, [...(values.get(s.variant) ?? []), s.value]);
    const base = values.get(ratio.baseline);
    if (!base?.length) return [];
    const article = ratio.published ? figures[ratio.published] : undefined;
    const baseMean = mean(base);
    const rows = doc.variants
      .filter((v) => values.has(v.key))
      .map((v) => {
        const vs = values.get(v.key)!;
        const m = mean(vs);
        const point = baseMean !== 0 ? m / baseMean : Number.NaN;
        let interval: { low: number | null; high: number | null } | null = null;
        if (v.key !== ratio.baseline && vs.length >= 2 && base.length >= 2 && Number.isFinite(point)) {
          const d = relativeDifference(base, vs);
          interval = { low: finiteOrNull(d.ratioCi.low), high: finiteOrNull(d.ratioCi.high) };
        }
        const theirs = v.key === ratio.baseline ? undefined : article?.[v.key];
        const slack = ratio.tolerance * point;
        const agrees =
          theirs === undefined || interval === null || interval.low === null || interval.high === null
            ? null
            : theirs >= interval.low - slack && theirs <= interval.high + slack;
        return {
          variant: v.key,
          mean: m,
          ratio: finiteOrNull(point),
          interval,
          article: article?.[v.key] ?? null,
          agrees,
          units: vs.length,
        };
      });
    return [{ metric: ratio.metric, baseline: ratio.baseline, label: ratio.label, rows }];
  });
}

/**
 * Per declared fit and variant: slope × factor of `metric` against `per`, its 95% interval and r².
 * Runs that did not record `per` (an article's sweep table) are fitted against their sweep point
 * instead, and the answer says so (`against`).
 */
export function declaredFits(doc: ScenarioDocument, samples: readonly FitSample[]): FitAnswer[] {
  return (doc.report.fits ?? []).flatMap((fit) => {
    const recorded = samples.some((s) => s.metric === fit.per);
    const param = samples.find((s) => s.point)?.point?.param ?? null;
    if (!recorded && !param) return [];
    const xs = recorded
      ? samples
      : samples.flatMap((s) => (s.point ? [s, { ...s, metric: fit.per, value: s.point.value }] : [s]));
    const rows = fitByVariant(xs, fit.metric, fit.per).flatMap(({ variant, fit: line, n }) =>
      line
        ? [
            {
              variant,
              slope: line.slope * fit.factor,
              interval: line.slopeInterval
                ? { low: line.slopeInterval.low * fit.factor, high: line.slopeInterval.high * fit.factor }
                : null,
              r2: line.r2,
              units: n,
            },
          ]
        : [],
    );
    return rows.length > 0
      ? [
          {
            metric: fit.metric,
            per: fit.per,
            against: recorded ? fit.per : (param ?? fit.per),
            label: fit.label,
            factor: fit.factor,
            rows,
          },
        ]
      : [];
  });
}

/** A variant's mean curve: at each x, the mean of every repetition's value there. */
export function meanCurve(points: readonly SeriesPoint[], metric: string, variant: string): { x: number; y: number }[] {
  const byX = new Map<number, number[]>();
  for (const p of points)
    if (p.metric === metric && p.variant === variant) byX.set(p.x, [...(byX.get(p.x) ?? []), p.value]);
  return [...byX.entries()].map(([x, ys]) => ({ x, y: mean(ys) })).sort((a, b) => a.x - b.x);
}

/**
 * Per series chart and declared pair: where the two variants' mean curves cross (`findCrossings`)
 * — for curves against a quantity the work grows (rows inserted), where one variant overtakes the
 * other. A curve against the seconds of a window (fillfactor's tps every 5 s) is a rate sampled
 * in time around a steady level: where two such lines touch is noise, not a finding, and the
 * question is answered by the window's mean rate and its test; those charts get no crossings.
 */
export function declaredCrossings(doc: ScenarioDocument, series: readonly SeriesPoint[]): CrossingAnswer[] {
  return doc.report.charts.flatMap((chart) => {
    if (chart.kind !== 'series') return [];
    if (chart.x_unit !== undefined && quantityOf(chart.x_unit) === 'duration') return [];
    return doc.comparisons.flatMap((pair) => {
      const a = meanCurve(series, chart.metric, pair.baseline);
      const b = meanCurve(series, chart.metric, pair.candidate);
      if (a.length < 2 || b.length < 2) return [];
      return [
        {
          metric: chart.metric,
          baseline: pair.baseline,
          candidate: pair.candidate,
          crossings: findCrossings(a, b),
        },
      ];
    });
  });
}
