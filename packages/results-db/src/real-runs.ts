/**
 * For tests: a fresh results database holding the published figures and the real default-scale
 * runs of the scenarios (`tunelab run … --out` on the development machine, tests/fixtures/real-runs).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openResultsDb, type ResultsDb } from './index.ts';
import { createTestDatabase } from './test-database.ts';
import { ingestDocument } from './testing.ts';

export const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
/** The scenarios with a real run on PostgreSQL in tests/fixtures/real-runs. */
export const REAL_RUN_KEYS = [
  'fillfactor-hot-updates',
  'recovery-init-sync',
  'vacuum-full-rewrite',
  'vacuum-index-cleanup',
];

/** The submission of a scenario's real run. */
export const realRun = (key: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../../tests/fixtures/real-runs/${key}.json`, import.meta.url), 'utf8')) as {
      submission: unknown;
    }
  ).submission;

/** A database named `<prefix>_<random>` with the published figures and the real runs ingested; close() drops it. */
export async function databaseWithRealRuns(prefix: string): Promise<{ db: ResultsDb; close: () => Promise<void> }> {
  const pg = await createTestDatabase(prefix);
  const db = await openResultsDb(pg.url, { scenariosDir: SCENARIOS });
  await db.migrate();
  await db.importPublished(SCENARIOS);
  for (const [i, key] of REAL_RUN_KEYS.entries()) {
    const doc = realRun(key);
    await ingestDocument(db, doc, `${prefix}-${i}`);
  }
  return {
    db,
    close: async () => {
      await db.close();
      await pg.drop();
    },
  };
}
