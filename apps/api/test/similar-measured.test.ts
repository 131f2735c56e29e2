/**
 * "Hardware like mine" by measured distance through the API, on a PostgreSQL
 * database of its own: GET /v1/similar with the probe's figures as query parameters, POST
 * /v1/similar with the JSON `tunelab probe --json` printed on this machine
 * (tests/fixtures/probe-json.json), GET /v1/hardware/:fingerprint/similar, and every bad input a
 * 4xx problem+json naming the field that changes nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ProbeReport,
  RunSubmission,
  similarParamsOfProbe,
  type MeasuredHardware,
  type SimilarBySpec,
  type SimilarHardware,
  type StorageKind,
} from '@tunelab/contracts';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { createTestDatabase, ingestDocument } from '@tunelab/results-db/testing';
import { buildTestApp } from '../src/testing.ts';
import { FIXTURE, clone, snapshot } from './helpers.ts';

const PROBE = ProbeReport.parse(
  JSON.parse(readFileSync(new URL('../../../tests/fixtures/probe-json.json', import.meta.url), 'utf8')),
);
const GIB = 1024 ** 3;

/** The fixture's run on a machine of its own, with a probe (scaled from PROBE's figures) or none. */
function run(cpuModel: string, cores: number, memoryGb: number, kind: StorageKind, scale: number | null) {
  const doc = clone(FIXTURE);
  doc.hardware = { ...doc.hardware, cpuModel, physicalCores: cores, logicalCpus: cores, memoryBytes: memoryGb * GIB };
  doc.hardware.storage = { kind, model: null };
  if (scale !== null) {
    const { directory: _d, tier: _t, machine: _m, ...figures } = PROBE;
    const m: MeasuredHardware = {
      ...figures,
      fsyncP50Us: figures.fsyncP50Us! / scale,
      readIopsQd1: figures.readIopsQd1! * scale,
      readIopsQd16: figures.readIopsQd16! * scale,
      seqWriteMBps: figures.seqWriteMBps! * scale,
      cpuScore: figures.cpuScore! * scale,
    };
    doc.hardware.measured = m;
  }
  return RunSubmission.parse(doc);
}

let db: ResultsDb;
let app: Awaited<ReturnType<typeof buildTestApp>>;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let probedFingerprint = '';

beforeAll(async () => {
  database = await createTestDatabase('h_sim_t');
  db = await openResultsDb(database.url);
  await db.migrate();
  app = await buildTestApp(db, {});
  await app.ready();
  const runs: [string, RunSubmission][] = [
    // This VM's size, probed: the same figures as the fixture; and twice the cores, twice as fast on every figure.
    ['same', run('Probed like the fixture', 2, 24, 'unknown', 1)],
    ['faster', run('Probed twice as fast', 4, 24, 'unknown', 2)],
    // The same size, never probed, kernel says SSD.
    ['bare', run('Never probed', 2, 24, 'ssd', null)],
  ];
  for (const [i, [name, submission]] of runs.entries()) {
    const r = await ingestDocument(db, submission, `h-sim-api-${i}`);
    if (name === 'same') probedFingerprint = r.run.hardware.fingerprint;
  }
});
afterAll(async () => {
  await app?.close();
  await db?.close();
  await database?.drop();
});

const get = async <T>(url: string) => {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body: res.json<T>() };
};
const postSimilar = async <T>(body: unknown, query = '', contentType = 'application/json') => {
  const res = await app.inject({
    method: 'POST',
    url: `/v1/similar${query}`,
    headers: { 'content-type': contentType },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body: res.json<T>() };
};

/** The probe's figures as GET /v1/similar's query string. */
const probeQuery = (extra: Record<string, string> = {}) =>
  new URLSearchParams({
    ...Object.fromEntries(Object.entries(similarParamsOfProbe(PROBE)).map(([k, v]) => [k, String(v)])),
    ...extra,
  }).toString();

describe('GET /v1/similar with measured figures', () => {
  it('keeps the old query working: cores, memory and storage, basis cores and memory', async () => {
    const { status, body } = await get<SimilarBySpec>('/v1/similar?cores=2&memoryGb=24&storage=ssd');
    expect(status).toBe(200);
    expect(body.spec).toEqual({ cores: 2, memoryGb: 24, storage: 'ssd', storageTier: null, figures: null });
    expect(body.items.map((i) => [i.basis.join(), i.distance])).toEqual([
      // The SSD class first (same storage), then the NVMe-like ones by cores and memory alone.
      ['cores,memory', 0],
      ['cores,memory', 0],
      ['cores,memory', 0.5],
    ]);
  });

  it('ranks by the figures: the class probed like the fixture first, the twice-as-fast one a doubling away on five of six', async () => {
    const { status, body } = await get<SimilarBySpec>(`/v1/similar?${probeQuery()}`);
    expect(status).toBe(200);
    expect(body.spec.storageTier).toBe(PROBE.tier);
    expect(body.items.map((i) => [i.class, i.basis.length, i.distance])).toEqual([
      [expect.stringMatching(/^2 cores \/ 24 GB \//), 6, 0],
      [expect.stringMatching(/^4 cores \/ 24 GB \//), 6, Number((5 / 6).toFixed(4))],
      // Never probed, on another storage kind than the probe's tier: after, by cores and memory alone.
      ['2 cores / 24 GB / SSD', 2, 0],
    ]);
  });
});

describe('POST /v1/similar with `tunelab probe --json`', () => {
  it('answers what GET /v1/similar answers for the same figures', async () => {
    const posted = await postSimilar<SimilarBySpec>(PROBE, '?source=measured');
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const got = await get<SimilarBySpec>(`/v1/similar?${probeQuery({ source: 'measured' })}`);
    expect(posted.body).toEqual(got.body);
    expect(posted.body.spec).toMatchObject({ cores: 2, memoryGb: 24 });
    expect(posted.body.items[0]!.basis).toEqual(['cores', 'memory', 'fsync', 'iops', 'mbps', 'cpu']);
  });

  it('takes cores, memory and storage from the query over the probe’s machine, and needs them without one', async () => {
    const over = await postSimilar<SimilarBySpec>(PROBE, '?cores=8&memoryGb=96&storage=hdd');
    expect(over.status).toBe(200);
    expect(over.body.spec).toMatchObject({ cores: 8, memoryGb: 96, storage: 'hdd' });
    const { machine: _m, ...withoutMachine } = PROBE;
    const missing = await postSimilar<{ errors: { path: string; message: string }[] }>(withoutMachine);
    expect(missing.status).toBe(400);
    expect(missing.type).toMatch(/^application\/problem\+json/);
    expect(missing.body.errors.map((e) => e.path)).toEqual(['querystring:/cores', 'querystring:/memoryGb']);
    expect(missing.body.errors[0]!.message).toMatch(/no machine/);
    const given = await postSimilar<SimilarBySpec>(withoutMachine, '?cores=2&memoryGb=24');
    expect(given.status).toBe(200);
    // No storage kind without a machine: the tier of the reads stands for it.
    expect(given.body.spec.storageTier).toBe(PROBE.tier);
    // No reads and no kind: storage must be given.
    const blind = await postSimilar<{ errors: { path: string }[] }>(
      { ...withoutMachine, readIopsQd1: null, readIopsQd16: null },
      '?cores=2&memoryGb=24',
    );
    expect(blind.status).toBe(400);
    expect(blind.body.errors.map((e) => e.path)).toEqual(['querystring:/storage']);
  });

  const BAD: [string, unknown, string][] = [
    ['an unknown key', { ...PROBE, bogus: 1 }, '/bogus'],
    ['a negative figure', { ...PROBE, fsyncP50Us: -1 }, '/fsyncP50Us'],
    ['a figure as text', { ...PROBE, readIopsQd1: 'fast' }, '/readIopsQd1'],
    ['a missing field', (({ measuredAt: _x, ...rest }) => rest)(PROBE), '/measuredAt'],
    ['a bad machine', { ...PROBE, machine: { ...PROBE.machine, physicalCores: 0 } }, '/machine/physicalCores'],
    [
      'an unknown storage kind',
      { ...PROBE, machine: { ...PROBE.machine, storageKind: 'floppy' } },
      '/machine/storageKind',
    ],
    ['a tier that is none', { ...PROBE, tier: 'tape' }, '/tier'],
    ['an array', [PROBE], '/'],
    ['not JSON', '{"fsyncP50Us": ', '/'],
    ['an empty body', '', '/'],
  ];
  it.each(BAD)('%s → 400 problem+json naming %s, nothing stored', async (_what, body, path) => {
    const before = await snapshot(db);
    const res = await postSimilar<{ status: number; errors?: { path: string }[] }>(body);
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/problem\+json/);
    expect(res.body.errors?.map((e) => e.path)).toContain(path);
    expect(await snapshot(db)).toEqual(before);
  });

  it('refuses a bad query, another content type and a huge body', async () => {
    const badQuery = await postSimilar<{ errors: { path: string }[] }>(PROBE, '?cores=0');
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.errors.map((e) => e.path)).toContain('querystring:/cores');
    const text = await postSimilar(JSON.stringify(PROBE), '', 'text/plain');
    expect(text.status).toBe(415);
    const huge = await postSimilar<{ status: number }>({ ...PROBE, notes: ['x'.repeat(70 * 1024)] });
    expect(huge.status).toBe(413);
    expect(huge.type).toMatch(/^application\/problem\+json/);
  });
});

describe('GET /v1/similar: bad figures', () => {
  const BAD: [string, string][] = [
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&fsyncP50Us=-5', 'querystring:/fsyncP50Us'],
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&readIopsQd1=abc', 'querystring:/readIopsQd1'],
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&seqWriteMBps=1e400', 'querystring:/seqWriteMBps'],
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&cpuScore=100', 'querystring:/cpuWorkload'],
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&cpuWorkload=x', 'querystring:/cpuScore'],
    ['/v1/similar?cores=2&memoryGb=24', 'querystring:/storage'],
    ['/v1/similar?cores=2&memoryGb=24&storage=floppy', 'querystring:/storage'],
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&iops=5', 'querystring:/iops'],
    // The extreme doubles: a distance of Infinity failed the response contract (500) before.
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&fsyncP50Us=5e-324', 'querystring:/fsyncP50Us'],
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&readIopsQd1=4.9e-324', 'querystring:/readIopsQd1'],
    ['/v1/similar?cores=2&memoryGb=24&storage=ssd&seqWriteMBps=Infinity', 'querystring:/seqWriteMBps'],
    [
      '/v1/similar?cores=2&memoryGb=24&storage=ssd&cpuScore=1.7976931348623157e308&cpuWorkload=x',
      'querystring:/cpuScore',
    ],
    [
      '/v1/answers?scenario=vacuum-index-cleanup&cores=2&memoryGb=24&fsyncP50Us=5e-324&readIopsQd1=100',
      'querystring:/fsyncP50Us',
    ],
  ];
  it.each(BAD)('%s → 400 naming %s', async (url, path) => {
    const { status, type, body } = await get<{ errors?: { path: string }[] }>(url);
    expect(status).toBe(400);
    expect(type).toMatch(/^application\/problem\+json/);
    expect(body.errors?.map((e) => e.path)).toContain(path);
  });
});

describe('GET /v1/hardware/:fingerprint/similar', () => {
  it('ranks by the machine’s own probes', async () => {
    const { status, body } = await get<SimilarHardware>(`/v1/hardware/${probedFingerprint}/similar?source=measured`);
    expect(status).toBe(200);
    expect(body.machine).toMatchObject({ probes: 1, storageTier: PROBE.tier, storageKind: 'unknown' });
    expect(body.items[0]).toMatchObject({
      class: body.machine.class,
      distance: 0,
      basis: expect.arrayContaining(['cpu']),
    });
    expect(body.items.at(-1)).toMatchObject({ basis: ['cores', 'memory'], figures: null });
  });
});

describe('OpenAPI', () => {
  it('documents POST /v1/similar and the figures as query parameters', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: unknown }>>;
    }>();
    const similar = doc.paths['/v1/similar']!;
    expect(similar.post?.requestBody).toBeDefined();
    expect(similar.get?.parameters?.map((p) => p.name)).toEqual(
      expect.arrayContaining(['fsyncP50Us', 'readIopsQd1', 'readIopsQd16', 'seqWriteMBps', 'cpuScore', 'cpuWorkload']),
    );
  });
});
