/**
 * Against a fake API (an HTTP server in this file) and the real CLI:
 * a corrupt spool file is quarantined and the rest are sent; only the API's RunAccepted for the
 * very run lets the spool delete it; two flushes at once are safe; `--param constructor=x` is an
 * unknown parameter. The same flows against the real API are in tests/spool-api.test.ts.
 */
import { runTunelab } from '../test-support/cli.ts';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { EXIT } from '../exit-codes.ts';
import { makeRunFile } from './run-file.ts';
import { TEST_PG_URL } from '../test-support/pg.ts';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const SAMPLE = RunSubmission.parse(
  JSON.parse(await readFile(path.join(ROOT, 'tests/fixtures/sample-submission.json'), 'utf8')),
);
const tmp = await mkdtemp(path.join(os.tmpdir(), 'tunelab-spool-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

const tunelab = (args: string[], spool: string) =>
  runTunelab(args, {
    TUNELAB_SPOOL_DIR: spool,
    TUNELAB_RUNS_DIR: path.join(tmp, 'runs'),
    TUNELAB_SUBMIT_BACKOFF_MS: '10',
    TUNELAB_SUBMIT_RETRIES: '0',
  });

type Mode = 'accepted' | 'text-200' | 'other-key' | 'other-count' | 'job-conflict' | 'unauthorized' | 'proxy-413';
let mode: Mode = 'accepted';
let delayMs = 0;
const received: { key: string }[] = [];
let server: Server;
let api = '';

function answer(req: IncomingMessage, body: { scenario: { key: string; version: string }; samples: unknown[] }) {
  const id = crypto.randomUUID();
  return {
    id,
    status: 'stored',
    idempotencyKey: mode === 'other-key' ? 'someone-else' : String(req.headers['idempotency-key']),
    scenario: body.scenario,
    hardware: { fingerprint: 'a'.repeat(64), class: '2 cores / 24 GB / SSD' },
    samples: mode === 'other-count' ? body.samples.length + 1 : body.samples.length,
    timeSeriesPoints: 0,
    receivedAt: new Date().toISOString(),
    links: { self: `/v1/runs/${id}` },
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      const replay = received.some((r) => r.key === key);
      received.push({ key });
      setTimeout(() => {
        if (mode === 'job-conflict' || mode === 'unauthorized') {
          const status = mode === 'job-conflict' ? 409 : 401;
          res.writeHead(status, { 'content-type': 'application/problem+json' }).end(
            JSON.stringify({
              type: 'about:blank',
              title: mode,
              status,
              detail: mode === 'job-conflict' ? 'job x is held by another agent' : 'unknown runner token',
              requestId: 'req-1',
            }),
          );
          return;
        }
        if (mode === 'proxy-413') {
          // nginx's client_max_body_size: its own HTML page, not the API's problem+json.
          res
            .writeHead(413, { 'content-type': 'text/html' })
            .end('<html><head><title>413 Request Entity Too Large</title></head><body>nginx</body></html>');
          return;
        }
        if (mode === 'text-200') {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
          return;
        }
        res
          .writeHead(replay ? 200 : 201, { 'content-type': 'application/json' })
          .end(JSON.stringify(answer(req, JSON.parse(text))));
      }, delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  mode = 'accepted';
  delayMs = 0;
  received.length = 0;
});

let n = 0;
/** A fresh spool with `good` valid run files (and the given extra files). */
async function spoolWith(good: number, extra: Record<string, string> = {}) {
  const dir = path.join(tmp, `spool-${n++}`);
  await mkdir(dir, { recursive: true });
  const ids: string[] = [];
  for (let i = 0; i < good; i++) {
    const runId = crypto.randomUUID();
    ids.push(runId);
    await writeFile(
      path.join(dir, `${runId}.json`),
      JSON.stringify(makeRunFile(runId, `tunelab-run-${runId}`, SAMPLE)),
    );
  }
  for (const [name, body] of Object.entries(extra)) await writeFile(path.join(dir, name), body);
  return { dir, ids };
}
const runFilesIn = async (dir: string) => (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();

describe('spool against a fake API', () => {
  it('a corrupt file does not block list or flush: it is quarantined with a message and the rest are sent', async () => {
    const { dir, ids } = await spoolWith(2, {
      '0-corrupt.json': '{"format":"tunelab-run/1", "submis',
      '1-not-a-run.json': '{"hello":"world"}',
    });
    const list = await tunelab(['spool', 'list', '--json'], dir);
    expect(list.code, list.stderr).toBe(EXIT.OK);
    expect(
      JSON.parse(list.stdout)
        .map((r: { runId: string }) => r.runId)
        .sort(),
    ).toEqual([...ids].sort());
    expect(list.stderr).toMatch(/0-corrupt\.json: not a run file/);
    expect(list.stderr).toMatch(/1-not-a-run\.json: not a run file/);

    const flush = await tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir);
    expect(flush.code).toBe(EXIT.NOT_STORED);
    expect(flush.stderr).toMatch(/0-corrupt\.json: not a run file .*moved to .*quarantine/);
    expect(flush.stderr).not.toMatch(/\n\s+at /);
    expect(received.map((r) => r.key).sort()).toEqual(ids.map((id) => `tunelab-run-${id}`).sort());
    expect(await runFilesIn(dir)).toEqual([]);
    expect((await readdir(path.join(dir, 'quarantine'))).sort()).toEqual(['0-corrupt.json', '1-not-a-run.json']);
    // Once quarantined, the spool flushes clean.
    expect((await tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir)).code).toBe(EXIT.OK);
  });

  it.each([
    ['200 OK with a text body', 'text-200', /not a TuneLab RunAccepted/],
    ['a RunAccepted for another Idempotency-Key', 'other-key', /Idempotency-Key someone-else/],
    [
      'a RunAccepted with another sample count',
      'other-count',
      new RegExp(`counts ${SAMPLE.samples.length + 1} samples, the run has ${SAMPLE.samples.length}\\b`),
    ],
  ] as const)('%s does not count as stored: the run stays in the spool', async (_name, m, message) => {
    mode = m;
    const { dir, ids } = await spoolWith(1);
    const flush = await tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir);
    expect(flush.code).toBe(EXIT.NOT_STORED);
    expect(flush.stdout).toMatch(message);
    expect(await runFilesIn(dir)).toEqual([`${ids[0]}.json`]);
  });

  it('a run refused for good (409) leaves the spool for refused/, kept; one refused for a token (401) stays', async () => {
    mode = 'job-conflict';
    const { dir, ids } = await spoolWith(1);
    const flush = await tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir);
    expect(flush.code).toBe(EXIT.NOT_STORED);
    expect(flush.stdout).toMatch(/held by another agent.*refused for good, moved to .*refused/);
    expect(await runFilesIn(dir)).toEqual([]);
    expect(await readdir(path.join(dir, 'refused'))).toEqual([`${ids[0]}.json`]);
    // Not sent again: the next flush has nothing to send.
    received.length = 0;
    const again = await tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir);
    expect(again.stdout).toMatch(/nothing to flush/);
    expect(received).toEqual([]);

    mode = 'unauthorized';
    const other = await spoolWith(1);
    expect((await tunelab(['spool', 'flush', '--api', api, '--token', 't'], other.dir)).code).toBe(EXIT.NOT_STORED);
    expect(await runFilesIn(other.dir)).toEqual([`${other.ids[0]}.json`]);
  });

  it('a run the API refuses (a token revoked while it measured) names its file and the command that sends it again', async () => {
    mode = 'unauthorized';
    const { dir, ids } = await spoolWith(1);
    const file = path.join(dir, `${ids[0]}.json`);
    const r = await tunelab(['submit', file, '--api', api, '--token', 't'], path.join(dir, 'spool'));
    expect(r.code).toBe(EXIT.NOT_STORED);
    expect(r.stderr).toContain(`unknown runner token`);
    expect(r.stderr).toContain(`the run file stays at ${file}; \`tunelab submit ${file}\` sends it again`);
    expect(await runFilesIn(dir)).toEqual([`${ids[0]}.json`]);
  });

  it("a proxy's refusal (an HTML 413, not the API's problem+json) keeps the run in the spool; sent once the proxy is fixed", async () => {
    mode = 'proxy-413';
    const { dir, ids } = await spoolWith(1);
    const flush = await tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir);
    expect(flush.code).toBe(EXIT.NOT_STORED);
    expect(flush.stdout).toMatch(/HTTP 413 without the API's problem\+json \(a proxy or a wrong URL\?\)/);
    expect(flush.stdout).not.toMatch(/refused for good/);
    expect(await runFilesIn(dir)).toEqual([`${ids[0]}.json`]);
    mode = 'accepted';
    const fixed = await tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir);
    expect(fixed.code, fixed.stderr).toBe(EXIT.OK);
    expect(await runFilesIn(dir)).toEqual([]);
  });

  it('two flushes at once: no stack trace, every run sent, the spool ends empty', async () => {
    delayMs = 150;
    const { dir, ids } = await spoolWith(6);
    const [a, b] = await Promise.all([
      tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir),
      tunelab(['spool', 'flush', '--api', api, '--token', 't'], dir),
    ]);
    for (const r of [a, b]) {
      expect(r.code, r.stderr).toBe(EXIT.OK);
      expect(r.stderr).not.toMatch(/ENOENT|\n\s+at /);
    }
    expect(new Set(received.map((r) => r.key))).toEqual(new Set(ids.map((id) => `tunelab-run-${id}`)));
    expect(await runFilesIn(dir)).toEqual([]);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'])(
    '--param %s=x is an unknown parameter (exit 2)',
    async (name) => {
      const r = await tunelab(
        ['run', 'vacuum-index-cleanup', '--target', TEST_PG_URL, '--param', `${name}=x`],
        path.join(tmp, 'unused'),
      );
      expect(r.code).toBe(EXIT.USAGE);
      expect(r.stderr).toContain(`unknown parameter "${name}"`);
    },
  );
});
