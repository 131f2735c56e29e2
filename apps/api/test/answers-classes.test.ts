/**
 * GET /v1/answers' `classes` over a real PostgreSQL results database: the real `tunelab run
 * vacuum-index-cleanup` run against PostgreSQL 17 on this 2-core VM
 * (tests/fixtures/real-runs/versions), ingested through POST /v1/runs as it was made and twice
 * more with the same measurements labelled as other machines — an 8-core / 32 GB one and the
 * like-article run's envelope (emulated). Three classes, one major, equal conditions: each pair
 * side by side per class, and — the measurements being the same — every ratio of ratios exactly 1.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioAnswers } from '@tunelab/contracts';
import { startApi } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
type Submission = { hardware: Record<string, unknown>; database: { major: number } };
const submission = (file: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../../tests/fixtures/${file}`, import.meta.url), 'utf8')) as {
      submission: Submission;
    }
  ).submission;
const PG17 = submission('real-runs/versions/vacuum-index-cleanup-pg17.json');
const LIKE = submission('vacuum-index-cleanup-like-article-1GB.json');
const CLASSES = [
  '2 cores / 24 GB / unknown disk',
  '8 cores / 32 GB / unknown disk',
  '2 cores / 2.7 GB of 24 GB / SSD-like, emulated',
];
const RUNS = [
  PG17,
  { ...PG17, hardware: { ...PG17.hardware, physicalCores: 8, logicalCpus: 8, memoryBytes: 32 * 1024 ** 3 } },
  { ...PG17, hardware: { ...PG17.hardware, measured: LIKE.hardware['measured'], envelope: LIKE.hardware['envelope'] } },
];

describe('GET /v1/answers across hardware classes, over a real run on PostgreSQL 17', () => {
  let url: string;
  let close: () => Promise<void>;
  const get = async <T>(path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, body: (await res.json()) as T };
  };

  beforeAll(async () => {
    const api = await startApi({}, 'classes_answers_api', {
      scenariosDir: SCENARIOS,
      runs: RUNS.map((body, i) => ({ key: `classes-${i}`, body })),
    });
    url = api.url;
    close = api.close;
  });
  afterAll(async () => close?.());

  it('puts each declared pair side by side per class, read from that class’s group answer', async () => {
    const { status, body } = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup');
    expect(status).toBe(200);
    expect(body.groups.map((g) => g.group.hardware.class).sort()).toEqual([...CLASSES].sort());
    expect(body.classes.measured).toEqual([
      { engine: 'postgresql', major: 17, server: 'PostgreSQL 17', classes: CLASSES },
    ]);
    expect(body.classes.sentence).toMatch(/^Measured: PostgreSQL 17 on 2 cores \/ 24 GB \/ virtual or unknown disk, /);
    expect(body.classes.comparisons.map((c) => `${c.baseline}→${c.candidate}`)).toEqual(['1-1→1-2', '2-1→2-2']);
    for (const c of body.classes.comparisons) {
      expect(c).toMatchObject({ engine: 'postgresql', major: 17, direction: 'lower-is-better', unit: 's' });
      expect(c.params).toEqual({ rows: 800_000 });
      expect(c.conditions).toBe('PostgreSQL 17 · rows = 800,000');
      expect(c.rows.map((r) => [r.hardwareClass, r.emulated])).toEqual([
        [CLASSES[0], false],
        [CLASSES[1], false],
        [CLASSES[2], true],
      ]);
      for (const r of c.rows) {
        const g = body.groups.find((x) => x.group.key === r.group)!;
        expect(g.group.hardware.class).toBe(r.hardwareClass);
        const pair = g.pairs.find((p) => p.baseline === c.baseline && p.candidate === c.candidate)!;
        const side = (v: string) => g.group.variants.find((x) => x.variant === v)!;
        expect(r.baseline).toEqual({ n: 3, mean: side(c.baseline).mean });
        expect(r).toMatchObject({
          improvement: pair.measured!.improvement,
          ci95: pair.measured!.ci95,
          verdict: pair.measured!.verdict,
          agreement: pair.agreement,
        });
      }
      // Per two classes one interaction test, Holm over both pairs' three each.
      expect(c.interactions.map((i) => [i.a, i.b])).toEqual([
        [CLASSES[0], CLASSES[1]],
        [CLASSES[0], CLASSES[2]],
        [CLASSES[1], CLASSES[2]],
      ]);
      for (const i of c.interactions) {
        expect(i.method).toBe('log-ratio');
        expect(i.estimate).toBeCloseTo(1, 12);
        expect(i.adjusted).toMatchObject({ method: 'holm', family: 6 });
        expect(i.differs).toBe(false);
      }
      expect(c.hardwareChangesAnswer).toBe(false);
      // The classes grouped by the verdict they give; no interaction differs, so no change is listed.
      expect(c.verdictGroups.flatMap((g) => g.classes).sort()).toEqual([...CLASSES].sort());
      for (const g of c.verdictGroups)
        expect(g.classes.every((k) => c.rows.find((r) => r.hardwareClass === k)!.verdict.kind === g.kind)).toBe(true);
      expect(c.changes).toEqual([]);
      expect(c.summary).toMatch(
        new RegExp(
          `^No evidence that the hardware changes the answer \\(interaction tests of ${c.candidate} ÷ ${c.baseline} on PostgreSQL 17 between .* and 2 cores / 2\\.7 GB of 24 GB / SSD-like \\(emulated\\): smallest Holm-adjusted p = `,
        ),
      );
    }
  });

  it('has no comparison with one class left (minCores=8), none without runs, and documents `classes`', async () => {
    const one = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&minCores=8');
    expect(one.body.groups.map((g) => g.group.hardware.class)).toEqual([CLASSES[1]]);
    expect(one.body.classes.comparisons).toEqual([]);
    expect(one.body.classes.sentence).toBe(
      'Measured: PostgreSQL 17 on 8 cores / 32 GB / virtual or unknown disk; no server has the same pair under equal conditions on two hardware classes yet.',
    );
    const none = await get<ScenarioAnswers>('/v1/answers?scenario=vacuum-index-cleanup&major=16');
    expect(none.body.classes).toEqual({
      measured: [],
      comparisons: [],
      sentence: 'No hardware class is measured yet.',
    });
    const doc = await get<{
      paths: Record<
        string,
        {
          get: {
            description: string;
            responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown> } }> }>;
          };
        }
      >;
    }>('/openapi.json');
    const op = doc.body.paths['/v1/answers']!.get;
    expect(Object.keys(op.responses['200']!.content['application/json']!.schema.properties)).toContain('classes');
    expect(op.description).toMatch(/`classes` does the same across hardware/);
  });
});
