import { describe, expect, it } from 'vitest';
import { runTunelab } from '../test-support/cli.ts';
import { TEST_PG_URL } from '../test-support/pg.ts';

const TARGET = TEST_PG_URL;

describe('tunelab agent (command line)', () => {
  it('--help says what --once and --server do', async () => {
    const r = await runTunelab(['agent', '--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--once: take one job, run it and exit/);
    expect(r.stdout).toMatch(/with no job within\s+--wait seconds \(default 60\), exit 0/);
    expect(r.stdout).toMatch(/--server <major\|release>\s+run each job on a throwaway PostgreSQL server/);
    expect(r.stdout).toMatch(/A job naming a release of it \(17\.4\) runs on that\s+release/);
    expect(r.stdout).toMatch(/--server MAJOR: every job runs on a throwaway PostgreSQL server of that major/);
    expect(r.stdout).toMatch(/Every run is recorded in TUNELAB_LEDGER_DIR before it/);
    expect(r.stdout).toMatch(
      /when the API refuses it \(unknown\s+or revoked, or this runner older than the API's minimum\) the agent says so and exits 6/,
    );
  });

  it.each([
    [['agent', '--api', 'http://127.0.0.1:9', '--token', 't'], /agent needs --target URL .* or --server MAJOR/],
    [
      ['agent', '--api', 'http://127.0.0.1:9', '--token', 't', '--target', TARGET, '--server', '17'],
      /--target and --server both choose the server jobs run on; give one/,
    ],
    [
      ['agent', '--api', 'http://127.0.0.1:9', '--token', 't', '--server', '13', '--once'],
      /"13" is not a PostgreSQL major this runner can install; choose one of 14, 15, 16, 17, 18/,
    ],
    [
      ['agent', '--api', 'http://127.0.0.1:9', '--token', 't', '--server', 'latest'],
      /"latest" is neither a PostgreSQL major nor a release/,
    ],
    [
      ['agent', '--api', 'http://127.0.0.1:9', '--token', 't', '--server', '13.4'],
      /"13\.4" is a release of PostgreSQL 13, not of a major this runner can install/,
    ],
    [['agent', '--target', TARGET], /agent needs --api\/TUNELAB_API_URL and --token/],
    [
      ['agent', '--api', 'http://127.0.0.1:9', '--token', 't', '--target', TARGET, '--wait', '5'],
      /--wait only applies with --once/,
    ],
    [
      ['agent', '--api', 'http://127.0.0.1:9', '--token', 't', '--target', TARGET, '--labels', 'Bad Label'],
      /label "Bad Label"/,
    ],
  ])('refuses %j with a sentence and exit 2', async (args, message) => {
    const r = await runTunelab(args, { TUNELAB_API_URL: '', TUNELAB_TOKEN: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('--once with no API answering: keeps trying until --wait, then exits 1 saying so', async () => {
    const r = await runTunelab(
      [
        'agent',
        '--api',
        'http://127.0.0.1:9',
        '--token',
        't',
        '--target',
        TARGET,
        '--storage',
        'ssd',
        '--once',
        '--wait',
        '1',
      ],
      { TUNELAB_SPOOL_DIR: '/nonexistent-tl-fleet-spool' },
    );
    expect(r.stderr).toMatch(/claim: the API did not answer within 1 s/);
    expect(r.code).toBe(1);
  }, 60_000);
});
