/**
 * An emulated run (`tunelab run vacuum-index-cleanup --server 17 --like-article`: the server inside
 * a 2.67 GB memory envelope, rows = 2,151,787 → 1 GB of data, data:memory 0.375 as on the article's
 * server-1) judged by the ratios of the scenario's `article_conditions` —
 * tests/fixtures/vacuum-index-cleanup-like-article-1GB.json is that run, made on the 2-core VM on 2026-11-26.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hardwareClassOf, RunSubmission } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { answerRun } from './run.ts';
import { COMPARABILITY_RULE } from './answer.ts';

/** A run file of tests/fixtures, its submission validated. */
const fixtureRun = (name: string) =>
  RunSubmission.parse(
    (
      JSON.parse(readFileSync(new URL(`../../../tests/fixtures/${name}`, import.meta.url), 'utf8')) as {
        submission: unknown;
      }
    ).submission,
  );
const likeRun = () => fixtureRun('vacuum-index-cleanup-like-article-1GB.json');

async function answer(run: RunSubmission, withConditions = true) {
  const scenario = await loadScenario(`${DEFAULT_SCENARIOS_DIR}vacuum-index-cleanup`);
  const doc = withConditions ? scenario.doc : { ...scenario.doc, article_conditions: undefined };
  return answerRun({ doc, published: scenario.published, run, metric: 'duration' });
}
const pair = (a: Awaited<ReturnType<typeof answer>>, candidate: string) => {
  expect(a.groups).toHaveLength(1);
  const p = a.groups[0]!.pairs.find((x) => x.candidate === candidate);
  expect(p).toBeDefined();
  return p!;
};

describe('an emulated like-article run', () => {
  it('is judged on the ratios it reproduces, and says so', async () => {
    const run = likeRun();
    expect(hardwareClassOf(run.hardware)).toBe('2 cores / 2.7 GB of 24 GB / SSD-like, emulated');
    const a = await answer(run);
    const p = pair(a, '1-2');
    // The run's 3 repetitions on a loaded machine cannot tell 1-2 from 1-1 (CI −46%..48%): comparable, inconclusive.
    expect(p.reasons).toEqual([]);
    expect(p.agreement).toBe('inconclusive');
    expect(p.sentence).toBe(
      'inconclusive under emulated conditions (data:memory 0.37 vs 0.375, SSD-like vs SSD-like, ' +
        'maintenance_work_mem:data 0.13 vs 0.133, shared_buffers:data 0.67 vs 0.667, max_wal_size:data 0.67 vs 0.667); ' +
        'not reproduced: 2 cores here vs 8; 1 GB of data here vs 12 GB',
    );
    expect(p.notes).toContain('not reproduced: 2 cores here vs 8; 1 GB of data here vs 12 GB');
    expect(p.notes[0]).toMatch(/^emulated like the article’s server-1/);
  });

  it('does not reproduce the article’s “no difference” with an undecided one: inconclusive, not a green badge', async () => {
    // The article found 2-2 and 2-1 alike; this run could not tell them apart (not conclusive either way).
    const p = pair(await answer(likeRun()), '2-2');
    expect(p.article?.outcome).toBe('none');
    expect(p.measured?.verdict).toMatchObject({ kind: 'no-significant-difference', conclusive: false });
    expect(p.agreement).toBe('inconclusive');
    expect(p.sentence).toMatch(/^inconclusive under emulated conditions/);
  });

  it('whose data is 3× the article’s data:memory is not comparable, and the reason names both ratios', async () => {
    const run = likeRun();
    // The same run in a third of the memory: 1 GB of data in a 0.9 GB limit (data:memory 1.1 vs 0.375).
    run.hardware.envelope = { ...run.hardware.envelope!, memoryBytes: Math.round(2863661056 / 3) };
    expect(hardwareClassOf(run.hardware)).toBe('2 cores / 910 MB of 24 GB / SSD-like, emulated');
    const p = pair(await answer(run), '1-2');
    expect(p.agreement).toBe('not-comparable');
    expect(p.reasons).toEqual([
      'scale: data:memory 1.1 here (1 GB of data, rows 2,151,787, in a 910 MB memory limit) vs 0.375 in the article',
    ]);
    expect(p.sentence).toMatch(
      /^not comparable under emulated conditions \(SSD-like vs SSD-like, maintenance_work_mem:data 0\.13 vs 0\.133, /,
    );
  });

  it('whose disk measured HDD-like inside the envelope is held against the article’s HDD machine, server-2', async () => {
    const run = likeRun();
    run.hardware.measured = { ...run.hardware.measured!, readIopsQd1: 150, readIopsQd16: 300 };
    expect(hardwareClassOf(run.hardware)).toMatch(/ \/ HDD-like, emulated$/);
    const p = pair(await answer(run), '1-2');
    // server-1 and server-2 both have 8 cores and 32 GB: the tier measured inside the envelope picks server-2.
    expect(p.article).toMatchObject({ kind: 'comparison', machine: 'server-2' });
    expect(p.notes[0]).toMatch(/^emulated like the article’s server-2/);
    expect(p.reasons).toEqual([]);
    expect(p.sentence).toMatch(
      /^inconclusive under emulated conditions \(data:memory 0\.37 vs 0\.375, HDD-like vs HDD-like, /,
    );
  });

  it('whose disk measured a tier no listed machine had is not comparable on storage', async () => {
    const run = likeRun();
    // Sequential writes beyond SATA's 600 MB/s: NVMe-like, which neither server-1 nor server-2 was.
    run.hardware.measured = { ...run.hardware.measured!, seqWriteMBps: 900 };
    expect(hardwareClassOf(run.hardware)).toMatch(/ \/ NVMe-like, emulated$/);
    const p = pair(await answer(run), '1-2');
    expect(p.article).toMatchObject({ machine: 'server-1' });
    expect(p.agreement).toBe('not-comparable');
    expect(p.reasons).toEqual(['hardware: NVMe-like here (measured inside the envelope) vs SSD-like in the article']);
  });

  it('of a scenario without article_conditions is judged on absolutes, and still says it is emulated', async () => {
    const p = pair(await answer(likeRun(), false), '1-2');
    expect(p.agreement).toBe('not-comparable');
    expect(p.reasons[0]).toBe('scale: rows 2,151,787 here vs 29,999,999 in the article (1/14)');
    expect(p.reasons.some((r) => r.startsWith('settings: ') && r.includes('shared_buffers 683MB here vs 8192MB'))).toBe(
      true,
    );
    expect(p.notes[0]).toMatch(
      /^emulated: the run’s server ran inside a resource envelope, and the scenario declares no article_conditions/,
    );
    expect(p.sentence).toBe('not comparable under emulated conditions');
  });

  it('the same run without its envelope (an unconstrained group) is judged as before', async () => {
    const run = likeRun();
    delete run.hardware.envelope;
    expect(hardwareClassOf(run.hardware)).toBe('2 cores / 24 GB / SSD-like');
    const p = pair(await answer(run), '1-2');
    expect(p.agreement).toBe('not-comparable');
    expect(p.reasons[0]).toBe('scale: rows 2,151,787 here vs 29,999,999 in the article (1/14)');
    expect(p.reasons.join('; ')).toContain('shared_buffers 683MB here vs 8192MB in the article');
    expect(p.notes.join(' ')).not.toMatch(/emulated/);
    expect(p.sentence).toBe('not comparable');
  });

  it('an unconstrained run names the tier its probe measured, not a virtual or unknown disk', async () => {
    const run = likeRun();
    delete run.hardware.envelope;
    const hardware = (r: Awaited<ReturnType<typeof answer>>) =>
      pair(r, '1-2').reasons.find((x) => x.startsWith('hardware: ')) ?? '';
    // SSD-like, as the article's server-1 SSD: only cores and memory differ.
    expect(hardware(await answer(run))).toBe('hardware: 2 cores / 24 GB here vs 8 cores / 32 GB in the article');
    // NVMe-like (sequential writes beyond SATA's 600 MB/s) is another kind of disk than the article's SSD.
    run.hardware.measured = { ...run.hardware.measured!, seqWriteMBps: 900 };
    expect(hardwareClassOf(run.hardware)).toBe('2 cores / 24 GB / NVMe-like');
    expect(hardware(await answer(run))).toBe(
      'hardware: NVMe-like here (measured) vs SSD in the article; 2 cores / 24 GB here vs 8 cores / 32 GB in the article',
    );
  });

  it('the rule in words states the emulated rule', () => {
    for (const words of [
      'An emulated run',
      'data : memory',
      '`settings_to_data`',
      'storage tier measured inside the envelope',
      '“under emulated conditions”',
    ])
      expect(COMPARABILITY_RULE).toContain(words);
  });
});

/**
 * innodb-compression-insert with --like-article on the local MariaDB 10.11 (2026-11-26, 2-core VM at
 * load 9-17 from other work): rows = 104,858 (16 MB), buffer_pool_mb = 7, threads = 30, inside 150
 * reads/s and 150 writes/s — tests/fixtures/innodb-compression-insert-like-article-16MB.json. Its
 * article states no machine and no figures, only a direction read off its chart (published.json claims).
 */
describe('an emulated innodb-compression-insert run, held against the article’s stated direction', () => {
  const innodbRun = () => fixtureRun('innodb-compression-insert-like-article-16MB.json');
  const innodb = async (run: RunSubmission, metric: string) => {
    const scenario = await loadScenario(`${DEFAULT_SCENARIOS_DIR}innodb-compression-insert`);
    return answerRun({ doc: scenario.doc, published: scenario.published, run, metric });
  };

  it('is comparable on the ratios it reproduces; the tail rate is held against the claim', async () => {
    const run = innodbRun();
    expect(hardwareClassOf(run.hardware)).toBe('2 cores / 24 GB / HDD-like, emulated');
    const p = pair(await innodb(run, 'rows_per_s_tail'), 'compressed-kbs4');
    expect(p.article).toMatchObject({ kind: 'claim', outcome: 'faster', stated: false, values: {} });
    expect(p.article!.sentence).toMatch(/^read off the article’s QPS chart, not printed as figures/);
    expect(p.reasons).toEqual([]);
    // 16.4 % slower with an interval from −21.6 % to 42.6 % (n = 3 + 3): no difference shown where the article saw one.
    expect(p.measured!.verdict.kind).toBe('no-significant-difference');
    expect(p.agreement).toBe('inconclusive');
    expect(p.sentence).toBe(
      'inconclusive under emulated conditions (buffer_pool_mb:data 0.44 vs 0.43, HDD-like vs HDD-like); ' +
        'not reproduced: cores and memory (the article does not state them); 16 MB of data here vs 9.3 GB',
    );
    expect(p.notes[0]).toBe(
      'emulated like the article’s machine (a single disk, 2012; cores and memory not stated): the run’s server ran inside a resource envelope',
    );
  });

  it('the mean rate has no article figure (the claim is about the tail); page compression none at all', async () => {
    const a = await innodb(innodbRun(), 'rows_per_s');
    expect(pair(a, 'compressed-kbs4').agreement).toBe('no-article');
    expect(pair(a, 'compressed-kbs4').article).toBeNull();
    expect(pair(await innodb(innodbRun(), 'rows_per_s_tail'), 'page-compressed').article).toBeNull();
  });

  it('a buffer pool off the article’s ratio, or the user’s own connections, is not comparable and says which', async () => {
    const run = innodbRun();
    run.params = { ...run.params, buffer_pool_mb: 64, threads: 8 };
    const p = pair(await innodb(run, 'rows_per_s_tail'), 'compressed-kbs4');
    expect(p.agreement).toBe('not-comparable');
    expect(p.reasons[0]).toBe(
      'scale: buffer_pool_mb:data 4 here (buffer_pool_mb 64, 16 MB of data) vs 0.43 in the article; threads 8 here vs 30 in the article (1/4)',
    );
  });

  it('a data set that stayed inside its buffer pool fails the article’s essential condition', async () => {
    const run = innodbRun();
    run.samples = run.samples.map((s) => (s.metric === 'table_data_size' ? { ...s, value: 4 * 1024 ** 2 } : s));
    const p = pair(await innodb(run, 'rows_per_s_tail'), 'compressed-kbs4');
    expect(p.agreement).toBe('not-comparable');
    expect(p.reasons.join('; ')).toMatch(/^conditions: .*buffer pool/);
  });

  it('the same run without its envelope is judged on absolutes: far from the article’s 200 million rows', async () => {
    const run = innodbRun();
    delete run.hardware.envelope;
    const p = pair(await innodb(run, 'rows_per_s_tail'), 'compressed-kbs4');
    expect(p.agreement).toBe('not-comparable');
    expect(p.reasons[0]).toMatch(
      /^scale: rows 104,858 here vs 200,000,000 in the article \(1\/1,907\); buffer_pool_mb 7 here vs 4,096/,
    );
    expect(p.sentence).toBe('not comparable');
  });
});
