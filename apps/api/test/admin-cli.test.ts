import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { runAdmin } from './helpers.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase('tl_owner');
});
afterAll(async () => database?.drop());

const admin = (...args: string[]) => runAdmin({ DATABASE_URL: database.url }, ...args);

describe('tunelab admin', () => {
  it('mints a token shown once, stores only its hash, refuses a second runner of the same name, and revokes', async () => {
    const created = await admin('create-runner', 'lab-box-1');
    expect(created.code, created.stderr).toBe(0);
    const token = /tlr_[A-Za-z0-9_-]{43}/.exec(created.stdout)?.[0];
    expect(token).toBeDefined();

    const db = await openResultsDb(database.url);
    try {
      expect(await db.authenticateRunner(token!)).toMatchObject({ name: 'lab-box-1' });
      const again = await admin('create-runner', 'lab-box-1');
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/a runner named lab-box-1 already exists/);

      const listed = await admin('list-runners');
      expect(listed.stdout).toMatch(/^lab-box-1\tcreated /m);
      expect(listed.stdout).not.toContain(token!);

      expect((await admin('revoke-runner', 'lab-box-1')).code).toBe(0);
      expect(await db.authenticateRunner(token!)).toBeNull();
      const twice = await admin('revoke-runner', 'lab-box-1');
      expect(twice.code).toBe(1);
      expect(twice.stderr).toMatch(/no active runner named lab-box-1/);
    } finally {
      await db.close();
    }
  });

  it('rejects bad names and usage with a clear message and exit 2 / 1', async () => {
    const bad = await admin('create-runner', 'has spaces');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/runner name "has spaces" must be/);
    const usage = await admin('create-runner');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/expects exactly one NAME/);
    const unknown = await admin('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);
    const help = await admin('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/create-runner (\[options\] )?\[NAME\]/);
    expect(help.stdout).toMatch(/jobs/);
  });

  it('gives a runner a public label at creation or later, and refuses a label that is not plain text (exit 1)', async () => {
    const created = await admin('create-runner', 'build-host-9.internal', '--public-label', 'Lab box A');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('public label "Lab box A"');
    expect((await admin('list-runners')).stdout).toMatch(/^build-host-9\.internal\t.*\tpublic label "Lab box A"$/m);
    const cleared = await admin('set-public-label', 'build-host-9.internal');
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toContain('anonymous in public responses');
    const bad = await admin('set-public-label', 'build-host-9.internal', '<b>x</b>');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/public label "<b>x<\/b>" must be/);
    expect((await admin('set-public-label', 'no-such-runner', 'X')).code).toBe(1);
    expect((await admin('create-runner', 'x', '--public-label')).code).toBe(2);
  });
});

describe('tunelab admin names the results database it wrote', () => {
  it('says plainly that it created a new embedded database when there is no DATABASE_URL, then names it', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'tl_h2_admin-'));
    const dataDir = join(parent, 'results');
    try {
      const embedded = (...args: string[]) => runAdmin({ DATABASE_URL: '', TUNELAB_DATA_DIR: dataDir }, ...args);
      const first = await embedded('create-runner', 'new-box');
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain(
        `created a new embedded results database at ${dataDir}; set DATABASE_URL to use a PostgreSQL one`,
      );
      const second = await embedded('create-operator', 'ops-1');
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain(`wrote to the embedded results database at ${dataDir}`);
      expect(second.stderr).not.toContain('created a new');
      const listed = await embedded('list-runners');
      expect(listed.stderr).not.toContain('wrote to');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
    // Three CLI processes one after another, each starting an embedded PGlite database (the first
    // also migrating it): 60 s in all at load 8 in CI, so up to ~50 s each on a busy machine.
  }, 180_000);

  it('names a PostgreSQL database by its URL with the password masked, on every command that writes', async () => {
    const url = new URL(database.url);
    url.password = 's3cret-pw';
    const pg = (...args: string[]) => runAdmin({ DATABASE_URL: url.toString() }, ...args);
    const masked = new URL(url);
    masked.password = '***';
    const commands = [
      ['create-runner', 'named-box'],
      ['set-public-label', 'named-box', 'Box N'],
      ['revoke-runner', 'named-box'],
      ['create-operator', 'named-ops'],
      ['migrate'],
      ['jobs', 'request', 'vacuum-index-cleanup', '--server', '16'],
    ];
    for (const args of commands) {
      const r = await pg(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr, args.join(' ')).toContain(`wrote to the PostgreSQL results database ${masked.toString()}`);
      expect(r.stderr + r.stdout).not.toContain('s3cret-pw');
    }
    const refused = await pg('revoke-runner', 'named-box');
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toContain('wrote to');
    // Seven CLI processes one after another: 56 s in all at load 8 in CI, so ~8 s each; up to
    // ~30 s each on a busier machine.
  }, 240_000);
});
