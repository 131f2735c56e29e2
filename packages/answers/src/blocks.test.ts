import { describe, expect, it } from 'vitest';
import { pairedVerdict, welchTTest } from '@tunelab/stats';
import { ScenarioDocument, type Sample } from '@tunelab/contracts';
import { decideBlocks } from './blocks.ts';
import { groupSamples, type SampleRow } from './groups.ts';
import { testRow } from './test-rows.ts';
import { groupSpread } from './spread.ts';

const RUN = '00000000-0000-4000-8000-000000000001';
const q = { metric: 'duration', source: 'measured', groupBy: 'class' } as const;
const pairs = [
  { baseline: 'a', candidate: 'b' },
  { baseline: 'c', candidate: 'd' },
];

/** One run's samples: per block a load factor that hits every variant of the block. */
function blockRows(
  perVariant: Record<string, number>,
  load: readonly number[],
  extra: Partial<SampleRow> = {},
  positions = true,
): SampleRow[] {
  return load.flatMap((factor, i) =>
    Object.entries(perVariant).map(([variant, base], place) =>
      testRow({
        variant,
        repetition: i + 1,
        position: positions ? ((place + i) % Object.keys(perVariant).length) + 1 : null,
        // A small per-unit wobble on top of the block's load.
        value: base * factor * (1 + ((i * 7 + place * 3) % 5) * 0.004),
        run_id: RUN,
        scenario_key: 'blocks',
        comparisons: pairs,
        ...extra,
      }),
    ),
  );
}

// A shared VM: blocks 1×–3× slower as other work comes and goes; b is 15 % faster than a in every block.
const load = [1, 2.6, 1.2, 3, 1.1, 2.2, 1.4, 2.9];
const variants = { a: 1, b: 0.85, c: 2, d: 2.02 };

describe('a group measured in blocks', () => {
  const group = groupSamples(blockRows(variants, load), q).groups[0]!;
  const ab = group.comparisons.find((c) => c.candidate === 'b')!;
  const cd = group.comparisons.find((c) => c.candidate === 'd')!;

  it('is decided from within-block ratios, where Welch on the same values cannot see the difference', () => {
    expect(ab.paired?.decision).toBe('differs');
    expect(ab.verdict.kind).toBe('faster');
    expect(ab.verdict.conclusive).toBe(true);
    expect(ab.verdict.sentence).toMatch(
      /^b is 1[45]\.\d% faster than a \(97\.5% CI .*always valid.*over 2 decisions.*8 paired blocks\)$/,
    );
    // The same values as independent samples: the load swamps the 15 %.
    expect(ab.welch!.p).toBeGreaterThan(0.3);
    expect(ab.paired?.ratio).toBeCloseTo(0.85, 2);
  });

  it('gives the interval, p and family of the one model that decided, and a near-equal pair is equivalent', () => {
    expect(ab.adjusted).toEqual({ method: 'bonferroni', p: expect.any(Number), family: 2 });
    expect(ab.improvement).toBeCloseTo(0.15, 2);
    expect(ab.ci95!.low!).toBeGreaterThan(0);
    expect(ab.paired!.blocks).toBe(8);
    expect(ab.paired!.runs).toBe(1);
    expect(cd.paired?.decision).toBe('equivalent');
    expect(cd.verdict.sentence).toMatch(/^d and c are equivalent within ±10\.0%/);
    const of = (v: string) =>
      blockRows(variants, load)
        .filter((r) => r.variant === v)
        .map((r) => r.value);
    const v = pairedVerdict({
      baseline: { label: 'a', values: of('a') },
      candidate: { label: 'b', values: of('b') },
      direction: 'lower-is-better',
      family: 2,
    });
    expect(ab.paired!.p).toBeCloseTo(v.p, 12);
  });

  it('keeps its family when a query asks for one pair: the verdict cannot change by asking narrower', () => {
    const one = groupSamples(blockRows(variants, load), { ...q, baseline: 'a', candidate: 'b' }).groups[0]!;
    expect(one.pairsFrom).toBe('query');
    expect(one.comparisons[0]!.adjusted).toEqual(ab.adjusted);
    expect(one.comparisons[0]!.verdict.sentence).toBe(ab.verdict.sentence);
  });

  it('counts every sweep point of the family', () => {
    const at = (value: number) => blockRows(variants, load, { point_param: 'vus', point_value: value });
    const groups = groupSamples([...at(1), ...at(4), ...at(8)], q).groups;
    expect(groups).toHaveLength(3);
    for (const g of groups) expect(g.comparisons[0]!.adjusted!.family).toBe(6);
  });

  it('pools the blocks of several runs, each block paired within its own run', () => {
    const second = blockRows(variants, load.slice(0, 4), { run_id: '00000000-0000-4000-8000-000000000002' });
    const g = groupSamples([...blockRows(variants, load), ...second], q).groups[0]!;
    const c = g.comparisons.find((x) => x.candidate === 'b')!;
    expect(c.paired!.blocks).toBe(12);
    expect(c.paired!.runs).toBe(2);
  });
});

describe('runs without blocks', () => {
  it('keep the independent-samples answer (Welch, Holm), and so does a group mixing them with blocked runs', () => {
    const old = groupSamples(blockRows(variants, load, {}, false), q).groups[0]!;
    const ab = old.comparisons.find((c) => c.candidate === 'b')!;
    expect(ab.paired ?? null).toBeNull();
    const of = (v: string) =>
      blockRows(variants, load, {}, false)
        .filter((r) => r.variant === v)
        .map((r) => r.value);
    const a = of('a');
    const b = of('b');
    expect(ab.welch!.p).toBeCloseTo(welchTTest(b, a).p, 12);
    const mixed = groupSamples(
      [
        ...blockRows(variants, load, {}, false),
        ...blockRows(variants, load, { run_id: '00000000-0000-4000-8000-000000000003' }),
      ],
      q,
    ).groups[0]!;
    expect(mixed.comparisons.every((c) => c.paired === undefined)).toBe(true);
  });
});

describe('decideBlocks (the runner asks it after every block)', () => {
  // A real scenario document (validated), with four variants and the two pairs above.
  const doc: ScenarioDocument = ScenarioDocument.parse({
    key: 'blocks',
    title: 'blocks',
    engines: ['postgresql'],
    fixture: [{ action: 'sql', sql: 'SELECT 1' }],
    variants: ['a', 'b', 'c', 'd'].map((key) => ({
      key,
      label: key,
      steps: [{ action: 'timed', steps: [{ action: 'sql', sql: 'SELECT 1' }] }],
    })),
    comparisons: pairs,
    metrics: [{ key: 'duration', source: 'timed', unit: 's', better: 'lower' }],
    repetitions: { default: 3 },
    decision: { margin: 0.1, budget_seconds: 600, max_blocks: 60 },
  });
  const samples = (n: number): Sample[] =>
    blockRows(variants, load.slice(0, n)).map((r) => ({
      variant: r.variant,
      repetition: r.repetition,
      position: r.position!,
      metric: 'duration',
      unit: 's',
      value: r.value,
    }));
  const ask = (n: number) =>
    decideBlocks({ doc, samples: samples(n), metric: 'duration', engine: 'postgresql', major: 17, minor: 2 });

  it('is undecided after 3 blocks and decided once every declared pair is', () => {
    expect(ask(3).decided).toBe(false);
    const done = ask(8);
    expect(done.decided).toBe(true);
    expect(done.pairs.map((p) => `${p.candidate}:${p.decision}`)).toEqual(['b:differs', 'd:equivalent']);
  });

  it("judges equivalence against the scenario's own margin", () => {
    const tight = {
      ...doc,
      decision: { margin: 0.01, budget_seconds: 600, max_blocks: 60 },
    } satisfies ScenarioDocument;
    const with_ = (d: ScenarioDocument) =>
      decideBlocks({ doc: d, samples: samples(8), metric: 'duration', engine: 'postgresql', major: 17, minor: 2 });
    expect(with_(doc).pairs[1]!.decision).toBe('equivalent');
    expect(with_(tight).pairs[1]!.decision).not.toBe('equivalent');
    expect(with_(tight).decided).toBe(false);
  });
});

describe('the noise stated with a group measured in blocks', () => {
  it('says how much the pairs vary from block to block and what they cannot tell apart', () => {
    const spread = groupSpread(groupSamples(blockRows(variants, load), q).groups[0]!.comparisons)!;
    expect(spread.blocks).toEqual({ low: 8, high: 8 });
    expect(spread.unstable).toBe(0);
    expect(spread.sdLogRatio.high).toBeLessThan(0.02);
    expect(spread.detectable!.low).toBeGreaterThan(0);
    expect(spread.detectable!.high).toBeLessThan(0.05);
    expect(spread.sentence).toMatch(
      /^On this class the 2 pairs’ ratios vary by [\d.]+%(–[\d.]+%)? from block to block \(8 paired blocks\); differences under [\d.]+%(–[\d.]+%)?( \(by pair\))? cannot be told apart$/,
    );
  });

  it('counts a pair noisier than its margin unstable, and states none for runs from before blocks', () => {
    // b against a swings ±25 % from block to block: beyond the ±10 % margin.
    const swing = blockRows(variants, load).map((r) =>
      r.variant === 'b' ? { ...r, value: r.value * (r.repetition % 2 === 0 ? 1.25 : 0.75) } : r,
    );
    const spread = groupSpread(groupSamples(swing, q).groups[0]!.comparisons)!;
    expect(spread.unstable).toBe(1);
    expect(spread.sentence).toMatch(/; 1 of 2 is unstable: noisier than the ±10\.0% margin$/);
    expect(groupSpread(groupSamples(blockRows(variants, load, {}, false), q).groups[0]!.comparisons)).toBeNull();
  });
});
