/**
 * CPU cost of the per-request steps of POST /v1/runs on one benchmark submission, in isolation
 * (single-threaded, no I/O): `npx tsx apps/api/bench/steps.ts`. Complements bench:ingest's
 * per-phase timings when looking for where the API's time goes.
 */
import { performance } from 'node:perf_hooks';
import sjson from 'secure-json-parse';
import { RunAccepted, RunSubmission } from '@tunelab/contracts';
import { hardwareFingerprint, requestHash, settingsHash, sha256Hex } from '@tunelab/results-db';
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
time('sha256 of the document text (request_hash)', () => sha256Hex(w.body));
const accepted: RunAccepted = {
  id: '00000000-0000-4000-8000-000000000000',
  status: 'stored',
  idempotencyKey: w.idempotencyKey,
  scenario: parsed.scenario,
  hardware: { fingerprint: hardwareFingerprint(parsed.hardware), class: 'nvme-8c-32g' },
  samples: parsed.samples.length,
  timeSeriesPoints: parsed.timeSeries.length,
  receivedAt: '2026-11-29T10:00:00.000Z',
  links: { self: '/v1/runs/00000000-0000-4000-8000-000000000000' },
};
time('201 answer: zod encode + JSON.stringify (the zod serializer)', () =>
  JSON.stringify(RunAccepted.encode(accepted)),
);
time('201 answer: JSON.stringify (what POST /v1/runs sends)', () => JSON.stringify(accepted));
