import { describe, expect, it } from 'vitest';
import { redactForPublic } from './redact.ts';

describe('redactForPublic', () => {
  it.each([
    [
      'cannot connect to postgres://tunelab:s3cr@t@db7.corp.example.com:5432/bench: ECONNREFUSED',
      'cannot connect to postgres://***: ECONNREFUSED',
    ],
    ['connect ECONNREFUSED 10.20.30.40:5432', 'connect ECONNREFUSED ***'],
    ['connect ECONNREFUSED [fd00::12]:3306', 'connect ECONNREFUSED ***'],
    ['connect ETIMEDOUT fd00:1:2::12', 'connect ETIMEDOUT ***'],
    ['host=db.internal port=5432 password=hunter2 user=bench', 'host=*** port=5432 password=*** user=***'],
    ['the server at pg-primary:6432 went away', 'the server at *** went away'],
    ['mail ops@db.example.org', 'mail ***'],
    ['token tlr_abcdefghijklmnopqrstuvwxyz012345 refused', 'token *** refused'],
    ['mysql://root@mariadb.lan/test', 'mysql://***'],
    ['MYSQL_PWD=hunter2 mysql -u root', 'MYSQL_PWD=*** mysql -u root'],
    ['env PGPASSWORD="s3 cr3t" psql', 'env PGPASSWORD=*** psql'],
    [
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG AWS_ACCESS_KEY_ID=AKIAIOSFODNN7 GITHUB_TOKEN=ghp_abc123',
      'AWS_SECRET_ACCESS_KEY=*** AWS_ACCESS_KEY_ID=*** GITHUB_TOKEN=***',
    ],
    ['mysqldump --password=pw1 --token abcdef db', 'mysqldump --password=*** --token *** db'],
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.x', 'Authorization: Bearer ***'],
  ])('%s', (input, expected) => {
    expect(redactForPublic(input)).toBe(expected);
  });

  it('keeps the sentence a failure is read for', () => {
    for (const s of [
      'the scenario step vacuum.sql failed: relation "t" does not exist',
      'stalled: no progress for 120 s during fixture (rows = 200000)',
      'PostgreSQL 17.10 refused: permission denied to create database',
      'disk full: No space left on device',
      'the run stalled at 2026-11-26T01:58:16.000Z after 12:34 of fixture',
    ])
      expect(redactForPublic(s)).toBe(s);
  });
});
