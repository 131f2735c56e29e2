// For this package's tests: the same suite runs on a throwaway PostgreSQL database and on
// in-memory PGlite, the two results databases TuneLab supports.
import { afterAll, beforeAll } from 'vitest';
import { openResultsDb, type ResultsDb } from './index.ts';
import { createTestDatabase } from './test-database.ts';

export const BACKENDS = ['postgresql', 'pglite'] as const;
export type Backend = (typeof BACKENDS)[number];

/** Opens and migrates a fresh results database for the enclosing describe; closes and drops it after. */
export function useResultsDb(backend: Backend): () => ResultsDb {
  let db: ResultsDb | undefined;
  let pgdb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    if (backend !== 'pglite') pgdb = await createTestDatabase();
    db = await openResultsDb(pgdb?.url, { dataDir: 'memory://' });
    await db.migrate();
  });
  afterAll(async () => {
    await db?.close();
    await pgdb?.drop();
  });
  return () => {
    if (!db) throw new Error('the results database is opened in beforeAll');
    return db;
  };
}
