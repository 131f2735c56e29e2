/**
 * Kept answers over the real runs and the published figures, on PostgreSQL and on the embedded
 * PGlite: a kept answer is byte for byte the fresh computation, an ingest makes it stale, the
 * queued recomputation (pg-boss) makes it current again, a failed one keeps the last body.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AnswersQuery } from '@tunelab/contracts';
import { listScenarioDirs } from '@tunelab/scenarios';
import { openResultsDb, type ResultsDb } from './index.ts';
import { renderAnswers } from './kept-answers.ts';
import { createTestDatabase } from './test-database.ts';
import { ingestDocument, prismaOf } from './testing.ts';
import { answersCodeVersion, answersShapeVersion } from './code-version.ts';
import { realRun, REAL_RUN_KEYS, SCENARIOS } from './real-runs.ts';
import { BACKENDS } from './test-backends.ts';

const query = (q: Record<string, string>) => AnswersQuery.parse(q);

describe.each(BACKENDS)('kept answers (%s)', (backend) => {
  let db: ResultsDb;
  let drop: (() => Promise<void>) | undefined;
  let keys: string[];

  beforeAll(async () => {
    const pg = backend === 'postgresql' ? await createTestDatabase('tl_kept') : undefined;
    drop = pg?.drop;
    db = await openResultsDb(pg?.url, { dataDir: 'memory://', scenariosDir: SCENARIOS });
    await db.migrate();
    await db.importPublished(SCENARIOS);
    for (const [i, key] of REAL_RUN_KEYS.entries()) await ingestDocument(db, realRun(key), `kept-${i}`);
    keys = (await listScenarioDirs(SCENARIOS)).map((d) => d.replace(/\/+$/, '').split('/').pop()!).sort();
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('keeps, for every scenario and source, exactly the body a fresh computation renders', async () => {
    expect(keys.length).toBeGreaterThanOrEqual(5);
    for (const scenario of keys)
      for (const source of ['measured', 'published']) {
        const q = query({ scenario, source });
        expect(await db.keptAnswer(q)).toEqual({ state: 'missing' });
        const computed = await db.computeKeptAnswer(q);
        const fresh = renderAnswers((await db.answers(q))!);
        expect(computed, `${scenario} ${source}`).toBe(fresh);
        const kept = await db.keptAnswer(q);
        expect(kept).toMatchObject({ state: 'current', body: fresh, failedAt: null });
      }
  }, 120_000);

  it('keeps only plain queries: a filter, a machine or a scale computes per request', async () => {
    expect(await db.keptAnswer(query({ scenario: 'vacuum-index-cleanup', engine: 'postgresql' }))).toBeNull();
    expect(await db.keptAnswer(query({ scenario: 'vacuum-index-cleanup', noisy: 'exclude' }))).toBeNull();
    expect(await db.keptAnswer(query({ scenario: 'no-such-scenario' }))).toBeNull();
    // The primary metric named or not is the same kept answer.
    const plain = await db.keptAnswer(query({ scenario: 'vacuum-index-cleanup' }));
    const named = await db.keptAnswer(
      query({ scenario: 'vacuum-index-cleanup', metric: JSON.parse((plain as { body: string }).body).metric.key }),
    );
    expect(named).toEqual(plain);
  });

  it('an ingest makes the scenario’s kept answers stale (others stay current); the queued job makes them current', async () => {
    const scenario = 'vacuum-index-cleanup';
    const q = query({ scenario });
    const before = await db.keptAnswer(q);
    expect(before?.state).toBe('current');
    await ingestDocument(db, realRun(scenario), 'kept-again');
    const stale = await db.keptAnswer(q);
    expect(stale).toMatchObject({ state: 'stale', body: (before as { body: string }).body });
    expect((await db.keptAnswer(query({ scenario: 'vacuum-full-rewrite' })))?.state).toBe('current');

    const refreshed: string[] = [];
    const worker = db.openKeptAnswers({ debounceSeconds: 0, pollSeconds: 0.5, onRefreshed: (s) => refreshed.push(s) });
    await worker.start();
    try {
      // A burst of requests queues one recomputation.
      await Promise.all([1, 2, 3].map(() => worker.refreshSoon(scenario)));
      await vi.waitFor(async () => expect(await db.keptAnswer(q)).toMatchObject({ state: 'current' }), {
        timeout: 60_000,
        interval: 200,
      });
    } finally {
      await worker.stop();
    }
    const fresh = renderAnswers((await db.answers(q))!);
    expect(await db.keptAnswer(q)).toMatchObject({ state: 'current', body: fresh });
    expect(fresh).not.toBe((before as { body: string }).body);
    // Every kept query of the scenario was recomputed, the published one too.
    expect((await db.keptAnswer(query({ scenario, source: 'published' })))?.state).toBe('current');
    expect(refreshed).toContain(scenario);
  }, 120_000);

  it('a kept answer computed by other code (before an upgrade) is stale until computed again', async () => {
    expect(answersCodeVersion()).toMatch(/^[0-9a-f]{16}$/);
    const q = query({ scenario: 'vacuum-full-rewrite' });
    const body = await db.computeKeptAnswer(q);
    expect(await db.keptAnswer(q)).toMatchObject({ state: 'current', body });
    // The row as the code before this one left it: stamped with another code version.
    await prismaOf(db).$executeRawUnsafe(
      `UPDATE kept_answers SET scenario_version = regexp_replace(scenario_version, ' code [0-9a-f]+ ', ' code 0123456789abcdef ')
        WHERE scenario_key = 'vacuum-full-rewrite' AND query_key LIKE '%source=measured'`,
    );
    expect(await db.keptAnswer(q)).toMatchObject({ state: 'stale', body });
    expect(await db.computeKeptAnswer(q)).toBe(body);
    expect(await db.keptAnswer(q)).toMatchObject({ state: 'current', body });
  });

  it('a kept answer of another shape (kept before the response schemas changed) is never sent, not even as stale', async () => {
    expect(answersShapeVersion()).toMatch(/^[0-9a-f]{16}$/);
    const q = query({ scenario: 'vacuum-full-rewrite' });
    const body = await db.computeKeptAnswer(q);
    const restamp = (to: string) =>
      prismaOf(db).$executeRawUnsafe(
        `UPDATE kept_answers SET scenario_version = regexp_replace(scenario_version, ' shape [0-9a-f]+$', $1)
          WHERE scenario_key = 'vacuum-full-rewrite' AND query_key LIKE '%source=measured'`,
        to,
      );
    await restamp(' shape 0123456789abcdef');
    expect(await db.keptAnswer(q)).toEqual({ state: 'missing' });
    // Computed again, it is kept and current.
    expect(await db.computeKeptAnswer(q)).toBe(body);
    expect(await db.keptAnswer(q)).toMatchObject({ state: 'current', body });
    // A row from before kept answers were stamped with a shape is another shape too.
    await restamp('');
    expect(await db.keptAnswer(q)).toEqual({ state: 'missing' });
  });

  it('a recomputation starts 10 s after the run that queued it, or 5 × its last duration when that is longer', async () => {
    const scenario = 'recovery-init-sync';
    expect(await db.computeKeptAnswer(query({ scenario }))).not.toBeNull();
    const sql = prismaOf(db);
    const queuedDelay = async () => {
      await sql.$executeRawUnsafe(
        `DELETE FROM tunelab_fleet.job WHERE name = 'kept-answers' AND singleton_key = $1`,
        scenario,
      );
      const worker = db.openKeptAnswers();
      await worker.start();
      try {
        await worker.refreshSoon(scenario);
      } finally {
        await worker.stop();
      }
      const rows = await sql.$queryRawUnsafe<{ s: number }[]>(
        `SELECT extract(epoch FROM start_after - created_on)::float8 AS s FROM tunelab_fleet.job
          WHERE name = 'kept-answers' AND singleton_key = $1`,
        scenario,
      );
      expect(rows).toHaveLength(1);
      return rows[0]!.s;
    };
    expect(await queuedDelay()).toBeCloseTo(10, 0);
    await sql.$executeRawUnsafe('UPDATE kept_answers SET compute_ms = 4000 WHERE scenario_key = $1', scenario);
    expect(await queuedDelay()).toBeCloseTo(20, 0);
  }, 60_000);

  it('a read fetches the kept body once per recomputation: while the row is the one it read, the body held here is sent', async () => {
    const q = query({ scenario: 'vacuum-full-rewrite', source: 'published' });
    const body = await db.computeKeptAnswer(q);
    expect((await db.keptAnswer(q)) as { body: string }).toMatchObject({ state: 'current', body });
    const sql = prismaOf(db);
    const where = `scenario_key = 'vacuum-full-rewrite' AND query_key LIKE '%source=published'`;
    // The same row (data version, scenario version, computed_at), changed behind the reader's back:
    // its body is not read again.
    await sql.$executeRawUnsafe(`UPDATE kept_answers SET body = body || ' ' WHERE ${where}`);
    expect(await db.keptAnswer(q)).toMatchObject({ state: 'current', body });
    // A recomputation stamps the row anew: the new body is read.
    await sql.$executeRawUnsafe(
      `UPDATE kept_answers SET body = '{"changed":true}', computed_at = now() WHERE ${where}`,
    );
    expect(await db.keptAnswer(q)).toMatchObject({ state: 'current', body: '{"changed":true}' });
    expect(await db.computeKeptAnswer(q)).toBe(body);
    expect(await db.keptAnswer(q)).toMatchObject({ state: 'current', body });
  }, 60_000);

  // PostgreSQL only: a deadline is the server's statement_timeout, which PGlite does not have
  // (there a recomputation cannot be cut short, so it cannot fail this way).
  it.runIf(backend === 'postgresql')(
    'a recomputation that fails (past its deadline) keeps the last answer, marked stale and failed',
    async () => {
      const scenario = 'fillfactor-hot-updates';
      const q = query({ scenario });
      const before = await db.keptAnswer(q);
      expect(before?.state).toBe('current');
      await ingestDocument(db, realRun(scenario), 'kept-fail');
      const worker = db.openKeptAnswers({ deadlineMs: 1 });
      await expect(worker.refresh(scenario)).rejects.toThrow(/statement timeout/);
      await worker.stop();
      const after = await db.keptAnswer(q);
      expect(after).toMatchObject({ state: 'stale', body: (before as { body: string }).body });
      expect((after as { failedAt: Date | null }).failedAt).toBeInstanceOf(Date);
    },
    60_000,
  );
});
