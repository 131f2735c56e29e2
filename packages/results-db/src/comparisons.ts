/**
 * Comparisons and findings: samples loaded by comparison-samples.ts (SQL), grouped and compared
 * by comparison-groups.ts (pure); "hardware like mine" is similar-hardware.ts.
 */
import {
  type ComparisonGroupRecord,
  type ComparisonParams,
  type ComparisonResultRecord,
  type FindingRecord,
  type FindingsQuery,
} from '@tunelab/contracts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { loadSamples } from './comparison-samples.ts';
import { defaultMetric, findingsOf, groupSamples, type Filters } from '@tunelab/answers';
import type { ScenarioCatalog } from './scenario-catalog.ts';
import type { DbContext, Queries } from './context.ts';

export { findingsOf } from '@tunelab/answers';
export { findSimilarHardware } from './similar-hardware.ts';

/** A comparison's query as asked: the metric may be absent (then `resolveMetric` picks it). */
export type ComparisonFilters = Omit<Filters, 'metric'> & { metric?: string | undefined };

/** The query with its metric: as asked, else the scenario's primary metric, else `duration` (no scenario, or one without a folder). */
export async function resolveMetric(q: ComparisonFilters, catalog?: ScenarioCatalog): Promise<Filters> {
  if (q.metric !== undefined) return { ...q, metric: q.metric };
  const loaded = q.scenario !== undefined && catalog ? await catalog.get(q.scenario) : null;
  return { ...q, metric: defaultMetric(loaded?.doc) };
}

/** Per group: per-variant summaries and, per comparison pair, difference, CI, p-values, verdict. */
export async function compareVariants(
  prisma: PrismaClient,
  asked: ComparisonFilters,
  catalog?: ScenarioCatalog,
): Promise<ComparisonResultRecord> {
  const q = await resolveMetric(asked, catalog);
  return groupSamples(await loadSamples(prisma, q), q, catalog ? await catalog.docs() : new Map());
}

/** The query that compares exactly one group: its scenario, metric, source, server, point and hardware. */
function comparisonParams(g: ComparisonGroupRecord, q: Pick<FindingsQuery, 'groupBy' | 'direction'>): ComparisonParams {
  const hw = g.hardware;
  return {
    scenario: g.scenario.key,
    metric: g.metric,
    source: g.source,
    // A published group's server is what its article stated (or nothing): no filter to narrow by.
    ...(g.source === 'measured' ? { engine: g.engine.engine, major: String(g.engine.major) } : {}),
    groupBy: q.groupBy,
    ...(q.direction !== undefined ? { direction: q.direction } : {}),
    ...(g.point ? { point: String(g.point.value) } : {}),
    ...(hw.fingerprint
      ? { hardware: hw.fingerprint }
      : {
          storage: hw.storageKind,
          minCores: String(hw.physicalCores),
          maxCores: String(hw.physicalCores),
          minMemoryGb: String(hw.memoryGb),
          maxMemoryGb: String(hw.memoryGb),
        }),
  };
}

/** Verdict sentences per scenario × group × pair, newest data first, with the runs behind each. */
export async function listFindings(
  prisma: PrismaClient,
  q: FindingsQuery,
  catalog?: ScenarioCatalog,
): Promise<{ items: FindingRecord[] }> {
  const { limit, ...filters } = q;
  const result = await compareVariants(prisma, filters, catalog);
  return { items: findingsOf(result.groups, (g) => comparisonParams(g, q)).slice(0, limit) };
}

/** Comparisons and findings as `ResultsDb` methods (see context.ts). */
export const comparisonQueries = {
  compare: (db: DbContext, q: ComparisonFilters) => compareVariants(db.prisma, q, db.catalog),
  listFindings: (db: DbContext, q: FindingsQuery) => listFindings(db.prisma, q, db.catalog),
} satisfies Queries;
