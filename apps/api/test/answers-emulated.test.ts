/**
 * End to end: a real `tunelab run vacuum-index-cleanup --server 17 --like-article` run (the server
 * inside a 2.67 GB memory envelope on the 2-core VM; tests/fixtures/vacuum-index-cleanup-like-article-1GB.json)
 * ingested through POST /v1/runs, and its answer read from GET /v1/answers: judged by the ratios of
 * the scenario's article_conditions and said to be under emulated conditions.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioAnswers } from '@tunelab/contracts';
import { startApi } from './helpers.ts';

const SCENARIOS = fileURLToPath(new URL('../../../scenarios/', import.meta.url));
const RUN = (
  JSON.parse(
    readFileSync(
      new URL('../../../tests/fixtures/vacuum-index-cleanup-like-article-1GB.json', import.meta.url),
      'utf8',
    ),
  ) as { submission: unknown }
).submission;

describe('GET /v1/answers over an emulated like-article run', () => {
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const api = await startApi({}, 'h_emul_answers', {
      scenariosDir: SCENARIOS,
      runs: [{ key: 'like-article-1', body: RUN }],
    });
    url = api.url;
    close = api.close;
  });
  afterAll(async () => close?.());

  it('answers the emulated group on the ratios it reproduces, under emulated conditions', async () => {
    const res = await fetch(`${url}/v1/answers?scenario=vacuum-index-cleanup`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as ScenarioAnswers;
    const emulated = body.groups.filter((g) => g.group.hardware.class.endsWith(', emulated'));
    expect(emulated.map((g) => g.group.hardware.class)).toEqual(['2 cores / 2.7 GB of 24 GB / SSD-like, emulated']);
    const pair = emulated[0]!.pairs.find((p) => p.baseline === '1-1' && p.candidate === '1-2')!;
    expect(pair.reasons).toEqual([]);
    expect(pair.agreement).toBe('inconclusive');
    expect(pair.sentence).toBe(
      'inconclusive under emulated conditions (data:memory 0.37 vs 0.375, SSD-like vs SSD-like, ' +
        'maintenance_work_mem:data 0.13 vs 0.133, shared_buffers:data 0.67 vs 0.667, max_wal_size:data 0.67 vs 0.667); ' +
        'not reproduced: 2 cores here vs 8; 1 GB of data here vs 12 GB',
    );
    expect(pair.article?.machine).toBe('server-1');
    // Every pair of the emulated group says so.
    for (const p of emulated[0]!.pairs) expect(p.sentence).toMatch(/ under emulated conditions/);
  });
});
