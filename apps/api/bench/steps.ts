/**
 * CPU cost of the per-request steps of POST /v1/runs on one benchmark submission, in isolation
 * (single-threaded, no I/O): `npx tsx apps/api/bench/steps.ts`. Complements bench:ingest's
 * per-phase timings when looking for where the API's time goes.
 */
import { performance } from 'node:perf_hooks';
import sjson from 'secure-json-parse';
import { RunSubmission } from '@tunelab/contracts';
import { hardwareFingerprint, requestHash, settingsHash } from '@tunelab/results-db';
import { RunSubmissionBody } from '../src/routes/runs.ts';
import { repeatedKey } from '../src/plugins/app/repeated-keys.ts';
import { makeSubmission } from './workload.ts';

const w = makeSubmission(1, 'steps');
const body = Buffer.from(w.body);
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const doc = JSON.parse(w.body) as unknown;
const parsed = RunSubmission.parse(doc);

function time(name: string, fn: () => unknown, n = 2000) {
  for (let i = 0; i < 200; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  console.log(`${name.padEnd(52)} ${(((performance.now() - t0) / n) * 1000).toFixed(0).padStart(6)} µs`);
}

console.log(`body: ${body.length} bytes`);
time('UTF-8 decode (fatal)', () => UTF8.decode(body));
time('JSON.parse plain', () => JSON.parse(w.body));
time('secure-json-parse (protoAction/constructorAction error)', () =>
  sjson.parse(w.body, undefined, { protoAction: 'error', constructorAction: 'error' }),
);
time('repeatedKey (members in the text vs keys parsed)', () => repeatedKey(w.body, doc));
time('RunSubmission.parse (zod)', () => RunSubmission.parse(doc));
time('RunSubmissionBody.parse (z.compile, what the API uses)', () => RunSubmissionBody.parse(doc));
time('requestHash(document) (canonical JSON + sha256)', () => requestHash(doc));
time('hardwareFingerprint + settingsHash', () => {
  hardwareFingerprint(parsed.hardware);
  settingsHash(parsed.database.settings);
});
time('JSON.stringify(document) (not done: the body text is stored)', () => JSON.stringify(doc));
