/** The embedded results database: PGlite in a data directory this process owns (or in memory). */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/prisma/client.ts';
import { applyMigrations, type ScriptRunner } from './migrate.ts';
import { takeOwnership } from './owner.ts';
import { PgliteThread } from './pglite-thread.ts';
import { DEFAULT_DATA_DIR, type Connection, type OpenOptions, type SqlRunner } from './connection.ts';

export async function openPglite(options: OpenOptions = {}): Promise<Connection> {
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  // One process per directory (see owner.ts): taken before PGlite reads a single file.
  const ownership = inMemory ? undefined : await takeOwnership(dataDir, options.onOwnershipLost);
  let client: PGlite | PgliteThread;
  try {
    const where = inMemory ? dataDir : resolve(dataDir);
    client =
      options.pgliteThread === 'main'
        ? await PGlite.create(where)
        : await PgliteThread.create(where, {
            onExit:
              options.onThreadExit ??
              ((err) => {
                throw err;
              }),
            ...(options.pgliteThreadLimits ? { resourceLimits: options.pgliteThreadLimits } : {}),
          });
  } catch (err) {
    await ownership?.release();
    throw err;
  }
  // The adapter calls query (rowMode, parsers), exec and transaction, which PgliteThread offers as PGlite does.
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(client as PGlite) });
  // pglite-prisma-adapter 0.7's executeScript does not await PGlite's exec (errors would escape
  // as unhandled rejections), so scripts go to the PGlite client directly.
  const scripts: ScriptRunner = {
    executeScript: async (sql) => {
      try {
        await client.exec(sql);
      } catch (err) {
        await client.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
    queryRows: async <T>(sql: string) => (await client.query<T>(sql)).rows,
  };
  const sql: SqlRunner = {
    binaryParameters: false,
    query: async <T>(text: string, params: unknown[]) => (await client.query<T>(text, params)).rows,
    transaction: (fn) =>
      client.transaction((tx) =>
        fn({ query: async <T>(text: string, params: unknown[]) => (await tx.query<T>(text, params)).rows }),
      ),
  };
  return {
    kind: 'pglite',
    sql,
    prisma,
    scripts,
    description: `embedded PGlite in ${dataDir}`,
    queueTarget: { pglite: client },
    migrate: () => applyMigrations(scripts),
    ...(ownership ? { ownership } : {}),
    close: async () => {
      try {
        await prisma.$disconnect();
        await client.close();
      } finally {
        await ownership?.release();
      }
    },
  };
}
