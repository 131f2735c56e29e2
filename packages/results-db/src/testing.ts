// `@tunelab/results-db/testing`: helpers for tests and benchmarks only. Apps use the ResultsDb
// interface of the main entry point.
import { RunSubmission } from '@tunelab/contracts';
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
