/**
 * `tunelab advise --api`: TuneLab's answer for a table comes from a real API process, over runs a
 * real `tunelab run` measured and submitted (vacuum-index-cleanup at rows = 1,000 and 10,000):
 * the nearest measured scale on the nearest hardware class of the same major, said against the
 * table's own scale; "not measured" where nothing is near; an API that does not answer.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openResultsDb } from '@tunelab/results-db';
import { createTestDatabase } from '@tunelab/results-db/testing';
import { ScenarioAnswers, SimilarBySpec } from '@tunelab/contracts';
import type { AdviseReport } from '@tunelab/runner';
import { apiProcess, runTunelab, scratch, TARGET } from './support.ts';

vi.setConfig({ testTimeout: 600_000, hookTimeout: 900_000 });

const { tmp, cleanups } = await scratch('tunelab-advise-api-');
const tunelab = (args: string[]) => runTunelab(args, { TUNELAB_RUNS_DIR: `${tmp}/runs`, TUNELAB_API_URL: '' });

const DB = `advise_api_${process.pid}`;
const targetUrl = () => {
  const u = new URL(TARGET);
  u.pathname = `/${DB}`;
  return u.toString();
};

async function sql(url: string, text: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

let apiUrl = '';
/** The hardware of the class the runs were stored under, as advise is told it. */
let hardware: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase('advise_results');
  cleanups.push(() => database.drop());
  const db = await openResultsDb(database.url);
  await db.migrate();
  const { token } = await db.createRunner(`advise-api-${Date.now()}`);
  await db.close();
  apiUrl = await apiProcess({ DATABASE_URL: database.url }, cleanups).start();
  for (const rows of [1000, 10000]) {
    const r = await tunelab([
      'run',
      'vacuum-index-cleanup',
      '--target',
      TARGET,
      '--param',
      `rows=${rows}`,
      '--repetitions',
      '3',
      '--api',
      apiUrl,
      '--token',
      token,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
  const answers = ScenarioAnswers.parse(
    await (await fetch(`${apiUrl}/v1/answers?scenario=vacuum-index-cleanup&engine=postgresql&major=15`)).json(),
  );
  const h = answers.groups[0]!.group.hardware;
  // The class's storage as the API ranks it: the kernel's kind, or for a virtual disk the tier its probe measured.
  const similar = SimilarBySpec.parse(
    await (await fetch(`${apiUrl}/v1/similar?cores=${h.physicalCores}&memoryGb=${h.memoryGb}&storage=unknown`)).json(),
  );
  const storage = similar.items.find((i) => i.class === h.class)!.storage;
  hardware = ['--cores', String(h.physicalCores), '--memory-gb', String(h.memoryGb), '--storage', storage];

  await sql(TARGET, `DROP DATABASE IF EXISTS ${DB}`);
  await sql(TARGET, `CREATE DATABASE ${DB}`);
  // orders: 8,000 rows, each updated once (8,000 dead tuples); events: 150,000 rows left of 300,000.
  await sql(
    targetUrl(),
    `CREATE TABLE orders (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = off);
     INSERT INTO orders SELECT g, g FROM generate_series(1, 8000) g;
     UPDATE orders SET v = v + 1;
     CREATE TABLE events (id int PRIMARY KEY) WITH (autovacuum_enabled = off);
     INSERT INTO events SELECT generate_series(1, 300000);
     DELETE FROM events WHERE id % 2 = 0;
     ANALYZE orders, events`,
  );
});

afterAll(async () => {
  await sql(TARGET, `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
});

const adviseJson = async (args: string[]) => {
  const r = await tunelab(['advise', '--target', targetUrl(), '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as AdviseReport;
};
const tableOf = (report: AdviseReport, scenario: string, table: string) =>
  report.scenarios.find((s) => s.key === scenario)!.tables.find((t) => t.table === table)!;

describe('tunelab advise --api', () => {
  it('answers at the nearest measured scale on this hardware class, and says how far it is from the table', async () => {
    const report = await adviseJson(['--api', apiUrl, ...hardware]);
    const orders = tableOf(report, 'vacuum-index-cleanup', 'public.orders');
    expect(orders.params).toEqual({ rows: 8000 });
    expect(orders.answer).toMatchObject({ status: 'answered', measuredAt: 10000, near: true, runs: 1 });
    if (orders.answer.status !== 'answered') return;
    expect(orders.answer.sentence).toMatch(
      /^measured at rows = 10k on .+, PostgreSQL 15 \(1 run\); yours is 8,000 \(1\.3× smaller\)$/,
    );
    expect(orders.answer.pairs.map((p) => `${p.baseline}→${p.candidate}`)).toEqual(['1-1→1-2', '2-1→2-2']);
    for (const p of orders.answer.pairs)
      expect(p.advice).toMatch(
        /^prefer |no measurable difference|not enough data|: not enough repetitions to be sure$|: (equivalent within ±10\.0%|undecided after \d+ blocks|unstable: .*)$/,
      );
    // Asked at the table's own scale (at=rows:8000): two measured sizes are too few for a fit.
    expect(orders.answer.atScale.map((p) => [p.baseline, p.candidate, p.status])).toEqual([
      ['1-1', '1-2', 'insufficient-data'],
      ['2-1', '2-2', 'insufficient-data'],
    ]);
    expect(orders.answer.atScale[0]!.sentence).toMatch(
      /^rows measured at 2 values \(1,000, 10,000\); an answer at any scale needs 3 for both variants/,
    );

    const events = tableOf(report, 'vacuum-index-cleanup', 'public.events');
    expect(events.params).toEqual({ rows: 150000 });
    expect(events.answer).toMatchObject({ status: 'answered', measuredAt: 10000, near: false });
    expect(events.answer.sentence).toMatch(/yours is 150k \(15× larger\): not measured near your scale$/);

    // Nothing measured for the other scenario on this major.
    const rewrite = tableOf(report, 'vacuum-full-rewrite', 'public.orders');
    expect(rewrite.answer).toEqual({ status: 'not-measured', sentence: 'not measured on PostgreSQL 15 yet' });
  });

  it('the table for people shows the answer and each pair’s advice', async () => {
    const r = await tunelab(['advise', '--target', targetUrl(), '--api', apiUrl, ...hardware]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/public\.orders: 8,000 dead tuples \(50%\), 1 index/);
    expect(r.stdout).toMatch(
      /answer: measured at rows = 10k on .+; yours is 8,000 \(1\.3× smaller\)\n {6}at your scale, 1-1 vs 1-2: rows measured at 2 values[^\n]*\n {6}at your scale, 2-1 vs 2-2: [^\n]*\n {6}(prefer|1-2|2-2)/,
    );
  });

  it('hardware far from every measured class: not measured near your hardware', async () => {
    const report = await adviseJson(['--api', apiUrl, '--cores', '64', '--memory-gb', '1024', '--storage', 'nvme']);
    expect(tableOf(report, 'vacuum-index-cleanup', 'public.orders').answer).toMatchObject({
      status: 'not-measured',
      sentence: expect.stringMatching(/^not measured near your hardware on PostgreSQL 15 \(nearest: .+\)$/) as string,
    });
  });

  it('names the class the API names for the same machine ("hardware like mine" ranked once, by the API)', async () => {
    // This machine as advise probes it (no overrides): cores, memory, storage and the probe's figures.
    const report = await adviseJson(['--api', apiUrl]);
    const f = report.hardware.figures;
    expect(f?.readIopsQd1, 'advise sends the figures it probed').toBeGreaterThan(0);
    const params = new URLSearchParams({
      scenario: 'vacuum-index-cleanup',
      engine: 'postgresql',
      major: '15',
      at: 'rows:8000',
      cores: String(report.hardware.cores),
      memoryGb: String(report.hardware.memoryGb),
      machineStorage: report.hardware.storage,
      ...Object.fromEntries(
        Object.entries(f ?? {})
          .filter(([k, v]) => v !== null && !(k === 'cpuWorkload' && f?.cpuScore === null))
          .map(([k, v]) => [k, String(v)]),
      ),
    });
    const api = ScenarioAnswers.parse(await (await fetch(`${apiUrl}/v1/answers?${params.toString()}`)).json());
    const orders = tableOf(report, 'vacuum-index-cleanup', 'public.orders').answer;
    // The same machine: the API's nearest like class is advise's, or neither has one.
    expect(api.likeMine).toBeDefined();
    if (api.likeMine!.nearest === null) expect(orders.status).toBe('not-measured');
    else expect(orders).toMatchObject({ status: 'answered', hardwareClass: api.likeMine!.nearest });
  });

  it('an API that does not answer leaves the advice without answers, exit 0', async () => {
    const report = await adviseJson(['--api', 'http://127.0.0.1:55503', ...hardware]);
    const orders = tableOf(report, 'vacuum-index-cleanup', 'public.orders');
    expect(orders.answer.status).toBe('unavailable');
    expect(orders.answer.sentence).toMatch(/^the API at http:\/\/127\.0\.0\.1:55503 did not answer/);
    expect(orders.command).toBe('tunelab run vacuum-index-cleanup --param rows=8000 --server 15');
  });
});
