/**
 * The coverage page: a real results database (PGlite) with measured runs and a fleet job, the real
 * `astro build`, and the page's matrix read back from the HTML; plus the matrix layout itself.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestDocument } from '@tunelab/results-db/testing';
import { openTestResultsDb } from './fresh-db.ts';
import { coverageMatrix } from '../src/lib/coverage.ts';
import { buildSite } from './build.ts';
import { sampleRun } from './seed.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-fleet-site-'));
afterAll(async () => rm(work, { recursive: true, force: true }));

describe('coverage matrix', () => {
  it('lays cells out by scenario × server and class, counting gaps; class-less jobs are counted per scenario', () => {
    const m = coverageMatrix(
      {
        scenarios: ['a'],
        hardwareClasses: ['2 cores / 8 GB / SSD', '8 cores / 32 GB / NVME'],
        servers: [{ engine: 'postgresql', major: 16 }],
        cells: [
          {
            scenario: 'a',
            hardwareClass: '2 cores / 8 GB / SSD',
            engine: 'postgresql',
            server: 16,
            runs: 3,
            newestRun: '2026-11-20T00:00:00.000Z',
            openJobs: 0,
          },
          {
            scenario: 'a',
            hardwareClass: '2 cores / 8 GB / SSD',
            engine: 'mariadb',
            server: 10,
            runs: 1,
            newestRun: '2026-11-20T00:00:00.000Z',
            openJobs: 0,
          },
          {
            scenario: 'a',
            hardwareClass: null,
            engine: 'postgresql',
            server: null,
            runs: 0,
            newestRun: null,
            openJobs: 2,
          },
        ],
      },
      [
        { key: 'a', title: 'A' },
        { key: 'b', title: 'B' },
      ],
      // Coverage counts MariaDB by its first number; the runs say which release line it was.
      (scenario, engine, first) => (scenario === 'a' && engine === 'mariadb' && first === 10 ? ['10.11'] : []),
    );
    expect(m.rows.map((r) => [r.scenario, r.server, r.cells.map((c) => c?.runs ?? null)])).toEqual([
      ['a', 'MariaDB 10.11', [1, null]],
      ['a', 'PostgreSQL 16', [3, null]],
      ['b', '—', [null, null]],
    ]);
    expect(m).toMatchObject({ filled: 2, gaps: 4 });
    expect(m.unclassedJobs.get('a')).toBe(2);
  });
});

describe('coverage page', () => {
  it('draws the matrix with its gaps from the results database, linked from the home and scenario pages', async () => {
    const dataDir = join(work, 'db');
    const db = await openTestResultsDb(dataDir);
    try {
      await db.migrate();
      for (let i = 0; i < 2; i++)
        await ingestDocument(db, sampleRun({ cores: 4, memoryGb: 16, disk: 'ssd' }, i), `cov-${i}`);
      await ingestDocument(db, sampleRun({ cores: 8, memoryGb: 32, disk: 'nvme' }, 9), 'cov-9');
      const fleet = db.openFleet();
      await fleet.start();
      await fleet.requestJob(
        { scenario: 'vacuum-full-rewrite', params: {}, for: { class: '8 cores / 32 GB / NVME' }, priority: 0 },
        null,
      );
      await fleet.stop();
    } finally {
      await db.close();
    }
    const out = join(work, 'dist');
    const built = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    expect(built.code, built.output).toBe(0);
    const html = await readFile(join(out, 'coverage/index.html'), 'utf8');
    expect(html).toContain('4 cores / 16 GB / SSD');
    expect(html).toContain('8 cores / 32 GB / NVME');
    expect(html).toMatch(/2 runs/);
    expect(html).toMatch(/gap · 1 queued/);
    expect(html).toMatch(/class="gap"/);
    expect(await readFile(join(out, 'index.html'), 'utf8')).toContain('href="/coverage/"');
    expect(await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8')).toContain(
      'href="/coverage/"',
    );
  }, 600_000);
});
