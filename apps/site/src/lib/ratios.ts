/**
 * The ratios a scenario declares in `report.ratios` (scenario.yaml): per hardware class, each
 * variant's mean of `metric` ÷ the baseline variant's, with a 95 % Fieller interval (the same
 * relative difference the verdicts use), beside the article's ratio when published.json has one.
 * Every unit of the class is pooled (the declaration is for a metric the sweep does not change).
 */
import type { ReportRatio } from '@tunelab/contracts';
import { mean, relativeDifference } from '@tunelab/stats';
import type { ScenarioView, SiteData } from './load.ts';
import { runsOf } from './report-charts.ts';
import { unitFor } from './units.ts';

export type RatioRow = {
  variant: string;
  label: string;
  mean: string;
  ratio: string;
  interval: string;
  article: string;
  /** Does the article's ratio fall inside the measured interval? null without one of them. */
  agrees: boolean | null;
  /** What the Reproduced column says: yes / no, or why it cannot say. */
  reproduced: string;
  units: number;
};
export type RatioTable = {
  id: string;
  heading: string;
  ratio: ReportRatio;
  unitLabel: string;
  rows: RatioRow[];
  caption: string;
};

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
const two = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function declaredRatios(sc: ScenarioView, data: SiteData): RatioTable[] {
  const doc = sc.folder?.doc;
  if (!doc?.report.ratios?.length) return [];
  const byClass = runsOf(sc, data).measured;
  const out: RatioTable[] = [];
  for (const ratio of doc.report.ratios) {
    const metric = doc.metrics.find((m) => m.key === ratio.metric);
    const article = ratio.published ? sc.folder?.figures[ratio.published] : undefined;
    for (const [cls, runs] of [...byClass.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const values = new Map<string, number[]>();
      for (const run of runs)
        for (const s of run.samples)
          if (s.metric === ratio.metric) values.set(s.variant, [...(values.get(s.variant) ?? []), s.value]);
      const base = values.get(ratio.baseline);
      if (!base?.length) continue;
      const unit = unitFor(metric?.unit ?? '', [...values.values()].flat());
      const baseMean = mean(base);
      const rows: RatioRow[] = doc.variants
        .filter((v) => values.has(v.key))
        .map((v) => {
          const vs = values.get(v.key)!;
          const m = mean(vs);
          const point = baseMean !== 0 ? m / baseMean : Number.NaN;
          let low: number | null = null;
          let high: number | null = null;
          if (v.key !== ratio.baseline && vs.length >= 2 && base.length >= 2 && Number.isFinite(point)) {
            const d = relativeDifference(base, vs);
            low = 1 + d.ci.low;
            high = 1 + d.ci.high;
          }
          const theirs = article?.[v.key];
          const interval =
            v.key === ratio.baseline
              ? 'baseline'
              : low === null || high === null
                ? 'needs two units each'
                : !Number.isFinite(low) || !Number.isFinite(high)
                  ? 'unbounded'
                  : high - low < 0.005
                    ? 'no spread'
                    : `${two(low)} to ${two(high)}`;
          const slack = ratio.tolerance * point;
          const agrees =
            theirs === undefined || v.key === ratio.baseline
              ? null
              : low !== null && high !== null && Number.isFinite(low) && Number.isFinite(high)
                ? theirs >= low - slack && theirs <= high + slack
                : null;
          return {
            variant: v.key,
            label: v.label,
            mean: `${unit.format(m)}`,
            ratio: Number.isFinite(point) ? two(point) : 'n/a',
            interval,
            article: theirs === undefined ? 'not published' : two(theirs),
            agrees,
            reproduced:
              agrees === true
                ? 'yes'
                : agrees === false
                  ? 'no'
                  : v.key === ratio.baseline
                    ? 'baseline'
                    : theirs === undefined
                      ? 'no article figure'
                      : 'needs an interval',
            units: vs.length,
          };
        });
      const unitsTotal = rows.reduce((n, r) => n + r.units, 0);
      out.push({
        id: `ratio-${slug(ratio.metric)}-${slug(cls)}`,
        heading: `${ratio.label}: ${cls}`,
        ratio,
        unitLabel: unit.label,
        rows,
        caption: `${metric?.label ?? ratio.metric}, mean over every measured unit of the class (${unitsTotal} in all), ÷ the mean of ${ratio.baseline}; 95% Fieller interval of the ratio.${article ? ` “Article”: the ratio of the figures it published; reproduced = inside the interval${ratio.tolerance > 0 ? ` widened by ${Math.round(ratio.tolerance * 100)}% for the rounding of the article’s figures` : ''}.` : ''}`,
      });
    }
  }
  return out;
}
