// `@tunelab/results-db/testing`: helpers for tests and benchmarks only. Apps use the ResultsDb
// interface of the main entry point.
import { RunSubmission, type MeasuredHardware } from '@tunelab/contracts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { ResultsDb } from './index.ts';
import { internalsOf } from './internals.ts';
import type { ScriptRunner } from './migrate.ts';

export { createTestDatabase, TEST_PG_ADMIN_URL } from './test-database.ts';

/** The Prisma client behind `db`, for row-level assertions in tests. */
export const prismaOf = (db: object): PrismaClient => internalsOf(db).prisma;

/** The script runner behind `db` (whole SQL scripts on one connection), for migration tests. */
export const scriptsOf = (db: object): ScriptRunner => internalsOf(db).scripts;

/** Stores `doc` as a submission would be (validated, the document kept as sent) under `idempotencyKey`. */
export function ingestDocument(db: ResultsDb, doc: unknown, idempotencyKey: string, runnerId: string | null = null) {
  return db.ingestRun({ submission: RunSubmission.parse(doc), document: doc, idempotencyKey, runnerId });
}

/** A probe's figures of an SSD-like virtual disk (a real fio probe's), with `over` changed. */
export const probeFigures = (over: Partial<MeasuredHardware> = {}): MeasuredHardware => ({
  measuredAt: '2026-11-26T05:00:00.000Z',
  durationMs: 4200,
  diskTool: 'fio-3.33',
  fsyncP50Us: 155.5,
  fsyncP99Us: 815.1,
  fsyncSamples: 511,
  readIopsQd1: 15_951,
  readIopsQd16: 46_692,
  seqWriteMBps: 222.2,
  cpuScore: 1693,
  cpuWorkload: 'tunelab-cpu-1/node-20',
  loadAverage1m: 1.68,
  logicalCpus: 2,
  notes: [],
  ...over,
});
export {
  releaseRuns,
  releaseSubmission,
  RATIO,
  RELEASE_RUNS_SCENARIO,
  TWENTY_RELEASES,
  type ReleaseRunsOptions,
} from './release-runs.ts';
