/**
 * A hardware class's distribution chart (MeasuredGroup.astro) is drawn inline, except when it
 * holds more than MANY_DOTS repetitions or its page has more than INLINE_CHART_GROUPS groups:
 * then it is its own file beside the scenario page
 * (`/scenarios/<key>/charts/<group>-wide.svg` and `-narrow.svg`, src/pages/scenarios/[key]/charts),
 * which the page shows in a <picture> inside its fold, fetched when the fold is opened. A fleet's
 * scenario page of 75 such classes carried 150 inline charts, 12 of its 13 MB.
 */
import { distributionDesc, drawsDotsAsOneShape, type DistributionInput } from './charts.ts';
import { durationUnitLabel, formatValue } from './format.ts';
import type { Metric } from './load.ts';
import type { MeasuredTable } from './views.ts';

export type ChartWidth = 'wide' | 'narrow';

/** The chart of one class group's repetitions, per variant. */
export function distributionInput(t: MeasuredTable, metric: Metric): DistributionInput {
  return {
    title: `${metric.label}: ${t.heading}`,
    variants: t.rows.map((r) => ({ label: r.variant, values: r.values })),
    axisName: metric.unit === 's' ? durationUnitLabel(t.format) : metric.unit,
    formatValue: (v: number) => formatValue(v, metric.unit, t.format),
    fromZero: metric.direction === 'higher-is-better',
  };
}

/**
 * A scenario page draws at most this many measured groups' charts inline (a group is one hardware
 * class at one sweep point, scenario version and server). With more groups every group's chart is
 * a file, so the page does not grow with the fleet: at 1,000 runs on 75 classes (a dozen runs each,
 * under MANY_DOTS) the 75 inline charts were 4.0 of the page's 4.9 MB.
 */
export const INLINE_CHART_GROUPS = 4;

/** Whether a group's chart is a file of its own rather than inline, on a page of `groupsOnPage` measured groups. */
export const chartIsFile = (t: MeasuredTable, groupsOnPage: number) =>
  groupsOnPage > INLINE_CHART_GROUPS || drawsDotsAsOneShape(t.rows);

/** The file name of a group's chart at one width, under `/scenarios/<key>/charts/`. */
export const chartFileName = (t: MeasuredTable, width: ChartWidth) => `${t.id}-${width}.svg`;

export const chartFileUrl = (t: MeasuredTable, width: ChartWidth) =>
  `/scenarios/${t.group.scenario.key}/charts/${chartFileName(t, width)}`;

/** The text a chart file's <img> carries: the chart's label and its per-variant summary. */
export const chartFileAlt = (label: string, input: DistributionInput) => `${label}. ${distributionDesc(input)}.`;
