import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PublishedFile } from '@tunelab/contracts';
import { parsePublished } from '@tunelab/scenarios';
import { publishedSubmissions } from './published.ts';

const published = (key: string) => {
  const parsed = parsePublished(
    readFileSync(new URL(`../../../scenarios/${key}/published.json`, import.meta.url)),
    `${key}/published.json`,
  );
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.published;
};
const databasesOf = (file: PublishedFile, version: string) =>
  new Set(publishedSubmissions(file, version).map((r) => JSON.stringify(r.submission.database.engine)));

describe('the engine of a published run', () => {
  it('is the one the article names (a MariaDB or MySQL article is not labelled PostgreSQL)', () => {
    const { file, version } = published('vacuum-index-cleanup');
    const mariadb = { ...file, setup: { ...file.setup, server_version: '10.11.9-MariaDB' } };
    expect(databasesOf(mariadb, version)).toEqual(new Set(['"mariadb"']));
    const mysql = { ...file, setup: { ...file.setup, engine: 'MySQL 8.0.36, InnoDB' } };
    expect(databasesOf(mysql, version)).toEqual(new Set(['"mysql"']));
    const stated = published('recovery-init-sync');
    expect(databasesOf(stated.file, stated.version)).toEqual(new Set(['"postgresql"']));
  });

  it('is PostgreSQL for an article that states no engine (depesz states only a version)', () => {
    const { file, version } = published('vacuum-index-cleanup');
    expect(databasesOf(file, version)).toEqual(new Set(['"postgresql"']));
  });
});
