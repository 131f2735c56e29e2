/**
 * Which results database an admin command wrote: a token minted into the wrong database is
 * refused (401) by an API on another, so every command that writes names it.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export type DatabaseWhere = { databaseUrl?: string | undefined; dataDir: string };

/** A PostgreSQL URL with its password (in the userinfo or a `password` parameter) masked. */
export function maskedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString();
  } catch {
    return 'a DATABASE_URL that is not a URL';
  }
}

/** The database as a sentence's object: the masked URL, or the embedded directory's absolute path. */
export function databaseName(where: DatabaseWhere): string {
  return where.databaseUrl
    ? `the PostgreSQL results database ${maskedUrl(where.databaseUrl)}`
    : `the embedded results database at ${resolve(where.dataDir)}`;
}

/**
 * Call before opening: returns the sentence to print once the command ran when it is about to
 * create a new embedded database (no DATABASE_URL, no directory yet), else null.
 */
export function newEmbeddedNotice(where: DatabaseWhere): string | null {
  if (where.databaseUrl || existsSync(where.dataDir)) return null;
  return `created a new embedded results database at ${resolve(where.dataDir)}; set DATABASE_URL to use a PostgreSQL one`;
}
