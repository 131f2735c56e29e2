/**
 * The declared ratios and fits of a scenario's answers (@tunelab/answers) as tables: numbers
 * rounded for people, one table per class and conditions (the points of a sweep share their runs,
 * so their ratios and fits are the same). Nothing is computed here but the formatting.
 */
import { metricName } from './format.ts';
import type { Agreement, FitAnswer, RatioAnswer, ScenarioAnswers } from '@tunelab/contracts';
import type { ScenarioView } from './load.ts';
import { groupServer, serverKey } from './servers.ts';
import { UNBOUNDED_INTERVAL_TEXT } from '@tunelab/stats';
import { unitFor } from './units.ts';

export type RatioRow = {
  variant: string;
  label: string;
  mean: string;
  ratio: string;
  interval: string;
  article: string;
  agrees: boolean | null;
  /** The answer's agreement on this ratio (its pair's, @tunelab/answers): comparability weighed, not only the interval. */
  agreement: Agreement | null;
  reproduced: string;
  units: number;
};
export type RatioTable = {
  id: string;
  heading: string;
  ratio: { label: string; baseline: string };
  unitLabel: string;
  rows: RatioRow[];
  caption: string;
};
export type FitRow = { variant: string; label: string; slope: string; interval: string; r2: string; units: number };
export type FitTable = { id: string; heading: string; fit: { label: string }; rows: FitRow[]; caption: string };

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
const two = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Rounded to what a per-unit cost needs: 2,946 · 31.5 · 0.52 · 0 (an exact zero, e.g. the article's 0 s at 1-second resolution). */
function perUnit(v: number): string {
  const a = Math.abs(v);
  if (a < 1e-9) return '0';
  const decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 0.01 ? 2 : 4;
  return v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

type Group = ScenarioAnswers['groups'][number];
/** One group per class and conditions (the first point of a sweep stands for all). */
function distinct(answers: ScenarioAnswers | null): Group[] {
  const seen = new Set<string>();
  return (answers?.groups ?? []).filter((a) => {
    const g = a.group;
    const key = `${g.hardware.class}|${serverKey(groupServer(g))}|${JSON.stringify(g.params)}|${g.scenario.version}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const headingOf = (a: Group) =>
  a.name.replace(/ · [^·]+ = [\d,.]+(?= ·|$)/, (m) => (a.group.point && m.includes(a.group.point.param) ? '' : m));

export function ratioTables(sc: ScenarioView): RatioTable[] {
  const doc = sc.folder?.doc;
  if (!doc) return [];
  return distinct(sc.answers).flatMap((a) =>
    a.ratios.map((r: RatioAnswer) => {
      const metric = doc.metrics.find((m) => m.key === r.metric);
      const unit = unitFor(
        metric?.unit ?? '',
        r.rows.map((x) => x.mean),
      );
      const decl = doc.report.ratios?.find((d) => d.metric === r.metric && d.baseline === r.baseline);
      const tolerance = decl?.tolerance ?? 0;
      const units = r.rows.reduce((n, x) => n + x.units, 0);
      const hasArticle = r.rows.some((x) => x.article !== null);
      return {
        id: `ratio-${slug(r.metric)}-${slug(a.group.key)}`,
        heading: `${r.label}: ${headingOf(a)}`,
        ratio: { label: r.label, baseline: r.baseline },
        unitLabel: unit.label,
        rows: r.rows.map((x) => ({
          variant: x.variant,
          label: sc.variantLabels[x.variant] ?? '',
          mean: unit.format(x.mean),
          ratio: x.ratio === null ? 'n/a' : two(x.ratio),
          interval:
            x.variant === r.baseline
              ? 'baseline'
              : x.interval === null
                ? 'needs two units each'
                : x.interval.low === null || x.interval.high === null
                  ? UNBOUNDED_INTERVAL_TEXT
                  : x.interval.high - x.interval.low < 0.005
                    ? 'no spread'
                    : `${two(x.interval.low)} to ${two(x.interval.high)}`,
          article: x.variant === r.baseline ? two(1) : x.article === null ? 'not published' : two(x.article),
          agrees: x.agrees,
          agreement:
            a.pairs.find((p) => p.baseline === r.baseline && p.candidate === x.variant && p.article?.kind === 'ratio')
              ?.agreement ?? null,
          reproduced:
            x.agrees === true
              ? 'yes'
              : x.agrees === false
                ? 'no'
                : x.variant === r.baseline
                  ? 'baseline'
                  : x.article === null
                    ? 'no article figure'
                    : 'needs an interval',
          units: x.units,
        })),
        caption: `${metricName(r.metric, metric?.label)}, mean over every measured unit of the group (${units} in all), ÷ the mean of ${r.baseline}; 95% Fieller interval of the ratio.${hasArticle ? ` “Article”: the ratio of the figures it published; “inside” = the article’s ratio lies inside the interval${tolerance > 0 ? ` widened by ${Math.round(tolerance * 100)}% for the rounding of the article’s figures` : ''}.` : ''}`,
      };
    }),
  );
}

function fitTable(sc: ScenarioView, f: FitAnswer, id: string, heading: string, caption: string): FitTable {
  return {
    id,
    heading,
    fit: { label: f.label },
    rows: f.rows.map((r) => {
      // Every figure equal (an article's zeros under its clock's tick): no line to fit, and r² is 0/0.
      if (r.slope === 0 && r.interval !== null && r.interval.high - r.interval.low < 1e-12)
        return {
          variant: r.variant,
          label: sc.variantLabels[r.variant] ?? '',
          slope: 'no slope: every figure is the same',
          interval: '—',
          r2: '—',
          units: r.units,
        };
      return {
        variant: r.variant,
        label: sc.variantLabels[r.variant] ?? '',
        slope: perUnit(r.slope),
        interval: !r.interval
          ? 'needs three units'
          : r.interval.high - r.interval.low < 1e-12
            ? 'no spread'
            : `${perUnit(r.interval.low)} to ${perUnit(r.interval.high)}`,
        r2: r.r2.toFixed(2),
        units: r.units,
      };
    }),
    caption,
  };
}

export function fitTables(sc: ScenarioView): FitTable[] {
  const doc = sc.folder?.doc;
  if (!doc) return [];
  const label = (k: string) => metricName(k, doc.metrics.find((m) => m.key === k)?.label);
  const measured = distinct(sc.answers).flatMap((a) =>
    a.fits.map((f) =>
      fitTable(
        sc,
        f,
        `fit-${slug(f.metric)}-${slug(a.group.key)}`,
        `${f.label}: ${headingOf(a)}`,
        `${label(f.metric)} against ${label(f.per)}, least-squares line over every measured unit (${a.group.runCount} ${a.group.runCount === 1 ? 'run' : 'runs'}). The slope (${f.label}) is what each additional unit of “${label(f.per)}” adds; r² near 1 means the line explains the spread.`,
      ),
    ),
  );
  const article = distinct(sc.articleAnswers).flatMap((a) =>
    a.fits.map((f) =>
      fitTable(
        sc,
        f,
        `fit-${slug(f.metric)}-published-${slug(a.group.key)}`,
        `${f.label}: the article`,
        `The article’s figures fitted the same way${f.against !== f.per ? `, against its ${f.against} (it did not record ${label(f.per)})` : ''}.`,
      ),
    ),
  );
  return [...measured, ...article];
}
