/**
 * An API that accepts the connection and never answers (a real socket): the submission's and the
 * token check's reasons say that nothing answered within the timeout, not fetch's bare "aborted".
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { checkToken, submitRun } from './api-client.ts';
import { makeRunFile } from './run-file.ts';

const SAMPLE = RunSubmission.parse(
  JSON.parse(await readFile(new URL('../../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8')),
);

let server: Server;
let url = '';
const sockets: Socket[] = [];
beforeAll(async () => {
  server = createServer((s) => void sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

it('a submission to an API that never answers says it waited 0.3 s and gave up', async () => {
  const run = makeRunFile('00000000-0000-4000-8000-000000000001', 'silent-1', SAMPLE);
  const out = await submitRun(run, { apiUrl: url, token: 't', retries: 0, timeoutMs: 300 });
  if (out.status !== 'unreachable') throw new Error(`expected unreachable, got ${out.status}`);
  expect(out.message).toBe(
    'the API did not take the run after 1 attempts (last: the API sent no answer within 0.3 s, so the request was given up (timeout))',
  );
  expect(out.message).not.toMatch(/: aborted/);
});

it('a token check against it says the same', async () => {
  const out = await checkToken(url, 't', 300);
  expect(out).toEqual({
    status: 'unchecked',
    message: 'the API sent no answer within 0.3 s, so the request was given up (timeout)',
  });
});
