/**
 * Opens a connection to the results database: PostgreSQL by URL (open-postgresql.ts), else the
 * embedded PGlite database in `options.dataDir` (open-pglite.ts). Their shared types: connection.ts.
 */
import type { Connection, OpenOptions } from './connection.ts';
import { openPglite } from './open-pglite.ts';
import { openPostgresql } from './open-postgresql.ts';

export * from './connection.ts';

export const openConnection = (url?: string, options: OpenOptions = {}): Promise<Connection> =>
  url ? openPostgresql(url, options) : openPglite(options);
