/** A run that arrived late: its received time moved before every other run's in the test database. */
import { prismaOf } from '@tunelab/results-db/testing';
import { openTestResultsDb } from './fresh-db.ts';

export async function receiveFirst(dataDir: string, idempotencyKey: string): Promise<void> {
  const db = await openTestResultsDb(dataDir);
  try {
    await prismaOf(db).$executeRawUnsafe(
      `UPDATE runs SET received_at = (SELECT min(received_at) FROM runs) - interval '1 hour' WHERE idempotency_key = $1`,
      idempotencyKey,
    );
  } finally {
    await db.close();
  }
}
