import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunSubmission, type Sample } from '@tunelab/contracts';
import { verdict } from '@tunelab/stats';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { submissionOf } from '../test-support/submission.ts';
import { renderRunTable } from './table.ts';

const scenario = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'vacuum-full-rewrite'));
const durations: Record<string, number[]> = {
  'full-rewrite': [1.0, 1.1, 0.9, 1.05, 0.95],
  vacuum: [0.5, 0.55, 0.45, 0.52, 0.48],
};
const samples = (point?: { param: string; value: number }, scale = 1): Sample[] =>
  Object.entries(durations).flatMap(([variant, vs]) =>
    vs.map((v, i) => ({
      variant,
      repetition: i + 1,
      metric: 'duration',
      unit: 's',
      value: v * scale,
      ...(point ? { point } : {}),
    })),
  );
const run = (s: Sample[]) => submissionOf(scenario.doc, s);

describe('renderRunTable', () => {
  it('prints the verdict sentence of @tunelab/stats, not its own percentage', () => {
    const table = renderRunTable(scenario, run(samples()));
    // The decisions that share alpha are the scenario's declared pairs (Bonferroni).
    const family = scenario.doc.comparisons.length;
    expect(family).toBeGreaterThan(1);
    const expected = verdict({
      baseline: { label: 'full-rewrite', values: durations['full-rewrite']! },
      candidate: { label: 'vacuum', values: durations.vacuum! },
      direction: 'lower-is-better',
      family,
    }).sentence;
    expect(expected).toMatch(
      new RegExp(
        `^vacuum is 50\\.0% faster than full-rewrite \\(98\\.\\d% CI .*Welch p .*\\(${family} tests\\), n = 5 \\+ 5\\)$`,
      ),
    );
    expect(table).toContain(`${expected}  (mean 0.500 vs 1.000 s)`);
    expect(table).not.toMatch(/━━/);
  });

  it('prints the agreement line of @tunelab/answers under each verdict', () => {
    const table = renderRunTable(scenario, run(samples()));
    expect(table).toMatch(/\(mean 0\.500 vs 1\.000 s\)\n {2}article: /);
  });

  it('gives a descriptive metric its figures and no verdict', () => {
    const doc = {
      ...scenario.doc,
      metrics: scenario.doc.metrics.map((m) => (m.key === 'duration' ? { ...m, descriptive: true } : m)),
    };
    const table = renderRunTable({ doc, published: scenario.published }, submissionOf(doc, samples()));
    expect(table).toContain('duration (s, descriptive: no verdict)');
    expect(table).toContain(
      'vacuum is 50.0% smaller than full-rewrite (a description of the conditions, not a goal: no verdict)',
    );
    expect(table).not.toMatch(/faster|slower/);
  });

  it('prints one table per sweep point, each with its own verdicts', () => {
    const table = renderRunTable(
      scenario,
      run([...samples({ param: 'vus', value: 1 }), ...samples({ param: 'vus', value: 4 }, 2)]),
    );
    const parts = table.split(/━━ vus = \d+ ━━/);
    expect(table.match(/━━ vus = (\d+) ━━/g)).toEqual(['━━ vus = 1 ━━', '━━ vus = 4 ━━']);
    expect(parts[1]).toMatch(/full-rewrite +VACUUM \(FULL\)[^\n]* 1\.000\n/);
    expect(parts[1]).toContain('(mean 0.500 vs 1.000 s)');
    expect(parts[2]).toMatch(/full-rewrite +VACUUM \(FULL\)[^\n]* 2\.000\n/);
    expect(parts[2]).toContain('(mean 1.000 vs 2.000 s)');
  });

  it('says how a template restore compares with the fixture build, also when it is not faster', () => {
    const fixture = (build: number, restore: number): Sample[] => [
      { variant: 'fixture', repetition: 1, metric: 'build_duration', unit: 's', value: build },
      ...[1, 2].map((repetition) => ({
        variant: 'fixture',
        repetition,
        metric: 'restore_duration',
        unit: 's',
        value: restore,
      })),
    ];
    expect(renderRunTable(scenario, run([...samples(), ...fixture(10, 0.5)]))).toContain(
      'restore is 20.0× faster than a rebuild',
    );
    expect(renderRunTable(scenario, run([...samples(), ...fixture(1, 1.02)]))).toContain(
      'restore takes about as long as a rebuild',
    );
    expect(renderRunTable(scenario, run([...samples(), ...fixture(1, 1.8)]))).toContain(
      'restore takes 1.8× as long as a rebuild',
    );
  });
});

describe('renderRunTable and the article’s stated directions', () => {
  it('prints the verdict of a metric the article stated a direction for, held against that claim', async () => {
    const innodb = await loadScenario(path.join(DEFAULT_SCENARIOS_DIR, 'innodb-compression-insert'));
    // tests/fixtures: innodb-compression-insert --like-article on the local MariaDB, 3 repetitions.
    const file = new URL(
      '../../../../tests/fixtures/innodb-compression-insert-like-article-16MB.json',
      import.meta.url,
    );
    const likeRun = RunSubmission.parse((JSON.parse(readFileSync(file, 'utf8')) as { submission: unknown }).submission);
    const table = renderRunTable(innodb, likeRun);
    // Its own table with verdicts, not only a mean among the other metrics.
    expect(table).toMatch(/\nrows_per_s_tail \(rows\/s, higher is better\)\nvariant /);
    expect(table).toMatch(
      /compressed-kbs4 is 16\.4% slower.*\n {2}article: inconclusive under emulated conditions \(buffer_pool_mb:data 0\.44 vs 0\.43, HDD-like vs HDD-like\).* \(the article \(a direction it stated, without figures\): read off the article’s QPS chart/,
    );
    expect(table.split('\nother metrics')[1]).not.toMatch(/\nrows_per_s_tail /);
  });
});
