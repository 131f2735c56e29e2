/**
 * A measured group's distribution chart (MeasuredGroup.astro, on the group's own page) is drawn
 * inline, except when it holds more than MANY_DOTS repetitions: then it is its own file beside the
 * scenario page (`/scenarios/<key>/charts/<group>-wide.svg` and `-narrow.svg`,
 * src/pages/scenarios/[key]/charts), which the group's page shows in a <picture>, fetched lazily
 * and at the width of the screen; a fleet's group of thousands of repetitions drew 2 MB inline.
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

/** Whether a group's chart is a file of its own rather than inline. */
export const chartIsFile = (t: MeasuredTable) => drawsDotsAsOneShape(t.rows);

/** The file name of a group's chart at one width, under `/scenarios/<key>/charts/`. */
export const chartFileName = (t: MeasuredTable, width: ChartWidth) => `${t.id}-${width}.svg`;

export const chartFileUrl = (t: MeasuredTable, width: ChartWidth) =>
  `/scenarios/${t.group.scenario.key}/charts/${chartFileName(t, width)}`;

/** The text a chart file's <img> carries: the chart's label and its per-variant summary. */
export const chartFileAlt = (label: string, input: DistributionInput) => `${label}. ${distributionDesc(input)}.`;
