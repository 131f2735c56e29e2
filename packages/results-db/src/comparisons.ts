/**
 * Comparisons and findings: samples loaded by comparison-samples.ts (SQL), grouped and compared
 * by comparison-groups.ts (pure); "hardware like mine" is similar-hardware.ts.
 */
import {
  type ComparisonGroup,
  type ComparisonResult,
  type Finding,
  type FindingsQuery,
} from '@tunelab/contracts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { loadSamples, type Filters } from './comparison-samples.ts';
import { findingsOf, groupSamples } from './comparison-groups.ts';

export { findingsOf } from './comparison-groups.ts';
export { findSimilarHardware } from './similar-hardware.ts';

/** Per group: per-variant summaries and, per comparison pair, difference, CI, p-values, verdict. */
export async function compareVariants(prisma: PrismaClient, q: Filters): Promise<ComparisonResult> {
  return groupSamples(await loadSamples(prisma, q), q);
}

function comparisonLink(g: ComparisonGroup, q: FindingsQuery): string {
  const p = new URLSearchParams({ scenario: g.scenario.key, metric: g.metric, source: g.source, groupBy: q.groupBy, direction: q.direction });
  if (g.point) p.set('point', String(g.point.value));
  if (g.hardware.fingerprint) p.set('hardware', g.hardware.fingerprint);
  else {
    p.set('storage', g.hardware.storageKind);
    p.set('minCores', String(g.hardware.physicalCores));
    p.set('maxCores', String(g.hardware.physicalCores));
    p.set('minMemoryGb', String(g.hardware.memoryGb));
    p.set('maxMemoryGb', String(g.hardware.memoryGb));
  }
  return `/v1/comparisons?${p.toString()}`;
}

/** Verdict sentences per scenario × group × pair, newest data first, with the runs behind each. */
export async function listFindings(prisma: PrismaClient, q: FindingsQuery): Promise<{ items: Finding[] }> {
  const { limit, ...filters } = q;
  const result = await compareVariants(prisma, filters);
  return { items: findingsOf(result.groups, (g) => comparisonLink(g, q)).slice(0, limit) };
}
