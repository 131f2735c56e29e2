import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openResultsDb, type Fleet, type ResultsDb } from './index.ts';
import { createTestDatabase } from './test-database.ts';

const BACKENDS = ['postgresql', 'pglite'] as const;
const FIXTURE_HARDWARE = {
  cpuModel: 'Test CPU',
  physicalCores: 2,
  logicalCpus: 2,
  memoryBytes: 8 * 1024 ** 3,
  storage: { kind: 'ssd' as const, model: null },
  filesystem: 'ext4',
  os: 'Debian GNU/Linux 12',
  kernel: '6.1',
  virtualization: null,
};

describe.each(BACKENDS)('fleet queue on pg-boss (%s)', (backend) => {
  let db: ResultsDb;
  let fleet: Fleet;
  let pgdb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    if (backend === 'postgresql') pgdb = await createTestDatabase('tl_fleet_rdb');
    db = await openResultsDb(pgdb?.url, { dataDir: 'memory://' });
    await db.migrate();
    fleet = db.openFleet({ leaseSeconds: 10, pollMs: 100 });
    await fleet.start();
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
    await db?.close();
    await pgdb?.drop();
  });

  const agent = { runnerName: 'r1', hardware: FIXTURE_HARDWARE, labels: ['ssd'], engine: 'postgresql', server: 15 };

  it('queues a job, lets one agent claim it, heartbeats, and completes it with its one run', async () => {
    const job = await fleet.requestJob({ scenario: 'vacuum-index-cleanup', params: { rows: 1000 }, priority: 0 }, null);
    expect(job.state).toBe('queued');
    const claimed = await fleet.claim(agent, 0);
    expect(claimed?.id).toBe(job.id);
    expect(await fleet.claim({ ...agent, runnerName: 'r2' }, 0)).toBeNull();
    expect((await fleet.getJob(job.id))?.state).toBe('active');
    expect(await fleet.heartbeat(job.id, claimed!.attempt, 'r1')).toEqual({ state: 'active', stop: false });
    const run = {
      scenario: 'vacuum-index-cleanup',
      params: { rows: 1000 },
      repetitions: 3,
      engine: 'postgresql',
      major: 15,
    };
    expect(await fleet.reserveRunSlot(job.id, 'key-a', 'r2', run)).toEqual({
      status: 'not-yours',
      reason: `job ${job.id} is held by another agent`,
    });
    expect(await fleet.reserveRunSlot(job.id, 'key-a', 'r1', { ...run, params: { rows: 999 } })).toMatchObject({
      status: 'mismatch',
      field: '/params/rows',
    });
    expect(await fleet.reserveRunSlot(job.id, 'key-a', 'r1', run)).toEqual({ status: 'ours' });
    expect(await fleet.reserveRunSlot(job.id, 'key-b', 'r1', run)).toEqual({ status: 'taken', runId: null });
    const runId = '00000000-0000-4000-8000-000000000001';
    await fleet.completeWithRun(job.id, 'key-a', runId);
    const done = await fleet.getJob(job.id);
    expect(done).toMatchObject({ state: 'completed', runId, runner: 'r1', attempts: 1 });
    expect(await fleet.reserveRunSlot(job.id, 'key-b', 'r1', run)).toEqual({ status: 'taken', runId });
    expect(await fleet.heartbeat(job.id, claimed!.attempt, 'r1')).toEqual({ state: 'completed', stop: true });
  });

  it('matches jobs to agents by engine, server major, runner and labels', async () => {
    const forOther = await fleet.requestJob(
      { scenario: 'vacuum-index-cleanup', params: {}, for: { runner: 'someone-else' }, priority: 0 },
      null,
    );
    const for16 = await fleet.requestJob(
      { scenario: 'vacuum-index-cleanup', params: {}, server: 16, priority: 0 },
      null,
    );
    const mysqlOnly = await fleet.requestJob({ scenario: 'innodb-compression-insert', params: {}, priority: 0 }, null);
    const labelled = await fleet.requestJob(
      { scenario: 'vacuum-index-cleanup', params: {}, for: { labels: ['ssd'] }, priority: 0 },
      null,
    );
    const got = await fleet.claim(agent, 0);
    expect(got?.id).toBe(labelled.id);
    expect(await fleet.claim(agent, 0)).toBeNull();
    for (const j of [forOther, for16, mysqlOnly]) expect((await fleet.getJob(j.id))?.state).toBe('queued');
    await fleet.releaseJob(got!.id, got!.attempt, 'r1');
    expect((await fleet.getJob(labelled.id))?.state).toBe('queued');
    for (const j of [forOther, for16, mysqlOnly, labelled])
      expect((await fleet.cancelJob(j.id))?.state).toBe('cancelled');
  });

  it('re-queues a job whose agent stops heartbeating, saying so, and hands it out again as the next attempt', async () => {
    const job = await fleet.requestJob(
      { scenario: 'vacuum-index-cleanup', params: {}, for: { runner: 'r3' }, priority: 0 },
      null,
    );
    const first = await fleet.claim({ ...agent, runnerName: 'r3' }, 0);
    expect(first?.id).toBe(job.id);
    const requeued = await (async () => {
      for (let i = 0; i < 60; i++) {
        const j = await fleet.getJob(job.id);
        if (j?.state === 'queued') return j;
        await new Promise((r) => setTimeout(r, 500));
      }
      return fleet.getJob(job.id);
    })();
    expect(requeued).toMatchObject({
      state: 'queued',
      attempts: 1,
      error: 'the agent stopped heartbeating: its lease lapsed',
    });
    expect(await fleet.heartbeat(job.id, first!.attempt, 'r3')).toMatchObject({ stop: true });
    // Retried after the backoff (5 s), as the next attempt.
    const second = await fleet.claim({ ...agent, runnerName: 'r3' }, 15_000);
    expect(second).toMatchObject({ id: job.id, attempt: first!.attempt + 1 });
    await fleet.cancelJob(job.id);
  }, 60_000);

  it('retries a failed attempt, but fails a refusal retrying cannot change (final) at once, with its sentence', async () => {
    // Retried: the default retry limit leaves attempts, so a plain failure queues the job again.
    const retried = await fleet.requestJob(
      { scenario: 'vacuum-index-cleanup', params: {}, for: { runner: 'r4' }, priority: 0 },
      null,
    );
    const a = await fleet.claim({ ...agent, runnerName: 'r4' }, 0);
    expect(a?.id).toBe(retried.id);
    await fleet.failJob(retried.id, a!.attempt, 'r4', 'the target went away');
    expect(await fleet.getJob(retried.id)).toMatchObject({
      state: 'queued',
      attempts: 1,
      error: 'the target went away',
    });
    await fleet.cancelJob(retried.id);
    // Final: failed on its first attempt, never handed out again.
    const refused = await fleet.requestJob(
      { scenario: 'vacuum-index-cleanup', params: {}, for: { runner: 'r5' }, priority: 0 },
      null,
    );
    const b = await fleet.claim({ ...agent, runnerName: 'r5' }, 0);
    expect(b?.id).toBe(refused.id);
    const sentence = 'the registry has no build of PostgreSQL 16.99 for this platform; its releases of 16 are 16.4';
    await fleet.failJob(refused.id, b!.attempt, 'r5', sentence, true);
    expect(await fleet.getJob(refused.id)).toMatchObject({ state: 'failed', attempts: 1, error: sentence });
    expect(await fleet.claim({ ...agent, runnerName: 'r5' }, 6_000)).toBeNull();
  }, 60_000);

  it('refuses unknown scenarios, parameters and values, naming the field', async () => {
    await expect(fleet.requestJob({ scenario: 'nope', params: {}, priority: 0 }, null)).rejects.toMatchObject({
      field: '/scenario',
    });
    await expect(
      fleet.requestJob({ scenario: 'vacuum-index-cleanup', params: { colour: 1 }, priority: 0 }, null),
    ).rejects.toMatchObject({ field: '/params/colour' });
    await expect(
      fleet.requestJob({ scenario: 'vacuum-index-cleanup', params: { rows: -5 }, priority: 0 }, null),
    ).rejects.toMatchObject({ field: '/params/rows' });
  });
});
