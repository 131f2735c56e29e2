/**
 * Which way is better for a metric: the scenario's declaration (`better` in scenario.yaml), a
 * caller's override, or `descriptive` for a metric that describes the conditions (a size before
 * the step, files in the data directory) and gets no verdict.
 */
import type { DirectionSource, MetricDirection, ScenarioDocument, UsedDirection } from '@tunelab/contracts';
import type { Quantity } from '@tunelab/stats';

const DURATION_UNITS = new Set(['ns', 'us', 'µs', 'ms', 's', 'min', 'h']);
const RATE_UNITS = new Set(['tps', 'qps', 'NOPM', 'TPM', 'nopm', 'tpm']);

/**
 * What a unit measures, for the words of a verdict: a `duration` (s, ms…) and a `rate` (tps,
 * NOPM, rows/s…) can be faster or slower; anything else (bytes, MB, counts, %) is an `amount`,
 * which is lower or higher.
 */
export function quantityOf(unit: string): Quantity {
  const u = unit.trim();
  if (DURATION_UNITS.has(u)) return 'duration';
  if (RATE_UNITS.has(u) || u.includes('/') || /_per_(s|min|h)$/.test(u)) return 'rate';
  return 'amount';
}

export type ResolvedDirection = { direction: UsedDirection; from: DirectionSource };

/** The metric's declared direction; `override` (the `direction` query parameter) wins over it. */
export function metricDirection(
  doc: Pick<ScenarioDocument, 'metrics'> | null | undefined,
  metric: string,
  override?: MetricDirection,
): ResolvedDirection {
  if (override !== undefined) return { direction: override, from: 'query' };
  const def = doc?.metrics.find((m) => m.key === metric);
  if (!def) return { direction: 'lower-is-better', from: 'default' };
  if (def.descriptive === true) return { direction: 'descriptive', from: 'scenario' };
  return { direction: def.better === 'higher' ? 'higher-is-better' : 'lower-is-better', from: 'scenario' };
}

/** Per declared metric: key, label, unit and the direction a comparison of it uses. */
export function metricList(doc: Pick<ScenarioDocument, 'metrics'>) {
  return doc.metrics.map((m) => ({
    key: m.key,
    label: m.label ?? m.key,
    unit: m.unit,
    direction: metricDirection(doc, m.key).direction,
  }));
}

/**
 * The metric that answers the scenario's question: `report.primary_metric`, else `duration` when
 * declared, else the first declared goal.
 */
export function primaryMetric(doc: Pick<ScenarioDocument, 'metrics' | 'report'>): string {
  if (doc.report.primary_metric) return doc.report.primary_metric;
  if (doc.metrics.some((m) => m.key === 'duration')) return 'duration';
  return (doc.metrics.find((m) => m.descriptive !== true) ?? doc.metrics[0])?.key ?? 'duration';
}

/** The metric a comparison uses when none is asked for: the scenario's primary metric, else `duration` (no scenario). */
export function defaultMetric(doc: Pick<ScenarioDocument, 'metrics' | 'report'> | null | undefined): string {
  return doc ? primaryMetric(doc) : 'duration';
}
