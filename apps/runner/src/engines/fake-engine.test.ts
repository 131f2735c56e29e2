/**
 * "Adding an engine" (apps/runner/README.md) held to its word: a third engine, "pgcompat" (a
 * PostgreSQL-compatible server at `pgcompat://`), added in exactly the places the README names —
 * one ENGINE_FACTS entry and one DRIVERS line, made to those files' text as they load
 * (test-support/fake-engine/hooks.mjs), and one folder (test-support/fake-engine/driver.ts: the
 * PostgreSQL driver under the engine's own name, against the real local PostgreSQL). The CLI runs
 * in its own process with those hooks; nothing else is edited: scenario loading (a scenario that
 * lists pgcompat), advise's interpreter and its printed command (runCommandLine), and a run that
 * measures, records the engine and cleans up — and @tunelab/answers, loaded with the same hooks,
 * groups that run under the new engine and its major, and the site (apps/site/src/lib/views.ts) prints
 * reproduce and first-run commands that name it and that the runner parses back.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childEnv } from '@tunelab/env';
import { DEFAULT_SCENARIOS_DIR } from '@tunelab/scenarios';
import type { AdviseReport } from '../advise/command.ts';
import { parseRunArgs } from '../commands/run.ts';
import { runPrefix } from '../engine/plan.ts';
import { databasesWithPrefix, TEST_PG_URL, withClient } from '../test-support/pg.ts';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/tunelab.mjs', import.meta.url));
const HOOKS = fileURLToPath(new URL('../test-support/fake-engine/register.mjs', import.meta.url));
const DB = `fake_engine_${process.pid}`;
const KEY = 'vacuum-full-rewrite';

let dir: string;
const pgcompat = (database: string) => {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${database}`;
  return u.toString().replace(/^postgres(ql)?:/, 'pgcompat:');
};

/** The CLI with the engine added, in its own process; its files under this test's temp dir. */
function tunelab(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', HOOKS, BIN, ...args], {
      cwd: ROOT,
      env: childEnv({
        TUNELAB_API_URL: '',
        TUNELAB_SCENARIOS_DIR: path.join(dir, 'scenarios'),
        TUNELAB_RUNS_DIR: path.join(dir, 'runs'),
        TUNELAB_SPOOL_DIR: path.join(dir, 'spool'),
        TUNELAB_LEDGER_DIR: path.join(dir, 'ledger'),
        TUNELAB_PROBE_HISTORY: path.join(dir, 'probe-history'),
      }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const dbUrl = () => {
  const u = new URL(TEST_PG_URL);
  u.pathname = `/${DB}`;
  return u.toString();
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tunelab-fake-engine-'));
  // The repository's scenario, listing the new engine beside PostgreSQL (the scenario's own edit).
  const folder = path.join(dir, 'scenarios', KEY);
  await cp(path.join(DEFAULT_SCENARIOS_DIR, KEY), folder, { recursive: true });
  const yaml = await readFile(path.join(folder, 'scenario.yaml'), 'utf8');
  expect(yaml).toContain('\nengines: [postgresql]\n');
  await writeFile(
    path.join(folder, 'scenario.yaml'),
    yaml.replace('\nengines: [postgresql]\n', '\nengines: [postgresql, pgcompat]\n'),
  );
  await withClient(TEST_PG_URL, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${DB}`);
    await c.query(`CREATE DATABASE ${DB}`);
  });
  await withClient(dbUrl(), async (c) => {
    await c.query(`CREATE TABLE bloated (id int PRIMARY KEY, pad text) WITH (autovacuum_enabled = off);
      INSERT INTO bloated SELECT g, repeat('x', 100) FROM generate_series(1, 4000) g;
      DELETE FROM bloated WHERE id % 5 < 3;
      ANALYZE bloated`);
    await c.query('SELECT pg_stat_force_next_flush()');
  });
});

afterAll(async () => {
  await withClient(TEST_PG_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`));
  await rm(dir, { recursive: true, force: true });
});

describe('a third engine added in the places "Adding an engine" names', () => {
  let command: string;

  it('advise reads it, applies the scenario that lists it and prints a run against it', async () => {
    const { code, stdout, stderr } = await tunelab([
      'advise',
      '--target',
      pgcompat(DB),
      '--json',
      ...['--cores', '2', '--memory-gb', '8', '--storage', 'ssd'],
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as AdviseReport;
    expect(report.inspection.engine).toBe('pgcompat');
    const rewrite = report.scenarios.find((s) => s.key === KEY)!;
    expect(rewrite.tables.map((t) => t.table)).toEqual(['public.bloated']);
    expect(rewrite.tables[0]!.why).toBe(
      `2,400 dead of 4,000 tuples (60%), table ${/table (.*)$/.exec(rewrite.tables[0]!.why)![1]}`,
    );
    // No managed server of this engine: the command names the inspected server, which is local.
    command = rewrite.tables[0]!.command;
    expect(command).toBe(`tunelab run ${KEY} --param rows=4000 --target ${pgcompat(DB)}`);
    const request = parseRunArgs(command.split(' ').slice(1));
    expect(request.target).toBe(pgcompat(DB));
  });

  it('runs the scenario on it: the run records the engine, and removes its databases', async () => {
    const out = path.join(dir, 'run.json');
    const { code, stderr } = await tunelab([
      ...command.split(' ').slice(1),
      ...['--param', 'rows=2000', '--repetitions', '1', '--storage', 'ssd', '--out', out],
    ]);
    expect(code, stderr).toBe(0);
    const { runId, submission } = JSON.parse(await readFile(out, 'utf8')) as {
      runId: string;
      submission: { database: { engine: string; major: number }; samples: { variant: string }[] };
    };
    expect(submission.database.engine).toBe('pgcompat');
    expect(submission.database.major).toBeGreaterThanOrEqual(14);
    expect(new Set(submission.samples.map((s) => s.variant))).toEqual(
      new Set(['vacuum', 'full-rewrite', 'vacuum-reindex', 'cluster', 'fixture']),
    );
    // The run's own databases, dropped through the engine's driver.
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);

    // @tunelab/answers, with the engine added the same way, groups the run under its own engine.
    const grouped = await answersOf(out);
    expect(grouped.code, grouped.stderr).toBe(0);
    const engines = JSON.parse(grouped.stdout) as { engine: string; major: string }[];
    expect(engines.length).toBeGreaterThan(0);
    for (const g of engines) expect(g).toEqual({ engine: 'pgcompat', major: String(submission.database.major) });

    // The site, with the engine added the same way, prints commands that name it and that the
    // runner parses back: the run's reproduce command and a first run of the scenario.
    const site = await siteCommandsOf(out);
    expect(site.code, site.stderr).toBe(0);
    const { reproduce, note, first } = JSON.parse(site.stdout) as Record<string, string>;
    const example = 'pgcompat://USER@HOST:5432/DBNAME';
    expect(reproduce).toBe(`tunelab run ${KEY} --param rows=2000 --target ${example} --repetitions 1`);
    expect(note).toBe(
      `Replace ${example} with a PG-compatible server you can spare; the runner builds its own databases on it and drops them at the end.`,
    );
    expect(first).toBe(`tunelab run ${KEY} --target ${example}`);
    for (const line of [reproduce, first]) {
      const request = parseRunArgs(line!.replace(example, pgcompat(DB)).split(' ').slice(1));
      expect(request.target).toBe(pgcompat(DB));
      expect(request.scenario).toBe(KEY);
    }
  });
});

/** The site's reproduceCommand, reproduceNote and firstRunCommand for the run, in a process with the engine added. */
function siteCommandsOf(runFile: string) {
  return hooked(
    `
    const { readFile } = await import('node:fs/promises');
    const views = await import(${JSON.stringify(path.join(ROOT, 'apps/site/src/lib/views.ts'))});
    const { submission } = JSON.parse(await readFile(process.argv[1], 'utf8'));
    const run = {
      scenario: { key: ${JSON.stringify(KEY)} },
      params: submission.params,
      samples: submission.samples,
      databaseEnvironment: { engine: submission.database.engine },
      source: 'measured',
    };
    const reproduce = views.reproduceCommand(run, { engines: ['pgcompat'] });
    const note = views.reproduceNote(run, reproduce);
    const first = views.firstRunCommand(${JSON.stringify(KEY)}, { engines: ['pgcompat', 'postgresql'] });
    process.stdout.write(JSON.stringify({ reproduce, note, first }));
  `,
    [runFile],
  );
}

/** answerRun of @tunelab/answers on a run file, in a process with the engine added: each group's engine and major. */
function answersOf(runFile: string) {
  return hooked(
    `
    const { readFile } = await import('node:fs/promises');
    const { answerRun } = await import('@tunelab/answers');
    const { loadScenario } = await import('@tunelab/scenarios');
    const scenario = await loadScenario(process.argv[1]);
    const { submission } = JSON.parse(await readFile(process.argv[2], 'utf8'));
    const metric = submission.samples[0].metric;
    const answer = answerRun({ doc: scenario.doc, published: scenario.published, run: submission, metric });
    process.stdout.write(JSON.stringify(answer.groups.map(({ group }) => ({ engine: group.engine.engine, major: String(group.engine.major) }))));
  `,
    [path.join(dir, 'scenarios', KEY), runFile],
  );
}

/** A module script run by Node with TypeScript loading and the engine's hooks, with `args` after it. */
function hooked(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const source = `import { register } from 'tsx/esm/api';\nregister();\n${script}`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', HOOKS, '--input-type=module', '-e', source, ...args], {
      cwd: ROOT,
      env: childEnv({}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
