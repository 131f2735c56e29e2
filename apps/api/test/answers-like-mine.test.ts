/**
 * "Hardware like mine" on GET /v1/answers, on a PostgreSQL database of its own: the
 * fixture's vacuum-index-cleanup run on two machines of different classes, each probed — one with
 * the figures `tunelab probe --json` printed on this machine (tests/fixtures/probe-json.json), one
 * with 8 cores, 64 GB and every figure 8× faster. The asker's machine given as GET /v1/similar
 * takes it (or `like=<fingerprint>`) orders the groups nearest first, gives each its similarity
 * and a `likeMine` summary; without it the answers are unchanged; bad input is a 400 naming the
 * parameter.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ProbeReport,
  RunSubmission,
  similarParamsOfProbe,
  type MeasuredHardware,
  type ScenarioAnswers,
} from '@tunelab/contracts';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';
import { createTestDatabase, ingestDocument } from '@tunelab/results-db/testing';
import { buildTestApp } from '../src/testing.ts';
import { FIXTURE, clone, snapshot } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const PROBE = ProbeReport.parse(
  JSON.parse(readFileSync(new URL('../../../tests/fixtures/probe-json.json', import.meta.url), 'utf8')),
);
const GIB = 1024 ** 3;
const SMALL = '2 cores / 24 GB';
const BIG = '8 cores / 64 GB';

/** The probe's figures, every one `scale`× better (fsync latency divided). */
function scaled(scale: number): MeasuredHardware {
  const { directory: _d, tier: _t, machine: _m, ...figures } = PROBE;
  return {
    ...figures,
    fsyncP50Us: figures.fsyncP50Us! / scale,
    readIopsQd1: figures.readIopsQd1! * scale,
    readIopsQd16: figures.readIopsQd16! * scale,
    seqWriteMBps: figures.seqWriteMBps! * scale,
    cpuScore: figures.cpuScore! * scale,
  };
}

/** The fixture's run on a machine of its own (storage kind unknown: the probe's tier names it). */
function run(cpuModel: string, cores: number, memoryGb: number, scale: number) {
  const doc = clone(FIXTURE);
  doc.hardware = { ...doc.hardware, cpuModel, physicalCores: cores, logicalCpus: cores, memoryBytes: memoryGb * GIB };
  doc.hardware.storage = { kind: 'unknown', model: null };
  doc.hardware.measured = scaled(scale);
  return RunSubmission.parse(doc);
}

/** A machine as GET /v1/similar's (and now GET /v1/answers') query parameters. */
const machineQuery = (params: Record<string, string | number>) =>
  Object.entries(params)
    .map(([k, v]) => `&${k === 'storage' ? 'machineStorage' : k}=${encodeURIComponent(String(v))}`)
    .join('');
/** This machine's probe: the small class's figures. */
const NEAR_SMALL = machineQuery(similarParamsOfProbe(PROBE));
/** The big class's figures, as its probe would print them. */
const NEAR_BIG = machineQuery(
  similarParamsOfProbe({
    ...PROBE,
    ...scaled(8),
    machine: { ...PROBE.machine!, physicalCores: 8, memoryBytes: 64 * GIB },
  }),
);

let db: ResultsDb;
let app: Awaited<ReturnType<typeof buildTestApp>>;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let smallFingerprint = '';
let bigFingerprint = '';

beforeAll(async () => {
  database = await createTestDatabase('h_likemine');
  db = await openResultsDb(database.url, { scenariosDir: SCENARIOS });
  await db.migrate();
  app = await buildTestApp(db, {});
  await app.ready();
  // Two runs on the big machine: today's order (most runs first) puts its group first.
  smallFingerprint = (await ingestDocument(db, run('Probed like the fixture', 2, 24, 1), 'h-lm-small')).run.hardware
    .fingerprint;
  for (const key of ['h-lm-big-1', 'h-lm-big-2'])
    bigFingerprint = (await ingestDocument(db, run('Probed 8x faster', 8, 64, 8), key)).run.hardware.fingerprint;
});
afterAll(async () => {
  await app?.close();
  await db?.close();
  await database?.drop();
});

const get = async <T>(url: string) => {
  const res = await app.inject({ method: 'GET', url });
  return {
    status: res.statusCode,
    type: String(res.headers['content-type'] ?? ''),
    text: res.body,
    body: res.json<T>(),
  };
};
const BASE = '/v1/answers?scenario=vacuum-index-cleanup';
const classesOf = (a: ScenarioAnswers) =>
  a.groups.map((g) => g.group.hardware.class.split(' / ').slice(0, 2).join(' / '));

describe('GET /v1/answers with hardware like mine', () => {
  it('without a machine: the answers as they were, most runs first, no similarity and no likeMine', async () => {
    const plain = await get<ScenarioAnswers>(BASE);
    expect(plain.status).toBe(200);
    expect(classesOf(plain.body)).toEqual([BIG, SMALL]);
    expect(plain.text).not.toMatch(/"similarity"|"likeMine"/);
    // Every other parameter keeps its meaning: `storage` filters the runs by storage kind.
    const filtered = await get<ScenarioAnswers>(`${BASE}&storage=ssd`);
    expect(filtered.body.groups).toEqual([]);
  });

  it('orders the groups by their class’s distance to the machine: the order flips between the two machines', async () => {
    const plain = (await get<ScenarioAnswers>(BASE)).body;
    const small = await get<ScenarioAnswers>(BASE + NEAR_SMALL);
    expect(small.status, small.text).toBe(200);
    expect(classesOf(small.body)).toEqual([SMALL, BIG]);
    expect(small.body.groups.map((g) => g.similarity)).toEqual([
      {
        storage: 'nvme',
        sameStorage: true,
        distance: 0,
        basis: ['cores', 'memory', 'fsync', 'iops', 'mbps', 'cpu'],
        like: true,
      },
      {
        storage: 'nvme',
        sameStorage: true,
        // cores 4×, memory 64/24, and 8× on the four probe figures: (2 + 1.415 + 4 × 3) / 6.
        distance: Number(((2 + Math.log2(64 / 24) + 12) / 6).toFixed(4)),
        basis: ['cores', 'memory', 'fsync', 'iops', 'mbps', 'cpu'],
        like: false,
      },
    ]);
    const big = await get<ScenarioAnswers>(BASE + NEAR_BIG);
    expect(big.status, big.text).toBe(200);
    expect(classesOf(big.body)).toEqual([BIG, SMALL]);
    expect(big.body.groups.map((g) => [g.similarity!.distance, g.similarity!.like])).toEqual([
      [0, true],
      [small.body.groups[1]!.similarity!.distance, false],
    ]);
    // Nothing else changes: without similarity and likeMine, in the plain order, the same answers.
    for (const asked of [small.body, big.body]) {
      const { likeMine: _l, groups, ...rest } = asked;
      const { groups: plainGroups, ...plainRest } = plain;
      expect(rest).toEqual(plainRest);
      const byKey = new Map(groups.map(({ similarity: _s, ...g }) => [g.group.key, g]));
      expect(plainGroups.map((g) => byKey.get(g.group.key))).toEqual(plainGroups);
    }
  });

  it('says which classes are like the machine and gives the nearest like class’s answers', async () => {
    const { body } = await get<ScenarioAnswers>(BASE + NEAR_SMALL);
    const likeMine = body.likeMine!;
    expect(likeMine.machine).toMatchObject({ fingerprint: null, cores: 2, memoryGb: 24, storage: 'nvme' });
    expect(likeMine.like).toBe(true);
    expect(likeMine.classes.map((c) => [c.class.startsWith(SMALL), c.like, c.groups])).toEqual([
      [true, true, 1],
      [false, false, 1],
    ]);
    expect(likeMine.nearest).toBe(body.groups[0]!.group.hardware.class);
    expect(likeMine.sentence).toBe(
      `One class is like this machine (same known storage, within one doubling per figure on average): ` +
        `${likeMine.nearest} (0 doublings per figure over cores, memory, fsync, iops, mbps, cpu). The answers are the nearest's, ${likeMine.nearest}.`,
    );
    const pairs = body.groups[0]!.pairs;
    expect(likeMine.answers).toEqual(
      pairs.map((p) => ({
        group: body.groups[0]!.group.key,
        name: body.groups[0]!.name,
        baseline: p.baseline,
        candidate: p.candidate,
        verdict: p.measured?.verdict.sentence ?? null,
        agreement: p.agreement,
        advice: p.advice,
      })),
    );
    expect(likeMine.answers.length).toBeGreaterThan(0);
  });

  it('says no measured class is like a machine on other storage, with the nearest one’s distance', async () => {
    const { status, body } = await get<ScenarioAnswers>(`${BASE}&cores=2&memoryGb=24&machineStorage=hdd`);
    expect(status).toBe(200);
    const likeMine = body.likeMine!;
    expect(likeMine).toMatchObject({ like: false, nearest: null, answers: [] });
    expect(likeMine.machine).toEqual({
      fingerprint: null,
      cores: 2,
      memoryGb: 24,
      storage: 'hdd',
      storageTier: null,
      figures: null,
    });
    expect(body.groups.every((g) => g.similarity!.like === false && !g.similarity!.sameStorage)).toBe(true);
    expect(likeMine.sentence).toBe(
      `No measured class is like this machine (same known storage, within one doubling per figure on average): ` +
        `the nearest, ${body.groups[0]!.group.hardware.class}, is 0 doublings per figure away over cores, memory ` +
        `(its storage nvme, this machine's hdd); its answers may not hold here.`,
    );
  });

  it('takes a stored machine by its fingerprint (like=), ranked on the median of its probes', async () => {
    const { status, body } = await get<ScenarioAnswers>(`${BASE}&like=${bigFingerprint}`);
    expect(status).toBe(200);
    expect(classesOf(body)).toEqual([BIG, SMALL]);
    expect(body.likeMine!.machine).toMatchObject({ fingerprint: bigFingerprint, cores: 8, memoryGb: 64 });
    expect(body.groups[0]!.similarity).toMatchObject({ distance: 0, like: true });
    const small = await get<ScenarioAnswers>(`${BASE}&like=${smallFingerprint}`);
    expect(classesOf(small.body)).toEqual([SMALL, BIG]);
  });
});

describe('GET /v1/answers with hardware like mine: bad input', () => {
  const NOT_STORED = 'f'.repeat(64);
  const BAD: [string, string][] = [
    [`${BASE}&cores=2&memoryGb=24&machineStorage=ssd&fsyncP50Us=-5`, 'querystring:/fsyncP50Us'],
    [`${BASE}&cores=2&memoryGb=24&machineStorage=ssd&readIopsQd1=abc`, 'querystring:/readIopsQd1'],
    [`${BASE}&cores=2&memoryGb=24&machineStorage=ssd&seqWriteMBps=0`, 'querystring:/seqWriteMBps'],
    [`${BASE}&cores=2&memoryGb=24&machineStorage=ssd&cpuScore=100`, 'querystring:/cpuWorkload'],
    [`${BASE}&cores=2&memoryGb=24&machineStorage=floppy`, 'querystring:/machineStorage'],
    [`${BASE}&cores=2&memoryGb=24`, 'querystring:/machineStorage'],
    [`${BASE}&cores=2&machineStorage=ssd`, 'querystring:/memoryGb'],
    [`${BASE}&readIopsQd1=3000`, 'querystring:/cores'],
    [`${BASE}&cores=2&memoryGb=24&machineStorage=ssd&iops=5`, 'querystring:/iops'],
    [`${BASE}&like=not-a-fingerprint`, 'querystring:/like'],
    [`${BASE}&like=${NOT_STORED}`, 'querystring:/like'],
    [`${BASE}&like=${'e'.repeat(64)}&cores=2`, 'querystring:/cores'],
  ];
  it.each(BAD)('%s → 400 problem+json naming %s, nothing changed', async (url, path) => {
    const before = await snapshot(db);
    const { status, type, body } = await get<{ detail: string; errors?: { path: string }[] }>(url);
    expect(status).toBe(400);
    expect(type).toMatch(/^application\/problem\+json/);
    expect(body.errors?.map((e) => e.path)).toContain(path);
    expect(await snapshot(db)).toEqual(before);
  });

  it('names the fingerprint that is not stored', async () => {
    const { body } = await get<{ detail: string }>(`${BASE}&like=${NOT_STORED}`);
    expect(body.detail).toBe(`no hardware profile with fingerprint ${NOT_STORED}`);
  });
});

describe('OpenAPI', () => {
  it('documents the machine’s parameters on GET /v1/answers', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { description?: string; parameters?: { name: string }[] }>>;
    }>();
    const answers = doc.paths['/v1/answers']!.get!;
    expect(answers.parameters?.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'like',
        'cores',
        'memoryGb',
        'machineStorage',
        'fsyncP50Us',
        'readIopsQd1',
        'cpuWorkload',
      ]),
    );
    expect(answers.description).toMatch(/`machineStorage`/);
    expect(answers.description).toMatch(/`like=<fingerprint>`/);
  });
});
