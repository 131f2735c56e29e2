/**
 * The essential conditions (published.json `conditions`) held against real runs: the default-scale
 * runs of tests/fixtures/real-runs, and two small InnoDB runs made for this test with
 * `tunelab run innodb-compression-insert --param rows=50000 --param sample_every_rows=5000` on
 * MariaDB 10.11, once with `--param buffer_pool_mb=256` (the table fits in the pool) and once with
 * `--param buffer_pool_mb=5` (it outgrows it) — fixtures/innodb-*-buffer-pool.json.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario, publishedConditions } from '@tunelab/scenarios';
import { answerRun } from './run.ts';
import { COMPARABILITY_RULE } from './answer.ts';

const runFile = (url: URL) =>
  RunSubmission.parse((JSON.parse(readFileSync(url, 'utf8')) as { submission: unknown }).submission);
const realRun = (key: string) => runFile(new URL(`../../../tests/fixtures/real-runs/${key}.json`, import.meta.url));
const innodbRun = (name: string) => runFile(new URL(`../fixtures/innodb-${name}-buffer-pool.json`, import.meta.url));

async function answer(key: string, run: RunSubmission, metric?: string) {
  const scenario = await loadScenario(`${DEFAULT_SCENARIOS_DIR}${key}`);
  const a = answerRun({
    doc: scenario.doc,
    published: scenario.published,
    run,
    metric: metric ?? scenario.doc.report.primary_metric ?? 'duration',
  });
  return a;
}
const reasonsOf = (a: Awaited<ReturnType<typeof answer>>) => a.groups.flatMap((g) => g.pairs.flatMap((p) => p.reasons));
const conditionReasons = (a: Awaited<ReturnType<typeof answer>>) =>
  reasonsOf(a).filter((r) => r.startsWith('conditions:'));

describe('innodb-compression-insert: the plain table’s data must outgrow the buffer pool', () => {
  it('a run whose table fits in its 256 MiB buffer pool is not comparable, and the reason names the condition', async () => {
    const run = innodbRun('fits');
    expect(run.database.settings['innodb_buffer_pool_size']).toBe(String(256 * 1024 ** 2));
    const a = await answer('innodb-compression-insert', run);
    expect(a.groups).toHaveLength(1);
    for (const p of a.groups[0]!.pairs) {
      expect(p.agreement).toBe('not-comparable');
      const reason = p.reasons.find((r) => r.startsWith('conditions:'));
      expect(reason).toMatch(
        /^conditions: the plain table’s data outgrows the buffer pool — table_data_size of uncompressed \d+\.\d MiB \(the smallest of the group’s units\) here, at least 1\.25 × innodb_buffer_pool_size 256\.0 MiB = 320\.0 MiB needed$/,
      );
    }
    // The same run's other metrics answer with the same reason: the condition is the group's, not the metric's.
    expect(conditionReasons(await answer('innodb-compression-insert', run, 'duration'))).toHaveLength(2);
  });

  it('the same run with a 5 MiB buffer pool is not flagged for it', async () => {
    const run = innodbRun('exceeds');
    const data = run.samples.filter((s) => s.metric === 'table_data_size' && s.variant === 'uncompressed');
    expect(data).toHaveLength(3);
    expect(Math.min(...data.map((s) => s.value))).toBeGreaterThan(1.25 * 5 * 1024 ** 2);
    const a = await answer('innodb-compression-insert', run);
    expect(conditionReasons(a)).toEqual([]);
    // Still not comparable: its scale is far from the article's 200 million rows.
    expect(a.groups[0]!.pairs.every((p) => p.agreement === 'not-comparable')).toBe(true);
    expect(reasonsOf(a).every((r) => r.startsWith('scale:'))).toBe(true);
  });

  it('a run that did not record the table’s data size is not comparable for that reason, never passed', async () => {
    // The default-scale run of tests/fixtures/real-runs predates table_data_size.
    const a = await answer('innodb-compression-insert', realRun('innodb-compression-insert'));
    expect(conditionReasons(a)[0]).toBe(
      'conditions: the plain table’s data outgrows the buffer pool — table_data_size of uncompressed not recorded here',
    );
  });
});

describe('the other scenarios’ default-scale runs', () => {
  it('fillfactor-hot-updates: a 5-second window is not the steady state (at least 60 minutes)', async () => {
    const a = await answer('fillfactor-hot-updates', realRun('fillfactor-hot-updates'));
    expect(a.groups.length).toBe(3); // one per virtual-user count
    for (const g of a.groups)
      for (const p of g.pairs) {
        expect(p.agreement).toBe('not-comparable');
        expect(p.reasons).toContain(
          'conditions: a measured window long enough to reach a steady state — duration 5 s here, at least 60 min needed',
        );
        // The article ran with autovacuum on; this server had it off.
        expect(p.reasons).toContain('settings: autovacuum off here vs on in the article');
      }
  });

  it.each(['vacuum-index-cleanup', 'recovery-init-sync', 'vacuum-full-rewrite'])(
    '%s: its declared conditions are met (or it declares none), so no conditions reason',
    async (key) => {
      const a = await answer(key, realRun(key));
      expect(a.groups.length).toBeGreaterThan(0);
      expect(conditionReasons(a)).toEqual([]);
    },
  );

  it('recovery-init-sync: fsync off would skip the sync it times', async () => {
    const run = realRun('recovery-init-sync');
    const a = await answer('recovery-init-sync', {
      ...run,
      database: { ...run.database, settings: { ...run.database.settings, fsync: 'off' } },
    });
    expect(conditionReasons(a)[0]).toBe('conditions: the data-directory sync runs at all — fsync off here, on needed');
  });
});

describe('the rule in words', () => {
  it('every scenario’s answers state the general rule and its own conditions (or that it has none)', async () => {
    const innodb = await answer('innodb-compression-insert', innodbRun('fits'));
    expect(innodb.rule.startsWith(COMPARABILITY_RULE)).toBe(true);
    expect(innodb.rule).toContain(
      'This scenario’s essential conditions: the plain table’s data outgrows the buffer pool (table_data_size of uncompressed ≥ 1.25 × innodb_buffer_pool_size).',
    );
    const full = await answer('vacuum-full-rewrite', realRun('vacuum-full-rewrite'));
    expect(full.rule).toMatch(/declares no essential condition beyond scale, storage and settings: none beyond scale/);
  });

  it('every scenario folder declares its conditions in published.json', async () => {
    for (const key of [
      'fillfactor-hot-updates',
      'innodb-compression-insert',
      'recovery-init-sync',
      'vacuum-full-rewrite',
      'vacuum-index-cleanup',
    ]) {
      const s = await loadScenario(`${DEFAULT_SCENARIOS_DIR}${key}`);
      expect(publishedConditions(s.published?.file), key).not.toBeNull();
    }
  });
});
