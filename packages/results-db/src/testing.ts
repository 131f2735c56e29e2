// `@tunelab/results-db/testing`: helpers for tests and benchmarks only. Apps use the ResultsDb
// interface of the main entry point.
import type { PrismaClient } from './generated/prisma/client.ts';
import { internalsOf } from './internals.ts';
import type { ScriptRunner } from './migrate.ts';

export { createTestDatabase, TEST_PG_ADMIN_URL } from './test-database.ts';

/** The Prisma client behind `db`, for row-level assertions in tests. */
export const prismaOf = (db: object): PrismaClient => internalsOf(db).prisma;

/** The script runner behind `db` (whole SQL scripts on one connection), for migration tests. */
export const scriptsOf = (db: object): ScriptRunner => internalsOf(db).scripts;
