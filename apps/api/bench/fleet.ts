/**
 * Fleet benchmark (not a test): the API as its own process on a fresh PostgreSQL database, J tiny
 * jobs queued through `POST /v1/jobs`, then A simulated agents long-polling `POST /v1/agent/claim`
 * at once until every job is claimed; each agent heartbeats the job it got once and claims again.
 * Prints claims/s, p50/p99 claim latency (claims that returned a job), duplicate claims (a job
 * handed to two agents — must be 0), and CPU seconds per claim of the API process and of the
 * PostgreSQL backends of the bench database (pg-boss's pool included), with the load average.
 *
 * Then the cost of an idle fleet before and after a history of jobs: I idle agents long-poll for
 * S seconds (database transactions/s, API CPU, an empty claim's latency); H jobs, for label sets
 * the idle agents all have (255 queues that fit them), are requested and cancelled; the same idle
 * phase again. A claim's cost
 * must not grow with the history (the ratio after/before is printed).
 *
 * Last, claims against a history of completed jobs (fleet-history.ts), two queues side by side:
 * `--round-jobs` jobs per queue claimed by `--round-agents` agents (half per queue), `--completed`
 * completed jobs written into one queue, the same round again; the history queue's claim p99 ÷ the
 * other's, measured at the same time, is printed (aim ≤ 2).
 *
 *   npm run bench:fleet -- [--agents 1000] [--jobs 10000] [--tokens 50] [--history 1000]
 *                          [--idle-agents 20] [--idle-seconds 10] [--completed 1000000]
 *                          [--round-jobs 300] [--round-agents 20] [--database-url URL]
 *
 * The database `tl_fleet_bench_<random>` is dropped at the end.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import * as hdr from 'hdr-histogram-js';
import { openResultsDb } from '@tunelab/results-db';
import { claimsAfterHistory } from './fleet-history.ts';
import {
  databaseUrl,
  parseBenchArgs,
  positiveInt,
  postgresTicks,
  progressLines,
  processSeconds,
  startApiProcess,
  stopProcess,
  TICKS_PER_SECOND,
} from './support.ts';

const { args, adminUrl } = parseBenchArgs(
  'npm run bench:fleet -- [--agents 1000] [--jobs 10000] [--tokens 50] [--history 1000] [--idle-agents 20] [--idle-seconds 10] [--completed 1000000] [--round-jobs 300] [--round-agents 20] [--database-url URL]',
  {
    agents: { type: 'string', default: '1000' },
    jobs: { type: 'string', default: '10000' },
    tokens: { type: 'string', default: '50' },
    history: { type: 'string', default: '1000' },
    'idle-agents': { type: 'string', default: '20' },
    'idle-seconds': { type: 'string', default: '10' },
    completed: { type: 'string', default: '1000000' },
    'round-jobs': { type: 'string', default: '300' },
    'round-agents': { type: 'string', default: '20' },
  },
);
const AGENTS = positiveInt('agents', args.agents);
const JOBS = positiveInt('jobs', args.jobs);
const TOKENS = Math.min(AGENTS, positiveInt('tokens', args.tokens));
const HISTORY = positiveInt('history', args.history);
const IDLE_AGENTS = positiveInt('idle-agents', args['idle-agents']);
const IDLE_SECONDS = positiveInt('idle-seconds', args['idle-seconds']);
const COMPLETED = positiveInt('completed', args.completed);
const ROUND_JOBS = positiveInt('round-jobs', args['round-jobs']);
const ROUND_AGENTS = positiveInt('round-agents', args['round-agents']);

// Node's fetch opens as many connections per origin as there are requests in flight (undici's
// default `connections: null`), so each of the long polls has its own.

const HARDWARE = {
  cpuModel: 'Bench CPU',
  physicalCores: 8,
  logicalCpus: 16,
  memoryBytes: 32 * 1024 ** 3,
  storage: { kind: 'ssd', model: null },
  filesystem: 'ext4',
  os: 'Linux',
  kernel: '6',
  virtualization: null,
};

const dbName = `tl_fleet_bench_${randomBytes(5).toString('hex')}`;
const dbUrl = databaseUrl(adminUrl, dbName);

/** CPU seconds so far of the PostgreSQL backends serving the bench database (pg-boss's pool included). */
const pgSeconds = () => [...postgresTicks(dbName).values()].reduce((a, b) => a + b, 0) / TICKS_PER_SECOND;

let api: ChildProcess | undefined;
async function cleanup() {
  if (api) await stopProcess(api, 5000);
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [dbName]);
    await c.query(`DROP DATABASE IF EXISTS "${dbName}"`);
  } finally {
    await c.end();
  }
}
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));

async function main() {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  const db = await openResultsDb(dbUrl);
  await db.migrate();
  const operator = (await db.createRunner('bench-ops', { kind: 'operator' })).token;
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) tokens.push((await db.createRunner(`bench-agent-${i}`)).token);
  await db.close();

  // Agents here heartbeat once: a lease longer than the bench keeps pg-boss from re-leasing jobs.
  const server = await startApiProcess({ DATABASE_URL: dbUrl, TUNELAB_JOB_LEASE_S: '3600' });
  api = server.child;
  const url = server.url;

  const enqueueSeconds = await queueJobs(url, operator);
  await claimAll(url, tokens, enqueueSeconds);
  await idleBeforeAndAfterHistory(url, operator, tokens);
  const completedHistory = await claimsAfterHistory(
    { url, dbUrl, operator, tokens, hardware: HARDWARE },
    { jobs: ROUND_JOBS, agents: ROUND_AGENTS, completed: COMPLETED },
  );
  console.log(completedHistory.lines.join('\n'));
}

/** JOBS jobs requested by 16 clients; the seconds it took. */
async function queueJobs(url: string, operator: string): Promise<number> {
  const enqueueStarted = performance.now();
  let next = 0;
  const queuing = progressLines('queue', () => ({ done: next, total: JOBS, unit: 'jobs' }));
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < JOBS) {
        next++;
        const res = await fetch(`${url}/v1/jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
          body: JSON.stringify({ scenario: 'vacuum-index-cleanup', params: { rows: 1000 }, repetitions: 1 }),
        });
        if (res.status !== 201) throw new Error(`POST /v1/jobs: ${res.status} ${await res.text()}`);
      }
    }),
  );
  queuing.stop();
  const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;

  return enqueueSeconds;
}

/** AGENTS agents claim (each claim followed by one heartbeat) until every job is taken; prints the figures. */
async function claimAll(url: string, tokens: string[], enqueueSeconds: number): Promise<void> {
  const latency = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
  // A job handed out twice in the same attempt is a duplicate claim; a later attempt is a re-lease.
  const owner = new Map<string, number>();
  const jobsSeen = new Set<string>();
  const errorStatus = new Map<string, number>();
  let duplicates = 0;
  let claimed = 0;
  let empty = 0;
  let errors = 0;
  const cpu0 = { api: processSeconds(api?.pid), pg: pgSeconds() };
  const load0 = os.loadavg();
  const started = performance.now();
  let lastClaimAt = started;
  const agent = async (i: number) => {
    const token = tokens[i % tokens.length];
    while (jobsSeen.size < JOBS) {
      const t0 = performance.now();
      let res: Response;
      try {
        res = await fetch(`${url}/v1/agent/claim`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ hardware: HARDWARE, engine: 'postgresql', server: 16, waitSeconds: 5 }),
        });
      } catch (e) {
        errors++;
        const why = String((e as Error & { cause?: { code?: string } }).cause?.code ?? (e as Error).message);
        errorStatus.set(why, (errorStatus.get(why) ?? 0) + 1);
        continue;
      }
      if (res.status === 204) {
        empty++;
        await res.arrayBuffer();
        continue;
      }
      const body = (await res.json()) as { id?: string; attempt?: number };
      if (res.status !== 200 || !body.id) {
        errors++;
        errorStatus.set(`HTTP ${res.status}`, (errorStatus.get(`HTTP ${res.status}`) ?? 0) + 1);
        continue;
      }
      latency.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
      const key = `${body.id}/${body.attempt ?? 0}`;
      if (owner.has(key)) duplicates++;
      else owner.set(key, i);
      jobsSeen.add(body.id);
      claimed++;
      lastClaimAt = performance.now();
      const beat = await fetch(`${url}/v1/jobs/${body.id}/heartbeat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ attempt: body.attempt ?? 0 }),
      });
      await beat.arrayBuffer();
    }
  };
  const claiming = progressLines('claim', () => ({
    done: jobsSeen.size,
    total: JOBS,
    unit: 'jobs',
    extra: `${AGENTS} agents, ${empty} empty answers, ${errors} errors`,
  }));
  await Promise.all(Array.from({ length: AGENTS }, (_, i) => agent(i)));
  claiming.stop();
  // Until the last job was handed out (agents then still waiting get 204 when their poll ends).
  const seconds = (lastClaimAt - started) / 1000;
  const cpu = { api: processSeconds(api?.pid) - cpu0.api, pg: pgSeconds() - cpu0.pg };
  const load1 = os.loadavg();

  const q = (p: number) => (latency.getValueAtPercentile(p) / 1000).toFixed(1);
  const lines = [
    `fleet benchmark — ${new Date().toISOString()} — ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), node ${process.version}`,
    `API process on PostgreSQL (${dbName}); ${AGENTS} agents (${TOKENS} runner tokens), ${JOBS} jobs`,
    `queued:      ${JOBS} jobs in ${enqueueSeconds.toFixed(1)} s (${(JOBS / enqueueSeconds).toFixed(0)} jobs/s, 16 clients)`,
    `claimed:     ${claimed} jobs in ${seconds.toFixed(1)} s = ${(claimed / seconds).toFixed(0)} claims/s (each followed by one heartbeat)`,
    `latency:     claim that returned a job p50 ${q(50)} ms, p99 ${q(99)} ms, max ${(latency.maxValue / 1000).toFixed(1)} ms`,
    `duplicates:  ${duplicates} (a job attempt handed to two agents); distinct jobs claimed ${jobsSeen.size}; re-leases ${owner.size - jobsSeen.size}; empty answers ${empty}; errors ${errors}${errors ? ` (${[...errorStatus].map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}`,
    `CPU/claim:   API process ${((cpu.api / Math.max(1, claimed)) * 1000).toFixed(2)} ms, PostgreSQL backends ${((cpu.pg / Math.max(1, claimed)) * 1000).toFixed(2)} ms (incl. heartbeat)`,
    `load average before ${load0.map((l) => l.toFixed(2)).join(' ')}, after ${load1.map((l) => l.toFixed(2)).join(' ')}`,
  ];
  console.log(lines.join('\n'));
  if (duplicates > 0 || jobsSeen.size !== JOBS) process.exitCode = 1;
}

/** An idle fleet before and after a history of requested and cancelled jobs; prints the figures. */
async function idleBeforeAndAfterHistory(url: string, operator: string, tokens: string[]): Promise<void> {
  const before = await idlePhase(url, tokens);
  const historyStarted = performance.now();
  let requested = 0;
  const history = progressLines('history', () => ({
    done: requested,
    total: HISTORY,
    unit: 'jobs requested and cancelled',
  }));
  for (let i = 0; i < HISTORY; i++, requested++) {
    const res = await fetch(`${url}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scenario: 'vacuum-index-cleanup', for: { labels: historyLabels(i) } }),
    });
    if (res.status !== 201) throw new Error(`POST /v1/jobs: ${res.status} ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    const del = await fetch(`${url}/v1/jobs/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${operator}` },
    });
    if (del.status !== 200) throw new Error(`DELETE /v1/jobs/${id}: ${del.status} ${await del.text()}`);
  }
  history.stop();
  const historySeconds = (performance.now() - historyStarted) / 1000;
  const after = await idlePhase(url, tokens);
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
  console.log(
    [
      `idle fleet:  ${IDLE_AGENTS} agents long-polling for ${IDLE_SECONDS} s, before and after ${HISTORY} jobs requested and cancelled (for 255 label sets the agents all have: 255 queues that fit them) (${historySeconds.toFixed(1)} s)`,
      `  before:    ${before.xactPerSecond.toFixed(0)} database transactions/s, API CPU ${(before.apiCpu * 100).toFixed(1)} %, empty claim p50 ${before.emptyClaimMs.toFixed(1)} ms (load ${before.load})`,
      `  after:     ${after.xactPerSecond.toFixed(0)} database transactions/s, API CPU ${(after.apiCpu * 100).toFixed(1)} %, empty claim p50 ${after.emptyClaimMs.toFixed(1)} ms (load ${after.load})`,
      `  after/before: transactions ${ratio(after.xactPerSecond, before.xactPerSecond)}, API CPU ${ratio(after.apiCpu, before.apiCpu)}, empty claim ${ratio(after.emptyClaimMs, before.emptyClaimMs)}`,
    ].join('\n'),
  );
}

/** The idle agents' labels; history job i asks for a non-empty subset of them (255 distinct queues, all fitting). */
const IDLE_LABELS = ['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7'];
const historyLabels = (i: number) => IDLE_LABELS.filter((_, bit) => (((i % 255) + 1) >> bit) & 1);

/** Transactions committed or rolled back so far in the bench database. */
async function transactions(): Promise<number> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(
      'SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = $1',
      [dbName],
    );
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

/** IDLE_AGENTS agents long-poll for IDLE_SECONDS while a prober times empty claims (waitSeconds 0). */
async function idlePhase(url: string, tokens: string[]) {
  const claim = (token: string | undefined, waitSeconds: number) =>
    fetch(`${url}/v1/agent/claim`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hardware: HARDWARE, labels: IDLE_LABELS, engine: 'postgresql', server: 16, waitSeconds }),
    }).then((r) => r.arrayBuffer());
  // Let the stats of the previous phase reach pg_stat_database.
  await new Promise((r) => setTimeout(r, 1500));
  const x0 = await transactions();
  const cpu0 = processSeconds(api?.pid);
  const started = performance.now();
  const until = started + IDLE_SECONDS * 1000;
  const idle = Array.from({ length: IDLE_AGENTS }, async (_, i) => {
    while (performance.now() < until) await claim(tokens[i % tokens.length], 2);
  });
  const empties: number[] = [];
  const ticking = progressLines('idle fleet', () => ({
    done: Math.min(IDLE_SECONDS, (performance.now() - started) / 1000),
    total: IDLE_SECONDS,
    unit: 's of long polls',
  }));
  const prober = (async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      await claim(tokens[0], 0);
      empties.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  await Promise.all([...idle, prober]);
  ticking.stop();
  const seconds = (performance.now() - started) / 1000;
  await new Promise((r) => setTimeout(r, 1500));
  const x1 = await transactions();
  empties.sort((a, b) => a - b);
  return {
    xactPerSecond: (x1 - x0) / seconds,
    apiCpu: (processSeconds(api?.pid) - cpu0) / seconds,
    emptyClaimMs: empties[Math.floor(empties.length / 2)] ?? Number.NaN,
    load: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

try {
  await main();
} finally {
  await cleanup();
}
