/**
 * bench:fleet's last phase: does a claim slow down as completed jobs pile up in its queue? Two
 * queues are measured side by side, so that both see the same machine at the same moment (as
 * ClickHouse's CI runs the old and the new server together): jobs for label `history` and jobs for
 * label `fresh`, each claimed by its own half of `agents` agents at the same time. A round of `jobs`
 * jobs per queue is requested through the API and claimed (each claim timed, then one heartbeat);
 * then `completed` completed jobs are written straight into pg-boss's job table for the `history`
 * queue only (a seeded history: running a million jobs through agents would take hours), vacuumed
 * and checkpointed as autovacuum and time would leave it, and the same round runs again. Prints
 * both rounds' claim p50/p99 per queue and, with the load average:
 * - **after the history, its queue's p99 ÷ the fresh queue's**, side by side (aim ≤ 2);
 * - the same ratio before the history: the two queues alike, the measure's own spread;
 * - the history queue's p99 after ÷ before, one after the other (what a whole-server stall moves).
 */
import os from 'node:os';
import pg from 'pg';
import * as hdr from 'hdr-histogram-js';
import { FLEET_SCHEMA } from '@tunelab/results-db';
import { progressLines } from './support.ts';

export type HistoryRound = { p50: number; p99: number; claims: number };
type Fleet = {
  url: string;
  dbUrl: string;
  operator: string;
  tokens: string[];
  hardware: object;
};
/** The two queues: jobs (and agents) with label `history` get the seeded history, `fresh` do not. */
const QUEUES = ['history', 'fresh'] as const;
type Queue = (typeof QUEUES)[number];

const loadNow = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Requests `jobs` jobs for `queue`'s label; their ids. */
async function requestJobs(fleet: Fleet, queue: Queue, jobs: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < jobs; i++) {
    const res = await fetch(`${fleet.url}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fleet.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        scenario: 'vacuum-index-cleanup',
        params: { rows: 1000 },
        repetitions: 1,
        for: { labels: [queue] },
      }),
    });
    if (res.status !== 201) throw new Error(`POST /v1/jobs: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}

/** `agents` agents with `queue`'s label claim (waitSeconds 1) until its `jobs` jobs are taken; the latencies go into `latency`. */
async function claimQueue(
  fleet: Fleet,
  queue: Queue,
  o: { jobs: number; agents: number; tokenOffset: number; latency: hdr.Histogram; seen: Set<string> },
): Promise<void> {
  const { latency, seen } = o;
  await Promise.all(
    Array.from({ length: o.agents }, async (_, i) => {
      const token = fleet.tokens[(o.tokenOffset + i) % fleet.tokens.length];
      while (seen.size < o.jobs) {
        const t0 = performance.now();
        const res = await fetch(`${fleet.url}/v1/agent/claim`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            hardware: fleet.hardware,
            labels: [queue],
            engine: 'postgresql',
            server: 16,
            waitSeconds: 1,
          }),
        });
        if (res.status !== 200) {
          await res.arrayBuffer();
          continue;
        }
        const body = (await res.json()) as { id: string; attempt?: number };
        latency.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
        if (seen.has(body.id)) throw new Error(`job ${body.id} of the ${queue} queue was claimed twice`);
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
}

/**
 * Requests `jobs` jobs per queue, then both queues' agents (half of `agents` each) claim at the
 * same time until all are taken: each queue's claim latencies, and the history queue's job ids.
 */
async function claimRound(
  fleet: Fleet,
  jobs: number,
  agents: number,
  label: string,
): Promise<{ rounds: Record<Queue, HistoryRound>; historyJobs: string[]; load: string }> {
  const historyJobs = await requestJobs(fleet, 'history', jobs);
  await requestJobs(fleet, 'fresh', jobs);
  const per = Math.max(1, Math.ceil(agents / 2));
  const latency = Object.fromEntries(
    QUEUES.map((q) => [q, hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000 })]),
  ) as Record<Queue, hdr.Histogram>;
  const seen = Object.fromEntries(QUEUES.map((q) => [q, new Set<string>()])) as Record<Queue, Set<string>>;
  const ticking = progressLines(label, () => ({
    done: seen.history.size + seen.fresh.size,
    total: 2 * jobs,
    unit: 'jobs claimed (both queues)',
  }));
  await Promise.all(
    QUEUES.map((q, i) =>
      claimQueue(fleet, q, { jobs, agents: per, tokenOffset: i * per, latency: latency[q], seen: seen[q] }),
    ),
  );
  ticking.stop();
  const round = (h: hdr.Histogram): HistoryRound => ({
    p50: h.getValueAtPercentile(50) / 1000,
    p99: h.getValueAtPercentile(99) / 1000,
    claims: h.totalCount,
  });
  return { rounds: { history: round(latency.history), fresh: round(latency.fresh) }, historyJobs, load: loadNow() };
}

/** Writes `n` completed jobs into pg-boss's job table, in the queue (and with the data) of job `jobId`, which the API made. */
async function seedCompleted(fleet: Fleet, n: number, jobId: string): Promise<number> {
  const c = new pg.Client({ connectionString: fleet.dbUrl });
  await c.connect();
  const started = performance.now();
  let done = 0;
  const ticking = progressLines('seed', () => ({ done, total: n, unit: 'completed jobs written' }));
  try {
    const sample = await c.query<{ name: string; data: unknown }>(
      `SELECT name, data FROM ${FLEET_SCHEMA}.job WHERE id = $1`,
      [jobId],
    );
    const queue = sample.rows[0];
    if (!queue) throw new Error(`seed: job ${jobId} of the history queue is not in pg-boss's job table`);
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

/** The phase: a round, the seeded history, the same round again; the lines to print and the side-by-side ratio. */
export async function claimsAfterHistory(fleet: Fleet, opts: { jobs: number; agents: number; completed: number }) {
  const before = await claimRound(fleet, opts.jobs, opts.agents, 'claims before the history');
  const seedSeconds = await seedCompleted(fleet, opts.completed, before.historyJobs[0]!);
  const after = await claimRound(fleet, opts.jobs, opts.agents, 'claims after the history');
  const fmt = (r: HistoryRound) => `p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms over ${r.claims} claims`;
  const sideBySide = after.rounds.history.p99 / after.rounds.fresh.p99;
  const per = Math.max(1, Math.ceil(opts.agents / 2));
  return {
    ratio: sideBySide,
    lines: [
      `claims vs history: two queues side by side, ${opts.jobs} jobs each claimed by ${per} agents each, before and after ${opts.completed} completed jobs written into the history queue (${seedSeconds.toFixed(1)} s)`,
      `  before:  history queue ${fmt(before.rounds.history)}; fresh queue ${fmt(before.rounds.fresh)} (load ${before.load})`,
      `  after:   history queue ${fmt(after.rounds.history)}; fresh queue ${fmt(after.rounds.fresh)} (load ${after.load})`,
      `  after the history, side by side, history ÷ fresh queue p99: ${sideBySide.toFixed(2)} (aim ≤ 2)`,
      `  before the history, the two queues alike, history ÷ fresh p99: ${(before.rounds.history.p99 / before.rounds.fresh.p99).toFixed(2)} (the measure's own spread)`,
      `  history queue, one round after the other, p99 after ÷ before: ${(after.rounds.history.p99 / before.rounds.history.p99).toFixed(2)}`,
    ],
  };
}
