/**
 * CPU cost of the per-request steps of POST /v1/runs on one benchmark submission, in isolation
 * (single-threaded, no I/O): `npx tsx apps/api/bench/steps.ts`. Complements bench:ingest's
 * per-phase timings when looking for where the API's time goes.
 */
import { performance } from 'node:perf_hooks';
import sjson from 'secure-json-parse';
import { RunSubmission } from '@tunelab/contracts';
import { hardwareFingerprint, requestHash, settingsHash } from '@tunelab/results-db';
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
time('JSON.parse with a __proto__/constructor reviver', () =>
  JSON.parse(w.body, (key, v: unknown) => {
    if (key === '__proto__' || key === 'constructor') throw new SyntaxError('forbidden');
    return v;
  }),
);
time('JSON.parse plain', () => JSON.parse(w.body));
time('secure-json-parse (protoAction/constructorAction error)', () => sjson.parse(w.body, undefined, { protoAction: 'error', constructorAction: 'error' }));
time('RunSubmission.parse (zod)', () => RunSubmission.parse(doc));
time('requestHash(document) (canonical JSON + sha256)', () => requestHash(doc));
time('hardwareFingerprint + settingsHash', () => {
  hardwareFingerprint(parsed.hardware);
  settingsHash(parsed.database.settings);
});
time('JSON.stringify(document) (the stored copy)', () => JSON.stringify(doc));
time('column arrays for unnest (10 maps)', () => {
  const s = parsed.samples;
  const t = parsed.timeSeries;
  return [s.map((x) => x.variant), s.map((x) => x.repetition), s.map((x) => x.metric), s.map((x) => x.unit), s.map((x) => x.value),
    t.map((x) => x.variant), t.map((x) => x.repetition), t.map((x) => x.metric), t.map((x) => x.x), t.map((x) => x.value)];
});

// Candidate replacement for contracts' canonical.ts, checked for identical output.
function canonicalJsonFast(value: unknown): string {
  if (value === null || typeof value !== 'object') return value === undefined ? 'null' : JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJsonFast(value[i]);
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + canonicalJsonFast(v);
    first = false;
  }
  return out + '}';
}
const { canonicalJson } = await import('../../../packages/contracts/src/canonical.ts');
if (canonicalJsonFast(doc) !== canonicalJson(doc)) throw new Error('canonicalJsonFast differs');
time('canonicalJson (shipped)', () => canonicalJson(doc));
time('canonicalJson, keys().sort() + string concat', () => canonicalJsonFast(doc));
