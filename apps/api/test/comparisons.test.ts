import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComparisonResult, FindingList, SimilarHardware } from '@tunelab/contracts';
import { FIXTURE, post, startApi } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));

type Api = Awaited<ReturnType<typeof startApi>>;

describe('comparisons, findings and similar hardware over published and measured runs', () => {
  let api: Api;
  let measuredRunId: string;
  let measuredFingerprint: string;
  const get = async <T>(path: string) => {
    const res = await fetch(`${api.url}${path}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as T };
  };

  beforeAll(async () => {
    api = await startApi();
    await api.db.importPublished(SCENARIOS);
    // One measured run beside the published ones, for the tests that mix them (each can run alone).
    const res = await post(api.url, api.token, FIXTURE, { 'idempotency-key': 'cmp-measured-1' });
    expect(res.status).toBe(201);
    const accepted = (await res.json()) as { id: string; hardware: { fingerprint: string } };
    measuredRunId = accepted.id;
    measuredFingerprint = accepted.hardware.fingerprint;
  });
  afterAll(async () => api?.close());

  it('reproduces the article for all three servers, with CIs, p-values and significance at n = 5', async () => {
    const { status, body } = await get<ComparisonResult>(
      '/v1/comparisons?scenario=vacuum-index-cleanup&source=published',
    );
    expect(status).toBe(200);
    expect(body.groups).toHaveLength(3);
    const want = {
      'server-1': { baseline: 226.4, candidate: 141.4, faster: '37.5%' },
      'server-2': { baseline: 836, candidate: 669.4, faster: '19.9%' },
      'server-3': { baseline: 609.4, candidate: 535.6, faster: '12.1%' },
    };
    for (const [server, w] of Object.entries(want)) {
      const g = body.groups.find((x) => x.hardware.cpuModel === `unspecified (published: ${server})`)!;
      expect(g.scenario.version).toMatch(/^[0-9a-f]{64}$/);
      expect(g.key).toContain(g.scenario.version.slice(0, 12));
      expect(g.databaseVersions).toHaveLength(1);
      const v = Object.fromEntries(g.variants.map((x) => [x.variant, x]));
      expect(v['1-1']!.mean).toBeCloseTo(w.baseline, 6);
      expect(v['1-2']!.mean).toBeCloseTo(w.candidate, 6);
      expect(v['1-1']!).toMatchObject({ n: 5 });
      expect(v['1-1']!.ci95!.low!).toBeLessThan(w.baseline);
      const [cleanup, full] = g.comparisons;
      expect(cleanup).toMatchObject({ baseline: '1-1', candidate: '1-2', direction: 'lower-is-better' });
      expect(cleanup!.verdict.sentence).toContain(`1-2 is ${w.faster} faster than 1-1`);
      expect(cleanup!.welch!.p).toBeGreaterThan(0);
      expect(cleanup!.mannWhitney!.method).toBe('exact');
      expect(cleanup!.ci95!.low).not.toBeNull();
      expect(full).toMatchObject({ baseline: '2-1', candidate: '2-2' });
      if (server === 'server-1') expect(full!.verdict.kind).toBe('no-significant-difference');
    }
    const s1 = body.groups.find((x) => x.hardware.cpuModel === 'unspecified (published: server-1)')!;
    expect(s1.comparisons[0]!.verdict.significant).toBe(true);
    expect(s1.comparisons[1]!.verdict.significant).toBe(false);
  });

  it('honours baseline/candidate and the direction override', async () => {
    const { body } = await get<ComparisonResult>(
      '/v1/comparisons?scenario=vacuum-index-cleanup&source=published&baseline=1-2&candidate=1-1&storage=ssd',
    );
    expect(body.groups).toHaveLength(1);
    expect(body.groups[0]!.pairsFrom).toBe('query');
    expect(body.groups[0]!.comparisons[0]!.verdict.kind).toBe('slower');
    const higher = await get<ComparisonResult>(
      '/v1/comparisons?scenario=vacuum-index-cleanup&source=published&storage=ssd&direction=higher-is-better',
    );
    expect(higher.body.groups[0]!.comparisons[0]!.verdict.kind).toBe('slower');
  });

  it('filters by cores and memory and groups by class', async () => {
    const { body } = await get<ComparisonResult>(
      '/v1/comparisons?scenario=vacuum-index-cleanup&source=published&groupBy=class&minMemoryGb=16&storage=hdd&minCores=8&maxCores=8',
    );
    expect(body.groups.map((g) => g.hardware.class)).toEqual(['8 cores / 32 GB / HDD']);
    expect(body.groups[0]!.hardware.fingerprint).toBeNull();
  });

  it('a measured run posted to the API appears in findings, and never mixes with published unless source=all', async () => {
    const findings = await get<FindingList>('/v1/findings?scenario=vacuum-index-cleanup');
    expect(findings.status).toBe(200);
    expect(findings.body.items.length).toBeGreaterThan(0);
    expect(findings.body.items.every((f) => f.source === 'measured')).toBe(true);
    expect(findings.body.items[0]!.runs).toContain(`/v1/runs/${measuredRunId}`);
    const runLink = await fetch(`${api.url}${findings.body.items[0]!.runs[0]}`);
    expect(runLink.status).toBe(200);
    const drill = await get<ComparisonResult>(findings.body.items[0]!.links.comparison);
    expect(drill.status).toBe(200);
    expect(drill.body.groups).toHaveLength(1);

    const measured = await get<ComparisonResult>('/v1/comparisons?scenario=vacuum-index-cleanup');
    expect(measured.body.groups.map((g) => g.source)).toEqual(['measured']);
    const published = await get<ComparisonResult>('/v1/comparisons?scenario=vacuum-index-cleanup&source=published');
    expect(published.body.groups.every((g) => g.source === 'published')).toBe(true);
    const all = await get<ComparisonResult>('/v1/comparisons?scenario=vacuum-index-cleanup&source=all&groupBy=class');
    expect(all.body.groups).toHaveLength(4);
    // Same class on both sides would still be two groups: source and scenario version are in the key.
    expect(new Set(all.body.groups.map((g) => g.key)).size).toBe(4);

    const newest = await get<FindingList>('/v1/findings?source=all&limit=500');
    expect(newest.body.items[0]!.source).toBe('measured');
  });

  it('lists the hardware closest to a machine, same storage kind first', async () => {
    const { status, body } = await get<SimilarHardware>(`/v1/hardware/${measuredFingerprint}/similar`);
    expect(status).toBe(200);
    expect(body.machine.class).toBe('2 cores / 24 GB / SSD');
    expect(body.items[0]).toMatchObject({ class: '2 cores / 24 GB / SSD', source: 'measured', distance: 0 });
    expect(body.items[1]).toMatchObject({ class: '8 cores / 32 GB / SSD', source: 'published', sameStorage: true });
    // Article machines the articles never described (placeholder 1 core / 1 GB) are not hardware: never ranked.
    expect(body.items.some((i) => i.physicalCores === 1 && i.memoryGb === 1)).toBe(false);
    const follow = await get<ComparisonResult>(body.items[1]!.links.comparisons);
    expect(follow.body.groups[0]!.hardware.class).toBe('8 cores / 32 GB / SSD');
    const missing = await get(`/v1/hardware/${'0'.repeat(64)}/similar`);
    expect(missing.status).toBe(404);
  });

  const BAD: [string, string][] = [
    ['/v1/comparisons?source=bogus', 'querystring:/source'],
    ['/v1/comparisons?minCores=abc', 'querystring:/minCores'],
    ['/v1/comparisons?minCores=0', 'querystring:/minCores'],
    ['/v1/comparisons?maxMemoryGb=-1', 'querystring:/maxMemoryGb'],
    ['/v1/comparisons?minCores=8&maxCores=4', 'querystring:/maxCores'],
    ['/v1/comparisons?baseline=1-1', 'querystring:/candidate'],
    ['/v1/comparisons?baseline=1-1&candidate=1-1', 'querystring:/candidate'],
    ['/v1/comparisons?metric=drop%20table', 'querystring:/metric'],
    ['/v1/comparisons?scenario=' + 'x'.repeat(101), 'querystring:/scenario'],
    ['/v1/comparisons?hardware=abc', 'querystring:/hardware'],
    ['/v1/comparisons?engine=oracle', 'querystring:/engine'],
    ['/v1/comparisons?groupBy=rack', 'querystring:/groupBy'],
    ['/v1/comparisons?direction=up', 'querystring:/direction'],
    ['/v1/comparisons?bogus=1', 'querystring:/bogus'],
    ['/v1/findings?limit=0', 'querystring:/limit'],
    ['/v1/findings?storage=floppy', 'querystring:/storage'],
    ['/v1/hardware/nothex/similar', 'params:/fingerprint'],
    [`/v1/hardware/${'a'.repeat(64)}/similar?limit=1000`, 'querystring:/limit'],
  ];
  it.each(BAD)('GET %s → 400 problem+json naming %s', async (path, field) => {
    const { status, type, body } = await get<{ status: number; errors?: { path: string }[]; requestId: string }>(path);
    expect(status).toBe(400);
    expect(type).toMatch(/^application\/problem\+json/);
    expect(body.errors?.map((e) => e.path)).toContain(field);
    expect(body.requestId).toBeTruthy();
  });
});

/** A measured run of `scenario` with only `metric` samples (variants a and b, three repetitions each). */
function runOf(scenario: string, metric: string, unit: string, engine: 'postgresql' | 'mariadb') {
  const run = structuredClone(FIXTURE);
  run.scenario = { key: scenario, version: 'a'.repeat(64), title: scenario, comparisons: [] };
  run.params = {};
  run.database = { ...run.database, engine };
  const order = ['a', 'b'].flatMap((variant) => [1, 2, 3].map((repetition) => ({ variant, repetition })));
  run.order = order;
  run.samples = order.map((o) => ({ ...o, metric, unit, value: 100 + (o.variant === 'b' ? 10 : 0) + o.repetition }));
  run.timeSeries = [];
  return run;
}

describe('the metric a comparison uses when none is asked for', () => {
  let api: Api;
  const primary = [
    {
      scenario: 'fillfactor-hot-updates',
      metric: 'nopm',
      unit: 'NOPM',
      engine: 'postgresql',
      better: 'higher-is-better',
    },
    {
      scenario: 'innodb-compression-insert',
      metric: 'rows_per_s',
      unit: 'rows/s',
      engine: 'mariadb',
      better: 'higher-is-better',
    },
    {
      scenario: 'recovery-init-sync',
      metric: 'sync_duration',
      unit: 'ms',
      engine: 'postgresql',
      better: 'lower-is-better',
    },
  ] as const;
  const get = async <T>(path: string) => (await fetch(`${api.url}${path}`)).json() as Promise<T>;

  beforeAll(async () => {
    api = await startApi({}, 'tl_h2_metric');
    for (const p of primary) {
      const res = await post(api.url, api.token, runOf(p.scenario, p.metric, p.unit, p.engine), {
        'idempotency-key': `metric-${p.scenario}`,
      });
      expect(res.status, await res.clone().text()).toBe(201);
    }
  });
  afterAll(async () => api?.close());

  it("is the scenario's primary metric when a scenario is given", async () => {
    for (const p of primary) {
      const body = await get<ComparisonResult>(`/v1/comparisons?scenario=${p.scenario}`);
      expect(body.metric, p.scenario).toBe(p.metric);
      expect(body.groups, p.scenario).toHaveLength(1);
      expect(body.groups[0]!.comparisons[0]!.direction).toBe(p.better);
    }
  });

  it('is the same for findings, and duration without a scenario', async () => {
    for (const p of primary) {
      const body = await get<FindingList>(`/v1/findings?scenario=${p.scenario}`);
      expect(
        body.items.map((f) => f.metric),
        p.scenario,
      ).toEqual([p.metric]);
    }
    expect((await get<ComparisonResult>('/v1/comparisons')).metric).toBe('duration');
    expect((await get<ComparisonResult>('/v1/comparisons')).groups).toEqual([]);
    expect((await get<FindingList>('/v1/findings')).items).toEqual([]);
  });

  it('an explicit metric still wins', async () => {
    const body = await get<ComparisonResult>('/v1/comparisons?scenario=recovery-init-sync&metric=duration');
    expect(body).toMatchObject({ metric: 'duration', groups: [] });
  });
});
