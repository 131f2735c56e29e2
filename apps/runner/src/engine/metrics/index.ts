import type { MetricDef, MetricSourceName } from '@tunelab/contracts';
import { recordedSource } from './recorded.ts';
import { relationSizeSource } from './relation-size.ts';
import { tableStatSource } from './table-stat.ts';
import { timedSource } from './timed.ts';
import { tupleStatSource } from './tuple-stat.ts';
import type { MetricSource, UnitData } from './types.ts';
import { walSource } from './wal.ts';
import { completeRegistry } from '../registry.ts';

export type { Observed, UnitData } from './types.ts';

/** A source as the registry holds it: the metric is checked against the source's own schema. */
type Registered<S extends MetricSourceName> = {
  source: S;
  relation(m: MetricDef): string | null;
  extensions: readonly string[];
  tupleStats: boolean;
  value(m: MetricDef, data: UnitData): number | null;
};
function register<S extends MetricSourceName>(s: MetricSource<S>): Registered<S> {
  return {
    source: s.source,
    relation: (m) => (s.relation ? s.relation(s.schema.parse(m)) : null),
    extensions: s.extensions ?? [],
    tupleStats: s.tupleStats ?? false,
    value: (m, data) => s.value(s.schema.parse(m), data),
  };
}

/** THE list of metric sources; one entry per schema of contracts' METRIC_SCHEMAS. */
const SOURCES = [
  register(timedSource),
  register(relationSizeSource),
  register(tableStatSource),
  register(tupleStatSource),
  register(walSource),
  register(recordedSource),
] as const;

/** Does not compile while a source of contracts has no reader here. */
const METRIC_SOURCES = completeRegistry<MetricSourceName>()('source', SOURCES);

function sourceOf(m: MetricDef): Registered<MetricSourceName> {
  const source = METRIC_SOURCES.get(m.source);
  if (!source) throw new Error(`no reader for metric source "${m.source}"`);
  return source;
}

/** What the scenario's metrics need observed and installed. */
export function metricNeeds(metrics: readonly MetricDef[]): {
  relations: string[];
  tupleStats: boolean;
  extensions: string[];
} {
  const sources = metrics.map((m) => ({ m, s: sourceOf(m) }));
  return {
    relations: [...new Set(sources.flatMap(({ m, s }) => s.relation(m) ?? []))],
    tupleStats: sources.some(({ s }) => s.tupleStats),
    extensions: [...new Set(sources.flatMap(({ s }) => s.extensions))],
  };
}

export function metricValue(m: MetricDef, data: UnitData): number | null {
  return sourceOf(m).value(m, data);
}
