import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classLabel } from '@tunelab/answers';
import type { ComparisonResult, ScenarioAnswers, SimilarBySpec } from '@tunelab/contracts';
import { startApi } from './helpers.ts';

/** GET `path` of the API at `url`: status, content type and the JSON body. */
async function getJson<T>(url: string, path: string) {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as T };
}

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
/** Real `tunelab run innodb-compression-insert` runs against the local MariaDB at rows = 20,000 and 40,000. */
const RUNS = [20_000, 40_000].map(
  (rows) =>
    (
      JSON.parse(
        readFileSync(new URL(`../../../tests/fixtures/innodb-rows-${rows}.json`, import.meta.url), 'utf8'),
      ) as { submission: unknown }
    ).submission,
);

describe('GET /v1/answers and comparisons in the scenario’s direction, over real runs at two scales', () => {
  let url: string;
  let close: () => Promise<void>;
  const get = <T>(path: string) => getJson<T>(url, path);

  beforeAll(async () => {
    const api = await startApi({}, 'tl_answers_api', {
      scenariosDir: SCENARIOS,
      runs: RUNS.map((body, i) => ({ key: `answers-${i}`, body })),
    });
    url = api.url;
    close = api.close;
  });
  afterAll(async () => close?.());

  it('keeps the two scales apart and reads rows/s as higher-is-better: the compressed table is slower', async () => {
    const { status, body } = await get<ComparisonResult>(
      '/v1/comparisons?scenario=innodb-compression-insert&metric=rows_per_s&groupBy=class',
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ direction: 'higher-is-better', directionFrom: 'scenario' });
    expect(body.groups.map((g) => g.params['rows']).sort()).toEqual([20_000, 40_000]);
    for (const g of body.groups) {
      expect(g.runCount).toBe(1);
      expect(g.engine.engine).toBe('mariadb');
      expect(g.warnings.join(' ')).toMatch(/storage kind unknown/);
      const kbs4 = g.comparisons.find((c) => c.candidate === 'compressed-kbs4')!;
      expect(kbs4.direction).toBe('higher-is-better');
      // Both runs measured the compressed table at well under half the plain table's rate.
      expect(kbs4.improvement!).toBeLessThan(0);
      expect(kbs4.verdict.sentence).toMatch(/compressed-kbs4 is [\d.]+% slower/);
      expect(kbs4.verdict.sentence).not.toMatch(/faster/);
    }
    const overridden = await get<ComparisonResult>(
      '/v1/comparisons?scenario=innodb-compression-insert&metric=rows_per_s&groupBy=class&direction=lower-is-better',
    );
    expect(overridden.body).toMatchObject({ direction: 'lower-is-better', directionFrom: 'query' });
    // The improvement follows the direction asked for; the words follow the rate itself, which fell.
    const flipped = overridden.body.groups[0]!.comparisons.find((c) => c.candidate === 'compressed-kbs4')!;
    expect(flipped.improvement!).toBeGreaterThan(0);
    expect(flipped.verdict.sentence).toMatch(/compressed-kbs4 is [\d.]+% slower/);
  });

  it('answers per group with its scale, warnings, agreement and reasons; not comparable at 1/5,000 of the rows', async () => {
    const { status, body } = await get<ScenarioAnswers>('/v1/answers?scenario=innodb-compression-insert');
    expect(status).toBe(200);
    expect(body.scenario.title).toMatch(/InnoDB compressed vs plain/);
    expect(body.scenario.article?.url).toMatch(/^http/);
    expect(body.metric).toMatchObject({ key: 'rows_per_s', direction: 'higher-is-better', directionFrom: 'scenario' });
    expect(body.metrics.find((m) => m.key === 'duration')?.direction).toBe('lower-is-better');
    expect(body.rule).toMatch(/factor of 2/);
    expect(body.groups).toHaveLength(2);
    for (const g of body.groups) {
      expect(g.name).toMatch(/rows = [24]0,000/);
      expect(g.group.engine.engine).toBe('mariadb');
      expect(g.group.warnings.length).toBeGreaterThan(0);
      const kbs4 = g.pairs.find((p) => p.candidate === 'compressed-kbs4')!;
      expect(kbs4.measured!.verdict.sentence).toMatch(/slower/);
      // The article published charts, no figures for rows/s; at 1/10,000 of its rows the result is
      // not comparable anyway, and says why (it never reads as the article's answer).
      expect(kbs4.agreement).toBe('not-comparable');
      expect(kbs4.article).toBeNull();
      expect(kbs4.reasons.join(' ')).toMatch(
        /scale: rows [24]0,000 here vs 200,000,000 in the article \(1\/(10,000|5,000)\)/,
      );
      expect(g.crossings.length).toBeGreaterThan(0);
    }
  });

  it('says why a metric has no groups, and refuses bad input with problem+json', async () => {
    const missing = await get<ScenarioAnswers>('/v1/answers?scenario=innodb-compression-insert&metric=nopm');
    expect(missing.status).toBe(200);
    expect(missing.body.groups).toEqual([]);
    expect(missing.body.empty).toMatch(/declares no metric "nopm"/);
    const bad = await get<{ errors: { path: string }[] }>('/v1/answers?scenario=innodb-compression-insert&minCores=0');
    expect(bad.status).toBe(400);
    expect(bad.type).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(bad.body)).toMatch(/minCores/);
    const none = await get('/v1/answers');
    expect(none.status).toBe(400);
    const unknown = await get('/v1/answers?scenario=no-such-scenario');
    expect(unknown.status).toBe(404);
    expect(unknown.type).toMatch(/application\/problem\+json/);
  });

  it('finds hardware like a machine given by its spec, never ranking an article machine whose hardware is not stated', async () => {
    const mine = await get<SimilarBySpec>('/v1/similar?cores=2&memoryGb=24&storage=ssd');
    expect(mine.status).toBe(200);
    // The runs here are on a virtual disk of unknown kind; the article's SSD server has 8 cores / 32 GB.
    expect(mine.body.like).toBe(false);
    expect(mine.body.items.some((i) => i.physicalCores === 1 && i.memoryGb === 1)).toBe(false);
    expect(mine.body.items.map((i) => i.class)).toContain('2 cores / 24 GB / unknown disk');
    const article = await get<SimilarBySpec>('/v1/similar?cores=8&memoryGb=32&storage=ssd');
    expect(article.body.like).toBe(true);
    expect(article.body.items[0]).toMatchObject({ class: '8 cores / 32 GB / SSD', source: 'published', distance: 0 });
    expect(article.body.items[0]!.links.comparisons).toMatch(/^\/v1\/comparisons\?/);
    const bad = await get<{ errors: { path: string }[] }>('/v1/similar?cores=2&memoryGb=24&storage=floppy');
    expect(bad.status).toBe(400);
    expect(bad.type).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(bad.body)).toMatch(/storage/);
  });
});

/**
 * Real `tunelab run vacuum-index-cleanup` runs at the default scale on this machine, on throwaway
 * PostgreSQL 14 and 17 servers from the npm registry (`--server 14`, `--server 17`) and on the
 * local PostgreSQL 15 (tests/fixtures/real-runs): one hardware class, three majors.
 */
const realRun = (file: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../../tests/fixtures/real-runs/${file}`, import.meta.url), 'utf8')) as {
      submission: { database: { major: number }; scenario: { version: string } };
    }
  ).submission;
const VERSION_RUNS = [
  'versions/vacuum-index-cleanup-pg14.json',
  'vacuum-index-cleanup.json',
  'versions/vacuum-index-cleanup-pg17.json',
].map(realRun);

describe('GET /v1/answers across server versions, over real runs on PostgreSQL 14, 15 and 17', () => {
  let url: string;
  let close: () => Promise<void>;
  const get = <T>(path: string) => getJson<T>(url, path);

  beforeAll(async () => {
    const api = await startApi({}, 'versions_answers_api', {
      scenariosDir: SCENARIOS,
      runs: VERSION_RUNS.map((body) => ({ key: `versions-${body.database.major}`, body })),
    });
    url = api.url;
    close = api.close;
  });
  afterAll(async () => close?.());

  it('puts each declared pair side by side per major, read from that major’s group answer', async () => {
    const { status, body } = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup');
    expect(status).toBe(200);
    expect(body.groups.map((g) => g.group.engine.major).sort()).toEqual([14, 15, 17]);
    const hardwareClass = body.groups[0]!.group.hardware.class;
    expect(body.versions.measured).toEqual([{ hardwareClass, engine: 'postgresql', majors: [14, 15, 17] }]);
    expect(body.versions.sentence).toBe(
      `Measured on PostgreSQL 14, 15 and 17; the same pairs under equal conditions side by side: ${classLabel(hardwareClass)} on PostgreSQL 14 and 17.`,
    );
    expect(body.versions.comparisons.map((c) => `${c.baseline}→${c.candidate}`)).toEqual(['1-1→1-2', '2-1→2-2']);
    for (const c of body.versions.comparisons) {
      expect(c).toMatchObject({ hardwareClass, engine: 'postgresql', direction: 'lower-is-better', unit: 's' });
      expect(c.params).toEqual({ rows: 800_000 });
      expect(c.conditions).not.toMatch(/PostgreSQL/);
      // The 15 run was made with an earlier version of the scenario: its group is never side by side.
      expect(c.rows.map((r) => r.major)).toEqual([14, 17]);
      expect(c.scenarioVersion).toBe(VERSION_RUNS[0]!.scenario.version);
      for (const r of c.rows) {
        // Every figure is the group's own: the same group, n, means, improvement, interval and verdict.
        const g = body.groups.find((x) => x.group.key === r.group)!;
        expect(g.group.engine.major).toBe(r.major);
        expect(r.serverVersions.join(' ')).toMatch(new RegExp(`^PostgreSQL ${r.major}\\.\\d+`));
        const pair = g.pairs.find((p) => p.baseline === c.baseline && p.candidate === c.candidate)!;
        const side = (v: string) => g.group.variants.find((x) => x.variant === v)!;
        expect(r.baseline).toEqual({ n: side(c.baseline).n, mean: side(c.baseline).mean });
        expect(r.candidate).toEqual({ n: side(c.candidate).n, mean: side(c.candidate).mean });
        expect(r.baseline!.n).toBe(3);
        expect(r.difference).toBeCloseTo(r.candidate!.mean - r.baseline!.mean, 9);
        expect(r).toMatchObject({
          improvement: pair.measured!.improvement,
          ci95: pair.measured!.ci95,
          p: pair.measured!.welch!.p,
          pAdjusted: pair.measured!.adjusted!.p,
          verdict: pair.measured!.verdict,
          agreement: pair.agreement,
        });
        expect(r.ci95!.low!).toBeLessThanOrEqual(r.improvement!);
        expect(r.ci95!.high!).toBeGreaterThanOrEqual(r.improvement!);
      }
      // The same words: a non-significant verdict is conclusive ("no measurable difference") or not.
      const words = (r: (typeof c.rows)[number]) => `${r.verdict.kind}:${String(r.verdict.conclusive)}`;
      expect(c.sameVerdict).toBe(new Set(c.rows.map(words)).size === 1);
      // Whether the version changes the answer is the interaction test's, not two labels'.
      expect(c.interactions.map((i) => [i.a, i.b])).toEqual([[17, 14]]);
      const [i] = c.interactions;
      expect(i!.adjusted.method).toBe('holm');
      expect(c.versionChangesAnswer).toBe(i!.adjusted.p < 0.05);
      expect(c.summary).toMatch(
        c.versionChangesAnswer
          ? /^The version changes the answer: /
          : /^No evidence that the version changes the answer \(interaction tests between PostgreSQL 14 and 17: /,
      );
    }
  });

  it('keeps the majors asked for with `major`, and says when only one is left', async () => {
    const two = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&major=17,14');
    expect(two.status).toBe(200);
    expect(two.body.groups.map((g) => g.group.engine.major).sort()).toEqual([14, 17]);
    expect(two.body.versions.comparisons.map((c) => c.rows.map((r) => r.major))).toEqual([
      [14, 17],
      [14, 17],
    ]);
    const one = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&major=17');
    expect(one.body.groups.map((g) => g.group.engine.major)).toEqual([17]);
    expect(one.body.versions.comparisons).toEqual([]);
    expect(one.body.versions.sentence).toMatch(
      /^Measured on PostgreSQL 17 only — .+ on PostgreSQL 17; no hardware class/,
    );
    const apart = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&major=14,15');
    expect(apart.body.groups.map((g) => g.group.engine.major).sort()).toEqual([14, 15]);
    expect(apart.body.versions.comparisons).toEqual([]);
    expect(apart.body.versions.sentence).toMatch(
      /^Measured on PostgreSQL 14 and 15 only — .+ on PostgreSQL 14 and 15; no hardware class has the same pair under equal conditions/,
    );
    const none = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&major=16');
    expect(none.body.groups).toEqual([]);
    expect(none.body.empty).toMatch(/no measured runs/);
    expect(none.body.versions).toEqual({
      measured: [],
      comparisons: [],
      sentence: 'No server version is measured yet.',
    });
  });

  it('filters comparisons and findings by the same `major`; the old `engineMajor` is refused by name', async () => {
    const path = '/v1/comparisons?scenario=vacuum-index-cleanup&groupBy=class';
    const all = await get<ComparisonResult>(path);
    expect(all.body.groups.map((g) => g.engine.major).sort()).toEqual([14, 15, 17]);
    const some = await get<ComparisonResult>(`${path}&major=17,14`);
    expect(some.status).toBe(200);
    expect(some.body.groups.map((g) => g.engine.major).sort()).toEqual([14, 17]);
    const findings = await get<{ items: { links: { comparison: string } }[] }>(
      '/v1/findings?scenario=vacuum-index-cleanup&groupBy=class&major=15',
    );
    expect(findings.status).toBe(200);
    expect(findings.body.items.length).toBeGreaterThan(0);
    for (const f of findings.body.items) {
      // The link names the server too, so it compares exactly the finding's group.
      expect(f.links.comparison).toContain('&engine=postgresql&major=15&');
      const linked = await get<ComparisonResult>(f.links.comparison);
      expect(linked.body.groups.map((g) => g.engine.major)).toEqual([15]);
    }
    const old = await get<{ errors: { path: string }[] }>(`${path}&engineMajor=17`);
    expect(old.status).toBe(400);
    expect(JSON.stringify(old.body)).toContain('engineMajor');
  });

  it.each(['abc', '14,x', '14.5', '99999', '-1', ''])(
    'refuses major=%s with problem+json naming the field',
    async (value) => {
      const bad = await get<{ errors: { path: string; message: string }[] }>(
        `/v1/answers?scenario=vacuum-index-cleanup&major=${encodeURIComponent(value)}`,
      );
      expect(bad.status).toBe(400);
      expect(bad.type).toMatch(/application\/problem\+json/);
      expect(bad.body.errors.map((e) => e.path)).toContain('querystring:/major');
    },
  );

  it('documents `major` and the `versions` section in the OpenAPI document', async () => {
    const doc = (
      await get<{
        paths: Record<
          string,
          {
            get: {
              parameters: { name: string }[];
              responses: Record<
                string,
                { content: Record<string, { schema: { properties: Record<string, unknown> } }> }
              >;
            };
          }
        >;
      }>('/openapi.json')
    ).body;
    const op = doc.paths['/v1/answers']!.get;
    expect(op.parameters.map((p) => p.name)).toContain('major');
    expect(Object.keys(op.responses['200']!.content['application/json']!.schema.properties)).toContain('versions');
  });
});
