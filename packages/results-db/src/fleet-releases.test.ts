/**
 * Jobs by release and the release matrix, on both results databases: scenario × releases in one
 * request (each release checked before any job is queued), claims routed by release (an agent with
 * a managed server takes any release of its major, one whose target runs a release only that one,
 * one that announces no release none), a run on another release refused, and coverage's
 * scenario × release matrix from stored runs and jobs (measured, pending, failed, missing).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openResultsDb, JobRequestError, type Fleet, type ResultsDb } from './index.ts';
import { buildReleaseMatrix } from './fleet-releases.ts';
import { createTestDatabase } from './test-database.ts';
import { ingestDocument } from './testing.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
) as {
  database: { version: string; major: number; minor: number };
  hardware: Parameters<Fleet['claim']>[0]['hardware'];
};
const SCENARIO = 'vacuum-index-cleanup';

/** The fixture run as measured on PostgreSQL `release`. */
function runOn(release: string) {
  const doc = structuredClone(fixture);
  const [major, minor] = release.split('.').map(Number);
  doc.database = { ...doc.database, version: `PostgreSQL ${release}`, major: major!, minor: minor! };
  return doc;
}

describe.each(['postgresql', 'pglite'] as const)('jobs by release (%s)', (backend) => {
  let db: ResultsDb;
  let fleet: Fleet;
  let pgdb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    if (backend === 'postgresql') pgdb = await createTestDatabase('tl_fleet_rel');
    db = await openResultsDb(pgdb?.url, { dataDir: 'memory://' });
    await db.migrate();
    fleet = db.openFleet({ leaseSeconds: 10, pollMs: 100, retryLimit: 0 });
    await fleet.start();
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
    await db?.close();
    await pgdb?.drop();
  });

  const agent = { runnerName: 'r1', hardware: fixture.hardware, labels: [], engine: 'postgresql' };

  it('refuses a release list naming a release of another major, or a MariaDB scenario, at its index; queues nothing', async () => {
    const before = await fleet.listJobs({ limit: 1000 });
    const bad = fleet.requestReleases(
      { scenario: SCENARIO, params: {}, priority: 0, releases: ['16.4', '13.4'] },
      null,
    );
    await expect(bad).rejects.toBeInstanceOf(JobRequestError);
    await expect(bad).rejects.toMatchObject({
      field: '/releases/1',
      message: expect.stringMatching(/14, 15, 16, 17, 18/),
    });
    await expect(
      fleet.requestReleases(
        { scenario: 'innodb-compression-insert', params: {}, priority: 0, releases: ['10.11'] },
        null,
      ),
    ).rejects.toMatchObject({ field: '/releases/0' });
    await expect(
      fleet.requestJob({ scenario: SCENARIO, params: {}, priority: 0, server: 16, release: '17.4' }, null),
    ).rejects.toMatchObject({ field: '/release' });
    await expect(
      fleet.requestReleases({ scenario: SCENARIO, params: { rows: -1 }, priority: 0, releases: ['16.4'] }, null),
    ).rejects.toMatchObject({ field: '/params/rows' });
    expect(await fleet.listJobs({ limit: 1000 })).toEqual(before);
  });

  it('queues one job per release and hands each only to an agent that can run that release', async () => {
    const jobs = await fleet.requestReleases(
      { scenario: SCENARIO, params: { rows: 1000 }, repetitions: 1, priority: 0, releases: ['17.0', '17.6'] },
      null,
    );
    expect(jobs.map((j) => [j.release, j.server, j.state])).toEqual([
      ['17.0', 17, 'queued'],
      ['17.6', 17, 'queued'],
    ]);
    // An agent announcing no release (older than releases), and one whose target runs 17.5: nothing.
    expect(await fleet.claim({ ...agent, server: 17 }, 0)).toBeNull();
    expect(await fleet.claim({ ...agent, server: 17, release: '17.5' }, 0)).toBeNull();
    // One whose target runs 17.6 gets the 17.6 job, with its release.
    const on176 = await fleet.claim({ ...agent, runnerName: 'r176', server: 17, release: '17.6' }, 0);
    expect(on176).toMatchObject({ id: jobs[1]!.id, release: '17.6' });
    // A managed agent of 16 gets nothing; one of 17 the 17.0 job.
    expect(await fleet.claim({ ...agent, server: 16, anyRelease: true }, 0)).toBeNull();
    const managed = await fleet.claim({ ...agent, runnerName: 'r17', server: 17, anyRelease: true }, 0);
    expect(managed).toMatchObject({ id: jobs[0]!.id, release: '17.0' });

    // A run on another release does not answer the job; one on 17.0 does.
    const run = { scenario: SCENARIO, params: { rows: 1000 }, repetitions: 1, engine: 'postgresql', major: 17 };
    expect(await fleet.reserveRunSlot(jobs[0]!.id, 'k1', 'r17', { ...run, minor: 4 })).toEqual({
      status: 'mismatch',
      field: '/database/version',
      reason: 'the job asks for release 17.0, the run is on 17.4',
    });
    expect(await fleet.reserveRunSlot(jobs[0]!.id, 'k1', 'r17', { ...run, minor: 0 })).toEqual({ status: 'ours' });
  });

  it('coverage shows scenario × release: measured, pending, failed (with its sentence) and missing', async () => {
    // 16.4 measured (no job), 16.9 failed for good (retry limit 0), 16.10 pending; vacuum-full-rewrite has a job on 16.10 only.
    await ingestDocument(db, runOn('16.4'), 'rel-16.4');
    const [failing, pending] = await fleet.requestReleases(
      { scenario: SCENARIO, params: {}, priority: 0, releases: ['16.9', '16.10'] },
      null,
    );
    await fleet.requestJob({ scenario: 'vacuum-full-rewrite', params: {}, priority: 0, release: '16.10' }, null);
    const claimed = await fleet.claim({ ...agent, runnerName: 'r169', server: 16, release: '16.9' }, 0);
    expect(claimed?.id).toBe(failing!.id);
    await fleet.failJob(
      failing!.id,
      claimed!.attempt,
      'r169',
      'the registry has no build of PostgreSQL 16.9 for this platform (https://registry.example.org/x); its releases of 16 are 16.4, 16.10',
    );
    const matrix = (await db.coverage()).releaseMatrix!;
    const of = (scenario: string, release: string) =>
      matrix.cells.find((c) => c.scenario === scenario && c.release === release);
    // Columns: every release measured or requested, numerically ordered (16.10 after 16.9).
    expect(matrix.releases.map((r) => r.release)).toEqual(['16.4', '16.9', '16.10', '17.0', '17.6']);
    expect(of(SCENARIO, '16.4')).toMatchObject({ status: 'measured', runs: 1, pendingJobs: 0, failedJobs: 0 });
    expect(of(SCENARIO, '16.9')).toMatchObject({ status: 'failed', runs: 0, failedJobs: 1 });
    expect(of(SCENARIO, '16.9')!.lastError).toMatch(/^the registry has no build of PostgreSQL 16\.9/);
    // Public: the URL in the sentence is masked.
    expect(of(SCENARIO, '16.9')!.lastError).not.toContain('registry.example.org');
    expect(of(SCENARIO, '16.10')).toMatchObject({ status: 'pending', pendingJobs: 1 });
    expect(pending!.release).toBe('16.10');
    // vacuum-full-rewrite: its 16.10 job pending, every other column a gap nothing asked for.
    expect(of('vacuum-full-rewrite', '16.10')).toMatchObject({ status: 'pending' });
    expect(of('vacuum-full-rewrite', '16.4')).toMatchObject({ status: 'missing', runs: 0, pendingJobs: 0 });
    expect(matrix.cells.filter((c) => c.scenario === 'vacuum-full-rewrite')).toHaveLength(matrix.releases.length);
  });
});

describe('buildReleaseMatrix', () => {
  it('adds hardware classes and runs across rows of one release, and leaves engines without releases out', () => {
    const m = buildReleaseMatrix(
      [
        { scenario: 'a', engine: 'postgresql', major: 17, minor: 2, runs: 2, hardwareClasses: ['x'] },
        { scenario: 'a', engine: 'postgresql', major: 17, minor: 2, runs: 1, hardwareClasses: ['w', 'x'] },
      ],
      [{ scenario: 'b', engine: 'postgresql', release: '18.1', pending: 0, failed: 0, lastError: null }],
    );
    expect(m.releases).toEqual([
      { engine: 'postgresql', release: '17.2' },
      { engine: 'postgresql', release: '18.1' },
    ]);
    expect(m.cells.map((c) => [c.scenario, c.release, c.runs, c.hardwareClasses.join(','), c.status])).toEqual([
      ['a', '17.2', 3, 'w,x', 'measured'],
      ['a', '18.1', 0, '', 'missing'],
      ['b', '17.2', 0, '', 'missing'],
      // Jobs named it once and none is open or failed (cancelled): a gap nothing is filling.
      ['b', '18.1', 0, '', 'missing'],
    ]);
  });
});
