/**
 * The "reproduce this run" command of a run page must be one the runner accepts and that asks for
 * the same run: the site's builder on a real submission (tests/fixtures/sample-submission.json, a
 * real `tunelab run --json`, stored and read back through results-db), split as a shell would,
 * parsed by the runner's own argument parser.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as shellParse } from 'shell-quote';
import { linkRun, RunSubmission, serverForCommand, type RunDetail, type RunSubmissionInput } from '@tunelab/contracts';
import { runCommandLine, type RunCommand } from '@tunelab/contracts/run-command';
import { openResultsDb } from '@tunelab/results-db';
import { parseRunArgs } from '@tunelab/runner';
import { reproduceCommand } from '../apps/site/src/lib/views.ts';

const SAMPLE: RunSubmissionInput = JSON.parse(
  readFileSync(new URL('./fixtures/sample-submission.json', import.meta.url), 'utf8'),
);
const db = await openResultsDb(undefined, { dataDir: 'memory://' });
await db.migrate();
afterAll(() => db.close());

async function stored(submission: RunSubmission, key: string): Promise<RunDetail> {
  const res = await db.ingestRun({ submission, document: submission, idempotencyKey: key, runnerId: null });
  const run = await db.getRun(res.run.id);
  if (!run) throw new Error('stored run not found');
  return linkRun(run);
}

/** The argv after `tunelab`, split the way a POSIX shell splits the printed line. */
function argvOf(command: string): string[] {
  const words = shellParse(command);
  const strings = words.filter((w): w is string => typeof w === 'string');
  expect(strings).toEqual(words); // no operators, globs or comments in the command
  expect(strings[0]).toBe('tunelab');
  return strings.slice(1);
}

describe('reproduce command round trip', () => {
  it('a real run: accepted, same scenario, params and options', async () => {
    const submission = RunSubmission.parse(SAMPLE);
    expect(submission.options).toBeDefined();
    const command = reproduceCommand(await stored(submission, 'reproduce-1'));
    const request = parseRunArgs(argvOf(command));
    expect(request.scenario).toBe(submission.scenario.key);
    expect(request.params).toEqual(
      Object.fromEntries(Object.entries(submission.params).map(([k, v]) => [k, String(v)])),
    );
    expect(request.options).toEqual({ repetitions: submission.options!.repetitions, scale: submission.options!.scale });
  });

  it('with --until-stable, a swept parameter, the published scale and a value the shell would split', async () => {
    const submission = RunSubmission.parse({
      ...SAMPLE,
      params: { ...SAMPLE.params, vus: '1,4', mode: "a b'c" },
      options: {
        repetitions: 5,
        scale: 'published',
        untilStable: { startRepetitions: 3, maxRepetitions: 7, cvThreshold: 0.02 },
      },
    });
    const command = reproduceCommand(await stored(submission, 'reproduce-2'));
    const request = parseRunArgs(argvOf(command));
    expect(request.scenario).toBe(submission.scenario.key);
    expect(request.params).toEqual({
      ...Object.fromEntries(Object.entries(SAMPLE.params).map(([k, v]) => [k, String(v)])),
      vus: '1,4',
      mode: "a b'c",
    });
    expect(request.options).toEqual({
      repetitions: 3,
      scale: 'published',
      untilStable: { maxRepetitions: 7, cvThreshold: 0.02 },
    });
  });

  it("with the scenario's own stopping rule: the plain command, which runs that rule; a time budget given with --until-stable", async () => {
    const byScenario = RunSubmission.parse({
      ...SAMPLE,
      options: {
        repetitions: 6,
        scale: 'default',
        untilStable: {
          startRepetitions: 3,
          maxRepetitions: 8,
          cvThreshold: 0.1,
          budgetSeconds: 240,
          source: 'scenario',
        },
      },
    });
    const plain = parseRunArgs(argvOf(reproduceCommand(await stored(byScenario, 'reproduce-4'))));
    expect(plain.options).toEqual({ scale: 'default' });
    const budgeted = RunSubmission.parse({
      ...SAMPLE,
      options: {
        repetitions: 4,
        scale: 'default',
        untilStable: { startRepetitions: 3, maxRepetitions: 9, cvThreshold: 0.05, budgetSeconds: 90, source: 'option' },
      },
    });
    const own = parseRunArgs(argvOf(reproduceCommand(await stored(budgeted, 'reproduce-5'))));
    expect(own.options).toEqual({
      repetitions: 3,
      scale: 'default',
      untilStable: { maxRepetitions: 9, cvThreshold: 0.05, budgetSeconds: 90 },
    });
  });

  it('on a managed server: --server and its --set settings', async () => {
    const submission = RunSubmission.parse({
      ...SAMPLE,
      options: { repetitions: 3, scale: 'default', server: 17, serverSettings: { shared_buffers: '256MB' } },
    });
    const command = reproduceCommand(await stored(submission, 'reproduce-3'));
    expect(command).toContain('--server 17 --set shared_buffers=256MB');
    expect(command).not.toContain('--target');
    expect(parseRunArgs(argvOf(command)).options).toEqual({
      repetitions: 3,
      scale: 'default',
      server: 17,
      serverSettings: { shared_buffers: '256MB' },
    });
  });

  it('on one release of a managed server: --server MAJOR.MINOR, which the runner reads back as that release', async () => {
    const submission = RunSubmission.parse({
      ...SAMPLE,
      options: {
        repetitions: 3,
        scale: 'default',
        server: 17,
        serverRelease: '17.4',
        serverSettings: { work_mem: '2MB' },
      },
    });
    const command = reproduceCommand(await stored(submission, 'reproduce-release'));
    expect(command).toContain('--server 17.4 --set work_mem=2MB');
    expect(parseRunArgs(argvOf(command)).options).toEqual({
      repetitions: 3,
      scale: 'default',
      server: 17,
      serverRelease: '17.4',
      serverSettings: { work_mem: '2MB' },
    });
  });

  it("a sequential run: the plain command when the scenario's design chose the blocks, --budget when the run was given one", async () => {
    const sequential = (source: 'scenario' | 'option') =>
      RunSubmission.parse({
        ...SAMPLE,
        options: {
          repetitions: 9,
          scale: 'default',
          sequential: {
            metric: 'duration',
            margin: 0.1,
            budgetSeconds: 420,
            maxBlocks: 40,
            source,
            stopped: 'decided',
          },
        },
      });
    const plain = parseRunArgs(argvOf(reproduceCommand(await stored(sequential('scenario'), 'reproduce-6'))));
    expect(plain.options).toEqual({ scale: 'default' });
    const given = parseRunArgs(argvOf(reproduceCommand(await stored(sequential('option'), 'reproduce-7'))));
    expect(given.options).toEqual({ scale: 'default', budgetSeconds: 420 });
  });
});

describe('runCommandLine: every command TuneLab prints, read back by the runner', () => {
  it('gives back the scenario, parameters, server and design it was built from', () => {
    const cases: RunCommand[] = [
      { scenario: 'vacuum-index-cleanup', params: { rows: 40_000_000 }, server: serverForCommand('postgresql', 15) },
      {
        scenario: 'vacuum-index-cleanup',
        params: { rows: 1 },
        server: serverForCommand('postgresql', 14),
      },
      {
        scenario: 'innodb-compression-insert',
        params: { rows: 20_000, buffer_pool_mb: 128 },
        server: serverForCommand('mariadb', 10),
        repetitions: 4,
      },
      { scenario: 'fillfactor-hot-updates', params: { vus: '1,4', note: "it's $HOME; `x`" }, budgetSeconds: 600 },
      {
        scenario: 'vacuum-full-rewrite',
        server: { server: 17, settings: { shared_buffers: '1 GB' } },
        publishedScale: true,
      },
      { scenario: 'vacuum-full-rewrite', scaleSweep: true },
    ];
    const requests = cases.map((c) => parseRunArgs(argvOf(runCommandLine(c))));
    expect(requests.map((r) => [r.scenario, r.params, r.target])).toEqual([
      ['vacuum-index-cleanup', { rows: '40000000' }, undefined],
      ['vacuum-index-cleanup', { rows: '1' }, undefined],
      ['innodb-compression-insert', { rows: '20000', buffer_pool_mb: '128' }, 'mysql://USER@HOST:3306/DBNAME'],
      ['fillfactor-hot-updates', { vus: '1,4', note: "it's $HOME; `x`" }, undefined],
      ['vacuum-full-rewrite', {}, undefined],
      ['vacuum-full-rewrite', {}, undefined],
    ]);
    expect(requests.map((r) => r.options)).toEqual([
      { scale: 'default', server: 15 },
      { scale: 'default', server: 14 },
      { scale: 'default', repetitions: 4 },
      { scale: 'default', budgetSeconds: 600 },
      { scale: 'published', server: 17, serverSettings: { shared_buffers: '1 GB' } },
      { scale: 'default' },
    ]);
    expect(requests[5]!.scaleSweep).toBe(true);
  });
});
