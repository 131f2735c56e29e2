/**
 * The one policy for runs left out of a verdict, and the article's own findings where nothing is
 * measured: a real run (tests/fixtures/real-runs, vacuum-index-cleanup on the 2-core VM) flagged
 * noisy is answered, labelled, in `leftOut` rather than dropped; the article's findings are its
 * imported figures (published.json), said as the article's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeNoiseCounts, judgeNoise, RunSubmission, type RunNoise } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { answerRun } from './run.ts';
import { articleFindings } from './article-findings.ts';
import { findingsOf, groupSamples, type SampleRow } from './groups.ts';
import { publishedSubmissions } from './published.ts';
import { testRow } from './test-rows.ts';

const realRun = () =>
  RunSubmission.parse(
    (
      JSON.parse(
        readFileSync(new URL('../../../tests/fixtures/real-runs/vacuum-index-cleanup.json', import.meta.url), 'utf8'),
      ) as { submission: unknown }
    ).submission,
  );

/** A CPU probe spread of 10 % (the 2-core VM beside a CI run): above its threshold, so flagged noisy. */
const NOISY: RunNoise = {
  windowSeconds: 8,
  logicalCpus: 2,
  cpuStealPct: 1.9,
  loadAverage: { mean: 1.6, max: 1.6 },
  timerLatenessMs: { p50: 0.4, p99: 5, max: 6, ticks: 80 },
  cpuProbe: { runsMs: [26, 29, 28, 32, 25, 24, 24, 26], cvPct: 10.2, cpuSharePct: 89 },
  ioProbe: null,
  overheadSeconds: 0.25,
};
const QUIET: RunNoise = { ...NOISY, cpuProbe: { ...NOISY.cpuProbe, cvPct: 1.1 } };

const scenario = await loadScenario(`${DEFAULT_SCENARIOS_DIR}vacuum-index-cleanup`);
const answer = (noise: RunNoise, noisy?: 'include' | 'exclude') =>
  answerRun({
    doc: scenario.doc,
    published: scenario.published,
    run: { ...realRun(), noise },
    metric: 'duration',
    ...(noisy ? { noisy } : {}),
  });

describe('runs left out of the verdict', () => {
  it('a noisy run under noisy=exclude decides nothing, and is answered labelled in leftOut', () => {
    expect(judgeNoise(NOISY).noisy).toBe(true);
    const pooled = answer(NOISY, 'include');
    const left = answer(NOISY, 'exclude');
    expect(pooled.groups.length).toBeGreaterThan(0);
    // Nothing counts…
    expect(left.groups).toEqual([]);
    expect(left.noise.excluded).toBe(1);
    expect(left.empty).toMatch(/was flagged noisy and left out/);
    // …but what it measured is shown: the same groups, the same verdicts, each labelled with why.
    expect(left.leftOut.map((a) => a.pairs)).toEqual(pooled.groups.map((a) => a.pairs));
    expect(left.leftOut.map((a) => a.name)).toEqual(pooled.groups.map((a) => a.name));
    for (const a of left.leftOut) {
      expect(a.leftOut).toEqual({
        reason: 'noisy',
        label: 'measured on a noisy machine: does not count towards the verdict',
        why: expect.stringMatching(/^its run was flagged noisy \(CPU steal, load per core, timer lateness/),
      });
      // A left-out group is never taken for the counted group of the same class and conditions.
      expect(pooled.groups.map((g) => g.group.key)).not.toContain(a.group.key);
    }
  });

  it('a quiet run counts and nothing is left out; noisy=include pools a noisy run', () => {
    expect(judgeNoise(QUIET).noisy).toBe(false);
    const quiet = answer(QUIET, 'exclude');
    expect(quiet.leftOut).toEqual([]);
    expect(quiet.groups.map((a) => a.pairs)).toEqual(answer(NOISY, 'include').groups.map((a) => a.pairs));
    expect(answer(NOISY, 'include').leftOut).toEqual([]);
  });

  it('a noisy run measured in paired blocks counts under exclude: its interval carries the noise', () => {
    const run = realRun();
    const order = [...new Set(run.samples.map((s) => s.variant))];
    // The same values, each repetition a block running the variants in one order.
    const paired = {
      ...run,
      noise: NOISY,
      samples: run.samples.map((s) => ({ ...s, position: order.indexOf(s.variant) + 1 })),
    };
    const a = answerRun({
      doc: scenario.doc,
      published: scenario.published,
      run: paired,
      metric: 'duration',
      noisy: 'exclude',
    });
    expect(a.leftOut).toEqual([]);
    expect(a.groups.length).toBeGreaterThan(0);
    expect(a.noise).toMatchObject({ runs: 1, noisy: 1, paired: 1, excluded: 0 });
    for (const g of a.groups) expect(g.pairs.every((p) => p.measured?.paired)).toBe(true);
    expect(describeNoiseCounts(a.groups[0]!.group.noise)).toBe(
      '1 run, 1 flagged noisy (in paired blocks: counted, their intervals carry the noise)',
    );
    // The same run without blocks is left out, as before.
    expect(answer(NOISY, 'exclude').groups).toEqual([]);
  });

  it('the findings of a group of only noisy runs carry the same label under exclude, none under include', () => {
    const rows: SampleRow[] = realRun()
      .samples.filter((s) => s.metric === 'duration')
      .map((s) =>
        testRow({
          variant: s.variant,
          repetition: s.repetition,
          value: s.value,
          unit: s.unit,
          scenario_key: 'vacuum-index-cleanup',
          comparisons: [
            { baseline: '1-1', candidate: '1-2' },
            { baseline: '2-1', candidate: '2-2' },
          ],
          hardware_class: '2 cores / 8 GB / SSD',
          memory_bytes: 8 * 1024 ** 3,
          received_at: new Date('2026-11-20T00:00:00Z'),
          noisy: true,
        }),
      );
    const { groups } = groupSamples(rows, { metric: 'duration', source: 'measured', groupBy: 'class' });
    const excluded = findingsOf(groups, () => null, 'exclude');
    expect(excluded.length).toBe(2);
    for (const f of excluded)
      expect(f.leftOut?.label).toBe('measured on a noisy machine: does not count towards the verdict');
    for (const f of findingsOf(groups, () => null, 'include')) expect(f.leftOut).toBeUndefined();
    // A group with a quiet run beside the noisy one counts.
    const mixed = groupSamples(
      [...rows, ...rows.map((r) => ({ ...r, run_id: r.run_id.replace(/1$/, '2'), noisy: false }))],
      {
        metric: 'duration',
        source: 'measured',
        groupBy: 'class',
      },
    ).groups;
    for (const f of findingsOf(mixed, () => null, 'exclude')) expect(f.leftOut).toBeUndefined();
  });
});

describe('the article’s own findings', () => {
  it('are every pair the article compared on each machine, with its own means, said as not measured here', () => {
    const a = answer(NOISY, 'exclude');
    const file = scenario.published!.file;
    // The article's means per machine and variant, from published.json as imported.
    const means = new Map<string, number>();
    for (const { submission } of publishedSubmissions(file, scenario.published!.version)) {
      const label = `${submission.hardware.physicalCores} cores`;
      for (const v of new Set(submission.samples.map((s) => s.variant))) {
        const xs = submission.samples.filter((s) => s.variant === v && s.metric === 'duration').map((s) => s.value);
        means.set(`${submission.hardware.cpuModel}|${label}|${v}`, xs.reduce((x, y) => x + y, 0) / xs.length);
      }
    }
    const comparisons = a.articleFindings.filter((f) => f.figure.kind === 'comparison');
    const machines = new Set(publishedSubmissions(file, scenario.published!.version).map((m) => m.machine));
    expect(comparisons.length).toBe(machines.size * (file.comparisons ?? []).length);
    const all = [...means.values()];
    for (const f of comparisons) {
      expect(f.sentence).toMatch(/^the article found .+; not yet measured here$/);
      for (const v of [f.baseline, f.candidate]) {
        const value = f.figure.values[v]!;
        expect(all.some((m) => Math.abs(m - value) < 1e-9)).toBe(true);
        expect(f.sentence).toContain(`${Number(value.toPrecision(4)).toLocaleString('en-US')} s for ${v}`);
      }
    }
    // The direction is the article's verdict on its own repetitions: 1-2 faster than 1-1 on the SSD server.
    const ssd = comparisons.find((f) => f.candidate === '1-2' && /SSD/.test(f.figure.label))!;
    expect(ssd.figure.outcome).toBe('faster');
    expect(ssd.sentence).toMatch(/^the article found 1-2 faster than 1-1 on /);
  });

  it('include the ratios and directions an article published without runs (fillfactor, InnoDB)', async () => {
    for (const key of ['fillfactor-hot-updates', 'innodb-compression-insert']) {
      const s = await loadScenario(`${DEFAULT_SCENARIOS_DIR}${key}`);
      const found = articleFindings({
        scenario: { doc: s.doc, published: s.published?.file ?? null },
        figures: Object.fromEntries(
          Object.entries(s.published!.file).filter(
            ([, v]) =>
              v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'number'),
          ),
        ) as Record<string, Record<string, number>>,
        articleGroups: [],
      });
      expect(found.length, key).toBeGreaterThan(0);
      for (const f of found) expect(f.sentence).toMatch(/^the article found .+; not yet measured here$/);
      for (const r of s.doc.report.ratios ?? []) {
        const theirs = (s.published!.file as Record<string, unknown>)[r.published!] as Record<string, number>;
        for (const [v, x] of Object.entries(theirs).filter(([v]) => v !== r.baseline))
          expect(found.find((f) => f.candidate === v && f.figure.kind === 'ratio')?.figure.values[v]).toBe(x);
      }
      for (const c of s.published!.file.claims ?? [])
        expect(found.find((f) => f.figure.kind === 'claim' && f.candidate === c.candidate)?.figure.outcome).toBe(
          c.outcome,
        );
    }
  });
});
