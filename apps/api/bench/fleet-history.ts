/**
 * bench:fleet's last phase: does a claim slow down as completed jobs pile up in the queue? A
 * round of `jobs` jobs is requested through the API and claimed by `agents` agents (each claim
 * timed, then one heartbeat); then `completed` completed jobs are written straight into pg-boss's
 * job table for the very queue the round used (a seeded history: running a million jobs through
 * agents would take hours), vacuumed and checkpointed as autovacuum and time would leave it, and the
 * same round runs again. Prints both rounds' claim p50/p99 and
 * **p99 after ÷ p99 before** (aim ≤ 2), with the load average.
 */
import os from 'node:os';
import pg from 'pg';
import * as hdr from 'hdr-histogram-js';
import { FLEET_SCHEMA } from '@tunelab/results-db';
import { progressLines } from './support.ts';

export type HistoryRound = { p50: number; p99: number; claims: number; load: string };
type Fleet = {
  url: string;
  dbUrl: string;
  operator: string;
  tokens: string[];
  hardware: object;
};

const loadNow = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Requests `jobs` jobs, then `agents` agents claim (waitSeconds 1) until all are taken: claim latencies. */
async function claimRound(fleet: Fleet, jobs: number, agents: number, label: string): Promise<HistoryRound> {
  const ids: string[] = [];
  for (let i = 0; i < jobs; i++) {
    const res = await fetch(`${fleet.url}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fleet.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scenario: 'vacuum-index-cleanup', params: { rows: 1000 }, repetitions: 1 }),
    });
    if (res.status !== 201) throw new Error(`POST /v1/jobs: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  const latency = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000 });
  const seen = new Set<string>();
  const ticking = progressLines(label, () => ({ done: seen.size, total: jobs, unit: 'jobs claimed' }));
  await Promise.all(
    Array.from({ length: agents }, async (_, i) => {
      const token = fleet.tokens[i % fleet.tokens.length];
      while (seen.size < jobs) {
        const t0 = performance.now();
        const res = await fetch(`${fleet.url}/v1/agent/claim`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ hardware: fleet.hardware, engine: 'postgresql', server: 16, waitSeconds: 1 }),
        });
        if (res.status !== 200) {
          await res.arrayBuffer();
          continue;
        }
        const body = (await res.json()) as { id: string; attempt?: number };
        latency.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
        seen.add(body.id);
        const beat = await fetch(`${fleet.url}/v1/jobs/${body.id}/heartbeat`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ attempt: body.attempt ?? 0 }),
        });
        await beat.arrayBuffer();
      }
    }),
  );
  ticking.stop();
  return {
    p50: latency.getValueAtPercentile(50) / 1000,
    p99: latency.getValueAtPercentile(99) / 1000,
    claims: latency.totalCount,
    load: loadNow(),
  };
}

/** Writes `n` completed jobs into pg-boss's job table, in the queue (and with the data) of a job the API made. */
async function seedCompleted(fleet: Fleet, n: number): Promise<number> {
  const c = new pg.Client({ connectionString: fleet.dbUrl });
  await c.connect();
  const started = performance.now();
  let done = 0;
  const ticking = progressLines('seed', () => ({ done, total: n, unit: 'completed jobs written' }));
  try {
    const sample = await c.query<{ name: string; data: unknown }>(
      `SELECT name, data FROM ${FLEET_SCHEMA}.job ORDER BY created_on DESC LIMIT 1`,
    );
    const queue = sample.rows[0];
    if (!queue) throw new Error('seed: the queue has no job to copy the name and data of');
    const batch = 100_000;
    for (; done < n; done += Math.min(batch, n - done)) {
      await c.query(
        `INSERT INTO ${FLEET_SCHEMA}.job (name, data, state, started_on, completed_on, output)
         SELECT $1, $2::jsonb, 'completed', now(), now(), jsonb_build_object('runId', gen_random_uuid())
         FROM generate_series(1, $3)`,
        [queue.name, JSON.stringify(queue.data), Math.min(batch, n - done)],
      );
    }
    // A real history accumulates over months under autovacuum; here it arrives in one burst on a
    // server that may run without autovacuum (this VM's CI config). Stand in for autovacuum (visibility
    // map, hint bits, statistics) and let the burst's writes reach disk, so the round after measures
    // claims against the history, not the seed's own write-back.
    await c.query(`VACUUM (ANALYZE) ${FLEET_SCHEMA}.job`);
    await c.query('CHECKPOINT');
  } finally {
    ticking.stop();
    await c.end();
  }
  return (performance.now() - started) / 1000;
}

/** The phase: a round, the seeded history, the same round again; the lines to print. */
export async function claimsAfterHistory(fleet: Fleet, opts: { jobs: number; agents: number; completed: number }) {
  const before = await claimRound(fleet, opts.jobs, opts.agents, 'claims before the history');
  const seedSeconds = await seedCompleted(fleet, opts.completed);
  const after = await claimRound(fleet, opts.jobs, opts.agents, 'claims after the history');
  const fmt = (r: HistoryRound) =>
    `claim p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms over ${r.claims} claims (load ${r.load})`;
  return {
    ratio: after.p99 / before.p99,
    lines: [
      `claims vs history: ${opts.jobs} jobs claimed by ${opts.agents} agents, before and after ${opts.completed} completed jobs written into their queue (${seedSeconds.toFixed(1)} s)`,
      `  before:    ${fmt(before)}`,
      `  after:     ${fmt(after)}`,
      `  p99 after ÷ p99 before: ${(after.p99 / before.p99).toFixed(2)} (aim ≤ 2)`,
    ],
  };
}
