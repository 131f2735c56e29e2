import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { runAdmin } from './helpers.ts';
import { buildApp, type App } from '../src/index.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase('tl_fleet_admin');
});
afterAll(async () => database?.drop());

const admin = (env: Record<string, string>, ...args: string[]) =>
  runAdmin({ DATABASE_URL: database.url, ...env }, ...args);

describe('tunelab admin jobs', () => {
  it('requests, lists and cancels jobs in the database, refusing a bad parameter with its name (exit 2)', async () => {
    const bad = await admin({}, 'jobs', 'request', 'vacuum-index-cleanup', '--param', 'rows=-1');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/\/params\/rows/);
    const ok = await admin({}, 'jobs', 'request', 'vacuum-index-cleanup', '--param', 'rows=1000', '--labels', 'ssd');
    expect(ok.code, ok.stderr).toBe(0);
    const id = /^([0-9a-f-]{36})\s+queued/.exec(ok.stdout)?.[1];
    expect(id).toBeDefined();
    const listed = await admin({}, 'jobs', 'list', '--state', 'queued');
    expect(listed.stdout).toContain(id!);
    const cancelled = await admin({}, 'jobs', 'cancel', id!);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toMatch(/cancelled/);
    expect((await admin({}, 'jobs', 'list', '--state', 'queued')).stdout).not.toContain(id!);
  });

  it('--releases queues one job per release, or none when one is refused (exit 2 naming it)', async () => {
    const before = (await admin({}, 'jobs', 'list')).stdout;
    const bad = await admin({}, 'jobs', 'request', 'vacuum-full-rewrite', '--releases', '17.0,13.4');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/\/releases\/1: .*14, 15, 16, 17, 18/);
    const both = await admin({}, 'jobs', 'request', 'vacuum-full-rewrite', '--releases', '17.0', '--server', '17');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--server or --releases, not both/);
    expect((await admin({}, 'jobs', 'list')).stdout).toBe(before);
    const ok = await admin({}, 'jobs', 'request', 'vacuum-full-rewrite', '--releases', '16.10,17.0');
    expect(ok.code, ok.stderr).toBe(0);
    expect(
      ok.stdout
        .trim()
        .split('\n')
        .map((l) => /queued\s+vacuum-full-rewrite .* release (\S+)/.exec(l)?.[1]),
    ).toEqual(['16.10', '17.0']);
  });

  it('goes through a running API with an operator token; a runner token is refused', async () => {
    const db = await openResultsDb(database.url);
    let app: App | undefined;
    try {
      const operator = (await db.createRunner('admin-ops', { kind: 'operator' })).token;
      const runner = (await db.createRunner('admin-runner')).token;
      app = await buildApp({ resultsDb: db, migrate: false });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const a = app.server.address();
      const url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
      const refused = await admin(
        { TUNELAB_API_URL: url, TUNELAB_OPERATOR_TOKEN: runner },
        'jobs',
        'request',
        'vacuum-index-cleanup',
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/runner token cannot request/);
      const ok = await admin(
        { TUNELAB_API_URL: url, TUNELAB_OPERATOR_TOKEN: operator },
        'jobs',
        'request',
        'vacuum-index-cleanup',
      );
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(/queued/);
    } finally {
      await app?.close();
      await db.close();
    }
  });
});
