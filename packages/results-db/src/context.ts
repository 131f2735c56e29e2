/**
 * How the `ResultsDb` facade (index.ts) is derived from the domain modules: each module ends with
 * one object of its queries, `name: (db, ...args) => result`, and the facade binds every entry
 * to the open database. A new query is one entry in its module's object, plus its route.
 */
import type { PrismaClient } from './generated/prisma/client.ts';
import type { Connection, SqlRunner } from './connection.ts';
import type { ScenarioCatalog } from './scenario-catalog.ts';

/** What a query is given: the open connection (Prisma, the driver) and the scenario catalog. */
export type DbContext = { prisma: PrismaClient; sql: SqlRunner; conn: Connection; catalog: ScenarioCatalog };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any argument list; Methods<Q> keeps each entry's own
export type Queries = Record<string, (db: DbContext, ...args: any[]) => unknown>;

/** A module's queries as the facade's methods: the context bound, the rest of the signature kept. */
export type Methods<Q extends Queries> = {
  [K in keyof Q]: Q[K] extends (db: DbContext, ...args: infer A) => infer R ? (...args: A) => R : never;
};

export function bindQueries<Q extends Queries>(queries: Q, db: DbContext): Methods<Q> {
  const bound = Object.entries(queries).map(([name, query]) => [name, (...args: unknown[]) => query(db, ...args)]);
  return Object.fromEntries(bound) as Methods<Q>;
}
