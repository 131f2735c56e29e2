/**
 * The straight lines a scenario declares in `report.fits` (scenario.yaml): per hardware class and
 * variant, `metric` against `per` over every measured unit, slope × factor with its 95 % interval —
 * e.g. "µs per file" of the data-directory sync. The article's runs are fitted the same way; when
 * they did not record `per`, against their sweep parameter (the caption says so).
 */
import type { ReportFit, RunDetail } from '@tunelab/contracts';
import { fitByVariant, type FitSample, type VariantFit } from '@tunelab/stats';
import type { ScenarioView, SiteData } from './load.ts';
import { runsOf } from './report-charts.ts';

export type FitRow = { variant: string; label: string; slope: string; interval: string; r2: string; units: number };
export type FitTable = { id: string; heading: string; fit: ReportFit; rows: FitRow[]; caption: string };

/** Rounded to what a per-unit cost needs: 2,946 · 31.5 · 0.52 · 0 (an exact zero, e.g. the article's 0 s at 1-second resolution). */
function perUnit(v: number): string {
  const a = Math.abs(v);
  if (a < 1e-9) return '0';
  const decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 0.01 ? 2 : 4;
  return v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();

function samplesOf(runs: RunDetail[], perFromPoint: string | null): FitSample[] {
  return runs.flatMap((run) =>
    run.samples.flatMap((s) => {
      const own = {
        run: run.id,
        variant: s.variant,
        repetition: s.repetition,
        point: s.point ?? null,
        metric: s.metric,
        value: s.value,
      };
      // The article's runs may lack `per`: their sweep point stands in for it.
      return perFromPoint && s.point ? [own, { ...own, metric: perFromPoint, value: s.point.value }] : [own];
    }),
  );
}

function rowsOf(fits: VariantFit[], fit: ReportFit, labels: Record<string, string>): FitRow[] {
  return fits
    .filter((f) => f.fit)
    .map(({ variant, fit: line, n }) => ({
      variant,
      label: labels[variant] ?? '',
      slope: perUnit(line!.slope * fit.factor),
      interval: !line!.slopeInterval
        ? 'needs three units'
        : line!.slopeInterval.high - line!.slopeInterval.low < 1e-12
          ? 'no spread'
          : `${perUnit(line!.slopeInterval.low * fit.factor)} to ${perUnit(line!.slopeInterval.high * fit.factor)}`,
      r2: line!.r2.toFixed(2),
      units: n,
    }));
}

export function declaredFits(sc: ScenarioView, data: SiteData): FitTable[] {
  const doc = sc.folder?.doc;
  if (!doc?.report.fits?.length) return [];
  const { measured, published } = runsOf(sc, data);
  const out: FitTable[] = [];
  for (const fit of doc.report.fits) {
    const metricLabel = doc.metrics.find((m) => m.key === fit.metric)?.label ?? fit.metric;
    const perLabel = doc.metrics.find((m) => m.key === fit.per)?.label ?? fit.per;
    for (const [cls, runs] of [...measured.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const rows = rowsOf(fitByVariant(samplesOf(runs, null), fit.metric, fit.per), fit, sc.variantLabels);
      if (rows.length === 0) continue;
      out.push({
        id: `fit-${slug(fit.metric)}-${slug(cls)}`,
        heading: `${fit.label}: ${cls}`,
        fit,
        rows,
        caption: `${metricLabel} against ${perLabel}, least-squares line over every measured unit (${runs.length} ${runs.length === 1 ? 'run' : 'runs'}), ${cls}. The slope (${fit.label}) is what each additional unit of “${perLabel}” adds; r² near 1 means the line explains the spread.`,
      });
    }
    if (published.length > 0) {
      const recorded = published.some((run) => run.samples.some((s) => s.metric === fit.per));
      const param = published.flatMap((run) => run.samples).find((s) => s.point)?.point?.param ?? null;
      if (!recorded && !param) continue;
      const rows = rowsOf(
        fitByVariant(samplesOf(published, recorded ? null : fit.per), fit.metric, fit.per),
        fit,
        sc.variantLabels,
      );
      if (rows.length === 0) continue;
      out.push({
        id: `fit-${slug(fit.metric)}-published`,
        heading: `${fit.label}: the article`,
        fit,
        rows,
        caption: `The article’s figures fitted the same way${recorded ? '' : `, against its ${param} (it did not record ${perLabel})`}.`,
      });
    }
  }
  return out;
}
