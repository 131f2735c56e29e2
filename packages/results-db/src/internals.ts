// The Prisma client and script runner behind an open ResultsDb. The public interface never hands
// them out; only `./testing` (row-level assertions in tests, benchmarks) reads them from here.
import type { PrismaClient } from './generated/prisma/client.ts';
import type { ScriptRunner } from './migrate.ts';

type Internals = { prisma: PrismaClient; scripts: ScriptRunner };
const INTERNALS = new WeakMap<object, Internals>();

export const registerInternals = (db: object, internals: Internals) => void INTERNALS.set(db, internals);

export function internalsOf(db: object): Internals {
  const found = INTERNALS.get(db);
  if (!found) throw new Error('not a ResultsDb opened with openResultsDb');
  return found;
}
