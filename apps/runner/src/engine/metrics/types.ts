import type { z } from 'zod';
import type { MetricDef, MetricSourceName } from '@tunelab/contracts';
import type { RelationSizes, TableStats, TupleStats } from '../../engines/driver.ts';

/** Relation figures read from the unit's database before and after its steps. */
export type Observed = {
  sizes: Record<string, RelationSizes>;
  tableStats: Record<string, TableStats>;
  tupleStats: Record<string, TupleStats>;
};

/** What a source reads a metric's value from, for one measured unit. */
export type UnitData = {
  /** Values the unit's actions passed to `record()`. */
  recorded: ReadonlyMap<string, number>;
  before: Observed;
  after: Observed;
};

/** One metric source: its schema (from contracts) and how it turns a unit's data into a value. */
export type MetricSource<S extends MetricSourceName = MetricSourceName> = {
  source: S;
  schema: z.ZodType<Extract<MetricDef, { source: S }>>;
  /** The relation the engine must observe before and after the steps, if any. */
  relation?(metric: Extract<MetricDef, { source: S }>): string;
  /** Extensions the server must have (checked before the fixture is built). */
  extensions?: readonly string[];
  /** Whether pgstattuple figures must be observed. */
  tupleStats?: boolean;
  /** The value, or null when the unit did not produce it (the engine warns). */
  value(metric: Extract<MetricDef, { source: S }>, data: UnitData): number | null;
};

export const SIZE_FACTOR: Record<string, number> = { bytes: 1, kB: 1024, MB: 1024 * 1024 };
