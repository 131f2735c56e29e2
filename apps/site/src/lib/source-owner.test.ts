// The site build beside the process that owns the embedded results database.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openResultsDb } from '@tunelab/results-db';
import { openSiteSource } from './source.ts';
import type { SiteConfig } from './env.ts';
import { post, startQuickstartApi } from '@tunelab/api/testing';

const FIXTURE = fileURLToPath(new URL('../../../../tests/fixtures/sample-submission.json', import.meta.url));

const configFor = (dataDir: string): SiteConfig => ({
  kind: 'pglite',
  dataDir,
  repoRoot: '/',
  scenariosDir: '/',
  siteUrl: 'http://localhost:4321',
  siteUrlSet: false,
  builtSite: undefined,
  buildOut: undefined,
});

describe('the site source beside the owner of the embedded database', () => {
  let dir: string;
  let dataDir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tl_owner_site_'));
    dataDir = join(dir, 'results');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('reads through the running API that owns it, and sees what the API stored', async () => {
    let api: ChildProcess | undefined;
    try {
      const started = await startQuickstartApi(dataDir);
      api = started.child;
      const res = await post(started.url, started.token, await readFile(FIXTURE, 'utf8'));
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      const source = await openSiteSource(configFor(dataDir));
      try {
        expect(source.description).toBe(`TuneLab API at ${started.url}`);
        expect((await source.runs()).map((r) => r.id)).toEqual([id]);
      } finally {
        await source.close();
      }
    } finally {
      const child = api;
      if (child && child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
    }
  });

  it('fails with the owner pid when the owner serves no API', async () => {
    const db = await openResultsDb(undefined, { dataDir });
    try {
      await db.migrate();
      await expect(openSiteSource(configFor(dataDir))).rejects.toThrow(
        new RegExp(`in use by process ${process.pid} .*serves no API to read through`),
      );
    } finally {
      await db.close();
    }
  });
});
