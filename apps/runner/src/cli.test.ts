import { runTunelab } from './test-support/cli.ts';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { cleanupRun, runPrefix } from './engine/run-scenario.ts';
import { postgresDriver } from './engines/postgresql/driver.ts';
import { EXIT } from './exit-codes.ts';
import { makeRunFile, writeRunFile } from './app/run-file.ts';
import { databasesWithPrefix, TEST_PG_URL } from './test-support/pg.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-cli-'));
const runIds: string[] = [];
afterAll(async () => {
  for (const id of runIds) await cleanupRun(postgresDriver, TEST_PG_URL, id);
  await rm(tmp, { recursive: true, force: true });
});

const tunelab = (args: string[], env: Record<string, string> = {}, onStderr?: Parameters<typeof runTunelab>[2]) =>
  runTunelab(
    args,
    {
      TUNELAB_SPOOL_DIR: path.join(tmp, 'spool'),
      TUNELAB_RUNS_DIR: path.join(tmp, 'runs'),
      TUNELAB_SUBMIT_BACKOFF_MS: '10',
      ...env,
    },
    onStderr,
  );

/** A fresh run id, cleaned up after this file whatever the run left. */
function newRunId(): string {
  const runId = crypto.randomUUID();
  runIds.push(runId);
  return runId;
}
/** `tunelab run KEY` on the test server with `rows=ROWS`, `args`, and a fresh run id. */
const runOnTestServer = (
  key: string,
  rows: number,
  args: string[],
  runId = newRunId(),
  onStderr?: Parameters<typeof runTunelab>[2],
) =>
  tunelab(['run', key, '--target', TEST_PG_URL, '--param', `rows=${rows}`, ...args, '--run-id', runId], {}, onStderr);

describe('exit codes', () => {
  it('bin/tunelab.mjs itself starts through tsx (the other tests start a bundle of it)', () => {
    const r = spawnSync(
      process.execPath,
      [fileURLToPath(new URL('../bin/tunelab.mjs', import.meta.url)), '--version'],
      {
        encoding: 'utf8',
        cwd: ROOT,
      },
    );
    expect(r.status, r.stderr).toBe(EXIT.OK);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
  it('--help exits 0 and documents exit codes', async () => {
    const r = await tunelab(['--help']);
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout).toContain('Exit codes:');
  });
  it('usage errors exit 2', async () => {
    expect((await tunelab(['run', 'vacuum-index-cleanup'])).code).toBe(EXIT.USAGE); // no --target
    expect((await tunelab(['run', 'no-such-scenario', '--target', TEST_PG_URL])).code).toBe(EXIT.USAGE);
    expect((await tunelab(['run', 'vacuum-index-cleanup', '--target', TEST_PG_URL, '--param', 'rows=abc'])).code).toBe(
      EXIT.USAGE,
    );
    expect((await tunelab(['validate', 'nope'])).code).toBe(EXIT.USAGE);
  });
  it('--until-stable usage errors exit 2 with a clear message, before touching the server', async () => {
    const run = ['run', 'vacuum-index-cleanup', '--target', TEST_PG_URL, '--param', 'rows=100'];
    const cases: [string[], RegExp][] = [
      [
        ['--until-stable', '--max-repetitions', '2'],
        /--max-repetitions 2 is below the starting count of 3 repetitions/,
      ],
      [
        ['--until-stable', '--repetitions', '6', '--max-repetitions', '5'],
        /--max-repetitions 5 is below the starting count of 6/,
      ],
      [
        ['--until-stable', '--max-repetitions', 'ten'],
        /--max-repetitions <n>' argument 'ten' is invalid\. expected a positive integer/,
      ],
      [['--until-stable', '--cv-threshold', 'abc'], /--cv-threshold <fraction>' argument 'abc' is invalid/],
      [['--until-stable', '--cv-threshold', '0'], /expected a positive number/],
      [['--max-repetitions', '5'], /--max-repetitions only applies with --until-stable/],
      [['--time-budget', '60'], /--time-budget only applies with --until-stable/],
      [['--until-stable', '--time-budget', '0'], /--time-budget <seconds>' argument '0' is invalid/],
    ];
    const results = await Promise.all(cases.map(([extra]) => tunelab([...run, ...extra])));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(EXIT.USAGE);
      expect(r.stderr).toMatch(cases[i]![1]);
    });
  });
  it('an API URL that is not http(s) is a usage error naming where it came from, before anything runs', async () => {
    const run = ['run', 'vacuum-index-cleanup', '--target', TEST_PG_URL, '--token', 'tlr_x', '--repetitions', '1'];
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        [...run, '--api', 'notaurl'],
        {},
        /--api must be the API's http\(s\) URL, such as http:\/\/127\.0\.0\.1:8080, got "notaurl"/,
      ],
      [run, { TUNELAB_API_URL: 'ftp://x' }, /TUNELAB_API_URL must be the API's http\(s\) URL/],
      [
        ['agent', '--api', 'http//x', '--token', 'tlr_x', '--target', TEST_PG_URL],
        {},
        /--api must be the API's http\(s\) URL, such as .*got "http\/\/x"/,
      ],
      [['spool', 'flush', '--api', 'https://u:pw@', '--token', 'tlr_x'], {}, /got "https:\/\/u:\*\*\*@"/],
    ];
    for (const [args, env, sentence] of cases) {
      const r = await tunelab(args, env);
      expect(r.code, args.join(' ')).toBe(EXIT.USAGE);
      expect(r.stderr).toMatch(sentence);
      expect(r.stderr).not.toMatch(/Invalid URL|measuring/);
    }
  });
  it('run --help documents --until-stable', async () => {
    const r = await tunelab(['run', '--help']);
    expect(r.stdout).toMatch(/--until-stable/);
    expect(r.stdout).toMatch(/--max-repetitions <n>/);
    expect(r.stdout).toMatch(/--cv-threshold <fraction>/);
    expect(r.stdout).toMatch(/--time-budget <seconds>/);
  });
  it('an unreachable target exits 3', async () => {
    const r = await tunelab(['run', 'vacuum-index-cleanup', '--target', 'postgres://postgres@127.0.0.1:1/postgres']);
    expect(r.code).toBe(EXIT.TARGET_UNREACHABLE);
    expect(r.stderr).toMatch(/cannot reach the target/);
  });
  it('scenarios lists versions', async () => {
    const r = await tunelab(['scenarios', '--json']);
    expect(JSON.parse(r.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'vacuum-index-cleanup', version: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      ]),
    );
  });
});

describe('Ctrl-C', () => {
  // Once while the fixture is being built (statements in flight in the template), once while clones run.
  // The signal goes once the template database exists (polled: the phase line is printed before
  // CREATE DATABASE, which a loaded machine can take a second to finish), never after a fixed wait.
  // The fixture build needs a fixture that takes seconds to build (60,000 rows); the measurement
  // phase only needs units left to run (80 of them), not a large fixture to build first.
  it.each([
    { phase: 'fixture build', when: /fixture: building/, rows: 60_000 },
    { phase: 'measurement', when: /2\/80 variant/, rows: 3_000 },
  ])('SIGINT during $phase drops every database the run created', async ({ phase, when, rows }) => {
    const runId = newRunId();
    const prefix = runPrefix(runId);
    let sent = false;
    let seen: string[] = [];
    const whenTemplateExists = async (): Promise<void> => {
      seen = await databasesWithPrefix(prefix);
      if (!seen.includes(`${prefix}tpl`)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return whenTemplateExists();
      }
    };
    const r = await runOnTestServer(
      'vacuum-index-cleanup',
      rows,
      ['--repetitions', '20', '--json'],
      runId,
      (stderr, child) => {
        if (!sent && when.test(stderr)) {
          sent = true;
          void whenTemplateExists().then(() => child.kill('SIGINT'));
        }
      },
    );
    expect(sent).toBe(true);
    expect(seen).toContain(`${prefix}tpl`);
    // The fixture of 60,000 rows takes seconds to build: the signal came while it was being built.
    if (phase === 'fixture build') expect(r.stderr).not.toMatch(/fixture built/);
    expect(r.code).toBe(EXIT.INTERRUPTED);
    expect(r.stderr).toMatch(/interrupted/);
    expect(r.stdout).toBe('');
    expect(await databasesWithPrefix(prefix)).toEqual([]);
  });
});

/** What the real API answers for a stored run (the runner checks key and sample count). */
function runAcceptedFor(
  headers: IncomingMessage['headers'],
  body: { scenario: { key: string; version: string }; samples: unknown[]; timeSeries?: unknown[] },
) {
  const id = crypto.randomUUID();
  return {
    id,
    status: 'stored',
    idempotencyKey: String(headers['idempotency-key']),
    scenario: { key: body.scenario.key, version: body.scenario.version },
    hardware: { fingerprint: 'a'.repeat(64), class: '2 cores / 24 GB / SSD' },
    samples: body.samples.length,
    timeSeriesPoints: body.timeSeries?.length ?? 0,
    receivedAt: new Date().toISOString(),
    links: { self: `/v1/runs/${id}` },
  };
}

describe('run → submit → spool', () => {
  type Received = { headers: IncomingMessage['headers']; body: unknown };
  const received: Received[] = [];
  let mode: 'ok' | 'fail-then-ok' | 'problem' | 'throttle' = 'ok';
  let calls = 0;
  let server: Server;
  let api = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        // The token check before measuring (GET /v1/runners/me): this stand-in takes every token.
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'stand-in' }));
          return;
        }
        calls++;
        received.push({ headers: req.headers, body: JSON.parse(text) });
        if (mode === 'fail-then-ok' && calls === 1) {
          res.writeHead(503, { 'content-type': 'application/problem+json' }).end('{}');
          return;
        }
        if (mode === 'throttle' && calls === 1) {
          res.writeHead(429, { 'retry-after': '1' }).end();
          return;
        }
        if (mode === 'problem') {
          res.writeHead(422, { 'content-type': 'application/problem+json' }).end(
            JSON.stringify({
              type: 'about:blank',
              title: 'Unprocessable',
              status: 422,
              detail: 'samples are wrong',
              requestId: 'req-1',
              errors: [{ path: 'samples.0.value', message: 'must be finite' }],
            }),
          );
          return;
        }
        const replay =
          received.filter((r) => r.headers['idempotency-key'] === req.headers['idempotency-key']).length > 1;
        res
          .writeHead(replay ? 200 : 201, { 'content-type': 'application/json' })
          .end(JSON.stringify(runAcceptedFor(req.headers, JSON.parse(text))));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // The submit/spool tests below send a run file of their own, so each can run alone.
  const stored = path.join(tmp, 'stored.json');
  beforeAll(async () => {
    const submission = RunSubmission.parse(
      JSON.parse(await readFile(path.join(ROOT, 'tests/fixtures/sample-submission.json'), 'utf8')),
    );
    const runId = crypto.randomUUID();
    await writeRunFile(stored, makeRunFile(runId, `tunelab-run-${runId}`, submission));
  });

  it('runs, writes the run file and submits it with the documented headers', async () => {
    mode = 'fail-then-ok';
    calls = 0;
    received.length = 0;
    const runFile = path.join(tmp, 'run.json');
    const runId = newRunId();
    const r = await runOnTestServer(
      'vacuum-full-rewrite',
      1000,
      ['--repetitions', '1', '--out', runFile, '--api', api, '--token', 'tok-1'],
      runId,
    );
    expect(r.stderr).toMatch(/retry 1/);
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout).toMatch(
      /Not enough data to compare vacuum with full-rewrite \(n = 1 \+ 1; at least 3 runs of each are needed\)/,
    );
    const file = JSON.parse(await readFile(runFile, 'utf8'));
    expect(file).toMatchObject({ format: 'tunelab-run/1', runId, idempotencyKey: `tunelab-run-${runId}` });
    expect(received).toHaveLength(2); // 503, then 201 — same key both times
    for (const rec of received) {
      expect(rec.headers.authorization).toBe('Bearer tok-1');
      expect(rec.headers['idempotency-key']).toBe(`tunelab-run-${runId}`);
      expect(rec.headers['user-agent']).toMatch(/^tunelab-runner\/\d+\.\d+\.\d+/);
      expect(RunSubmission.safeParse(rec.body).success).toBe(true);
    }
  });

  it('a refused run (4xx problem) shows the detail, keeps the run file and exits 4', async () => {
    mode = 'problem';
    const r = await tunelab(['submit', stored, '--api', api, '--token', 'tok-1']);
    expect(r.code).toBe(EXIT.NOT_STORED);
    expect(r.stderr).toContain('samples are wrong');
    expect(r.stderr).toContain('samples.0.value: must be finite');
    expect(await readFile(stored, 'utf8')).toContain('tunelab-run/1');
    expect(await readdir(path.join(tmp, 'spool')).catch(() => [])).toEqual([]);
  });

  it('honours 429 Retry-After', async () => {
    mode = 'throttle';
    calls = 0;
    received.length = 0;
    const t0 = Date.now();
    const r = await tunelab(['submit', stored, '--api', api, '--token', 'tok-1']);
    expect(r.code).toBe(EXIT.OK);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(received).toHaveLength(2); // 429, then the same submission again
  });

  it('an unreachable API spools the run; flush sends it once and empties the spool', async () => {
    const r = await tunelab(['submit', stored, '--api', 'http://127.0.0.1:1', '--token', 'tok-1'], {
      TUNELAB_SUBMIT_RETRIES: '1',
    });
    expect(r.code).toBe(EXIT.NOT_STORED);
    expect(r.stderr).toMatch(/waits in the spool/);
    const list = await tunelab(['spool', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toHaveLength(1);
    mode = 'ok';
    const before = received.length;
    const flush = await tunelab(['spool', 'flush', '--api', api, '--token', 'tok-1']);
    expect(flush.code).toBe(EXIT.OK);
    expect(flush.stdout).toMatch(/stored/);
    expect(received.length - before).toBe(1);
    expect(await readdir(path.join(tmp, 'spool'))).toEqual([]);
  });
});

describe('run --until-stable', () => {
  it('prints the CV per variant and why it stopped in the table footer, and records it in the run file', async () => {
    const runId = newRunId();
    const out = path.join(tmp, 'until-stable.json');
    const r = await runOnTestServer(
      'vacuum-full-rewrite',
      300,
      ['--until-stable', '--max-repetitions', '4', '--cv-threshold', '0.000001', '--out', out],
      runId,
    );
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout).toMatch(/#4 +mean +CV\n/);
    expect(r.stdout).toMatch(/\nstopped: max-repetitions reached \(4\): CV of .+ > 0\.0001%\n/);
    expect(r.stderr).toMatch(/until-stable: CV of \S+ = [\d.]+% > 0\.0001%: adding repetition 4 \(max 4\)/);
    expect(r.stderr).toMatch(/16\/16 variant/);
    const { submission } = JSON.parse(await readFile(out, 'utf8'));
    expect(submission.options).toEqual({
      repetitions: 4,
      scale: 'default',
      untilStable: { startRepetitions: 3, maxRepetitions: 4, cvThreshold: 0.000001, source: 'option' },
    });
    expect(submission.notes).toContainEqual({
      kind: 'stopping-rule',
      text: expect.stringMatching(/^max-repetitions reached \(4\)/),
    });
    expect(await databasesWithPrefix(runPrefix(runId))).toEqual([]);
  });

  it('--json carries the stopping rule in the submission', async () => {
    const r = await runOnTestServer('vacuum-full-rewrite', 300, [
      '--until-stable',
      '--cv-threshold',
      '10',
      '--out',
      path.join(tmp, 'stable.json'),
      '--json',
    ]);
    expect(r.code).toBe(EXIT.OK);
    const { submission } = JSON.parse(r.stdout);
    expect(submission.options).toEqual({
      repetitions: 3,
      scale: 'default',
      untilStable: { startRepetitions: 3, maxRepetitions: 10, cvThreshold: 10, source: 'option' },
    });
    expect(submission.notes).toContainEqual({
      kind: 'stopping-rule',
      text: expect.stringMatching(/^stable: all compared variants' CV ≤ 1000% after 3 repetitions/),
    });
    expect(r.stderr).toMatch(/until-stable: stable: /);
  });
});

describe('validate', () => {
  it('names the file and the path of every problem and exits 2', async () => {
    const dir = path.join(tmp, 'scenarios', 'broken');
    await import('node:fs/promises').then(async (fs) => {
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(
        path.join(dir, 'scenario.yaml'),
        'key: broken\ntitle: x\nengines: [postgresql]\nfixture: []\nvariants: []\nmetrics: []\nrepetitions: { default: 0 }\n',
      );
      await fs.writeFile(path.join(dir, 'README.md'), '#');
    });
    const r = await tunelab(['validate'], { TUNELAB_SCENARIOS_DIR: path.join(tmp, 'scenarios') });
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stdout).toContain('invalid  broken');
    expect(r.stdout).toMatch(/broken\/scenario\.yaml: fixture: /);
    expect(r.stdout).toMatch(/broken\/scenario\.yaml: repetitions\.default: /);
  });
});
