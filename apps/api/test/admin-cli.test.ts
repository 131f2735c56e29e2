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
