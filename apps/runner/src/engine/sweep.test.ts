import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { postgresDriver } from '../engines/postgresql/driver.ts';
import { UsageError } from '../errors.ts';
import { renderRunTable } from '../report/table.ts';
import { loadScenario } from '@tunelab/scenarios';
import { databasesWithPrefix, TEST_PG_URL } from '../test-support/pg.ts';
import { cleanupRun, runPrefix, runScenario, type RunEvent } from './run-scenario.ts';

// A tiny sweep: every unit inserts {{n}} rows, so each sample shows the point it ran at.
const YAML = `
key: sweep-demo
title: Sweep demo
engines: [postgresql]
params:
  n: { type: integer, default: 1, min: 1, max: 1000 }
sweep: { param: n, default: [2, 5], published: [10, 20, 30] }
fixture:
  - { action: sql, sql: "CREATE TABLE t (i int)" }
variants:
  - key: a
    label: A
    steps:
      - action: timed
        steps: [{ action: sql, sql: "INSERT INTO t SELECT generate_series(1, {{n}})" }]
  - key: b
    label: B
    steps:
      - action: timed
        steps: [{ action: sql, sql: "INSERT INTO t SELECT generate_series(1, {{n}} * 2)" }]
comparisons: [{ baseline: a, candidate: b }]
metrics:
  - { key: duration, source: timed, unit: ms, better: lower }
  - { key: inserted, source: table_stat, relation: t, counter: n_tup_ins, at: delta, unit: rows, better: lower }
repetitions: { default: 2 }
`;
const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'tunelab-sweep-')), 'sweep-demo');
const runIds: string[] = [];
afterAll(async () => {
  for (const id of runIds) await cleanupRun(postgresDriver, TEST_PG_URL, id);
  await rm(path.dirname(dir), { recursive: true, force: true });
});

describe('sweeps', async () => {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dir);
  await writeFile(path.join(dir, 'scenario.yaml'), YAML);
  await writeFile(path.join(dir, 'README.md'), '# Sweep demo\n');
  const scenario = await loadScenario(dir);

  it('runs every point in one run, fixture once, samples carrying their point', async () => {
    const runId = crypto.randomUUID();
    runIds.push(runId);
    const events: RunEvent[] = [];
    const result = await runScenario({ scenario, target: TEST_PG_URL, runId, onEvent: (e) => events.push(e) });
    const run = result.submission;
    expect(RunSubmission.safeParse(run).success).toBe(true);
    expect(events.filter((e) => e.type === 'fixture-built')).toHaveLength(1);
    // Round by round: every point, and at each point a block of every variant in a random order.
    const starts = events.flatMap((e) =>
      e.type === 'unit-start' ? [`${e.repetition}:${e.point?.value}:${e.variant}`] : [],
    );
    const blockwise = (xs: string[]) =>
      [0, 2, 4, 6].flatMap((i) => xs.slice(i, i + 2).sort((x, y) => x.localeCompare(y)));
    expect(blockwise(starts)).toEqual(['1:2:a', '1:2:b', '1:5:a', '1:5:b', '2:2:a', '2:2:b', '2:5:a', '2:5:b']);
    const inserted = blockwise(
      run.samples
        .filter((s) => s.metric === 'inserted')
        .map((s) => `${s.variant}@${s.point?.param}=${s.point?.value}:${s.value}`),
    );
    expect(inserted).toEqual([
      'a@n=2:2',
      'b@n=2:4',
      'a@n=5:5',
      'b@n=5:10',
      'a@n=2:2',
      'b@n=2:4',
      'a@n=5:5',
      'b@n=5:10',
    ]);
    expect(run.samples.filter((s) => s.metric === 'duration').every((s) => s.point?.param === 'n')).toBe(true);
    expect(run.params.n).toBe('2,5');
    const table = renderRunTable(scenario, run);
    expect(table.match(/━━ n = \d+ ━━/g)).toEqual(['━━ n = 2 ━━', '━━ n = 5 ━━']);
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });

  it('--param n=3 runs one point; n=1,7 overrides the list', async () => {
    const runId = crypto.randomUUID();
    runIds.push(runId);
    const one = await runScenario({ scenario, target: TEST_PG_URL, runId, repetitions: 1, params: { n: '3' } });
    expect(new Set(one.submission.samples.filter((s) => s.metric === 'inserted').map((s) => s.point?.value))).toEqual(
      new Set([3]),
    );
    expect(one.submission.params.n).toBe(3);
    const runId2 = crypto.randomUUID();
    runIds.push(runId2);
    const two = await runScenario({
      scenario,
      target: TEST_PG_URL,
      runId: runId2,
      repetitions: 1,
      params: { n: '1,7' },
    });
    expect(
      two.submission.samples.filter((s) => s.metric === 'inserted' && s.variant === 'a').map((s) => s.value),
    ).toEqual([1, 7]);
  });

  it.each([
    ['1,x', /parameter n=x: expected a number|parameter n=x/],
    ['1,,3', /parameter n=1,,3: an empty value in the list/],
    ['0,2', /parameter n=0: expected at least 1/],
    ['2,2', /parameter n=2,2: a value is listed twice/],
  ])('a bad list n=%s is a usage error naming the parameter, before anything is created', async (list, message) => {
    const runId = crypto.randomUUID();
    const attempt = runScenario({ scenario, target: TEST_PG_URL, runId, params: { n: list } });
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(runScenario({ scenario, target: TEST_PG_URL, runId, params: { n: list } })).rejects.toThrow(message);
    await expect(runScenario({ scenario, target: TEST_PG_URL, runId, params: { n: list } })).rejects.toThrow(
      /n is swept: give one value or a comma-separated list, e\.g\. --param n=2,5/,
    );
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });
});
