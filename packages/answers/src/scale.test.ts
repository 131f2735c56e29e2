import { describe, expect, it } from 'vitest';
import { ScaleCurves, type ScenarioDocument } from '@tunelab/contracts';
import { DEFAULT_SCENARIOS_DIR, loadScenario } from '@tunelab/scenarios';
import { seededRandom } from '@tunelab/stats';
import type { SampleRow } from './groups.ts';
import { answerAtScale, fitScaleCurves, ScaleQueryError, SCALE_EXTRAPOLATION_LIMIT } from './scale.ts';
import { answerCurvesAtScale, answersAtScale } from './scale-curves.ts';

const load = async (key: string) => (await loadScenario(`${DEFAULT_SCENARIOS_DIR}${key}`)).doc;

/** Samples of VACUUM durations that follow a power law in rows, with multiplicative noise (seeded). */
function runsAt(
  doc: ScenarioDocument,
  scales: readonly number[],
  law: Record<string, (rows: number) => number>,
  extra: Partial<SampleRow> = {},
  /** The spread of the multiplicative noise, in log units (uniform, ±half of it). */
  noise = 0.1,
): SampleRow[] {
  const random = seededRandom(7);
  return scales.flatMap((rows, i) =>
    Object.entries(law).flatMap(([variant, f]) =>
      [1, 2, 3].map((repetition) => ({
        variant,
        point_param: null,
        point_value: null,
        repetition,
        value: f(rows) * Math.exp((random() - 0.5) * noise),
        unit: 's',
        run_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        scenario_key: doc.key,
        version_hash: 'a'.repeat(64),
        comparisons: doc.comparisons,
        fingerprint: 'b'.repeat(64),
        hardware_class: '2 cores / 24 GB',
        cpu_model: 'cpu',
        storage_kind: 'ssd',
        physical_cores: 2,
        memory_bytes: 24 * 1024 ** 3,
        source: 'measured',
        received_at: new Date('2026-01-01T00:00:00Z'),
        engine: 'postgresql',
        db_version: '16.4',
        major: 16,
        minor: 4,
        params: { rows },
        run_warnings: [],
        settings: {},
        ...extra,
      })),
    ),
  );
}

/** answerAtScale for one scale of one parameter, on the primary metric by default. */
const ask = (
  doc: ScenarioDocument,
  rows: readonly SampleRow[],
  param: string,
  value: number,
  metric = 'duration',
  direction: 'lower-is-better' | 'higher-is-better' = 'lower-is-better',
) => answerAtScale({ doc, rows, at: { param, value }, metric, direction });

const LAW = {
  // INDEX_CLEANUP grows more slowly than dropping and re-creating: they cross at 400,000 rows.
  '1-1': (rows: number) => 2 * (rows / 400_000) ** 0.9,
  '1-2': (rows: number) => 2 * (rows / 400_000) ** 1.2,
  '2-1': (rows: number) => 3 * (rows / 400_000),
  '2-2': (rows: number) => 3 * (rows / 400_000),
};
const SCALES = [100_000, 200_000, 400_000, 800_000, 1_600_000];

describe('answers at the user’s scale', () => {
  it('answers inside the measured range with intervals, a crossing and held-out errors', async () => {
    const doc = await load('vacuum-index-cleanup');
    const rows = runsAt(doc, SCALES, LAW);
    const out = ask(doc, rows, 'rows', 1_000_000);
    expect(out.groups).toHaveLength(1);
    const g = out.groups[0]!;
    expect(g).toMatchObject({ major: 16, engine: 'postgresql', runs: 5, params: {} });
    const p = g.pairs.find((x) => x.candidate === '1-2')!;
    expect(p.status).toBe('answered');
    // (10/4)^0.3 = 1.316: dropping the indexes takes about 1.3× as long at a million rows.
    expect(p.ratio!).toBeGreaterThan(1.2);
    expect(p.ratio!).toBeLessThan(1.45);
    expect(p.ci95!.low!).toBeGreaterThan(1);
    expect(p.pi95!.low!).toBeLessThanOrEqual(p.ci95!.low!);
    expect(p.sentence).toMatch(/^At 1,000,000 rows, fitted from 100,000–1,600,000 rows \(5 sizes, n = 15 \+ 15\): /);
    expect(p.sentence).toMatch(/as long as VACUUM \(INDEX_CLEANUP on\) \(95 % CI /);
    // One rule for every answer: the 2 declared pairs share the 95 % (Bonferroni), and this interval excludes 1.
    expect(p.decision).toBe('differs');
    expect(p.sentence).toMatch(/ over 2 pairs \(Bonferroni\)\)/);
    expect(p.crossing!.x).toBeGreaterThan(300_000);
    expect(p.crossing!.x).toBeLessThan(550_000);
    expect(p.crossing!.lowerAbove).toBe('1-1');
    expect(p.crossing!.sentence).toMatch(/^VACUUM \(INDEX_CLEANUP on\) is faster above ≈ /);
    expect(p.fits.map((f) => f.heldOut.length)).toEqual([5, 5]);
    expect(p.heldOutMaxAbsErrorPct!).toBeLessThan(15);
    expect(p.command).toBe('tunelab run vacuum-index-cleanup --param rows=1000000 --server 16');
    // Equal laws: an interval within ±10 % (the scenario's margin) is equivalence, as a paired run's would be.
    const same = g.pairs.find((x) => x.candidate === '2-2')!;
    expect(same.decision).toBe('equivalent');
    expect(same.sentence).toMatch(/as long as VACUUM \(FULL\): equivalent within ±10 % \(95 % CI 0\.9\d+–1\.0\d+×; /);
  });

  it('is undecided, never "no difference", when the interval holds both no change and a change beyond the margin', async () => {
    const doc = await load('vacuum-index-cleanup');
    // 2-2 is 8 % slower than 2-1, measured with ±60 % noise: the fits cannot tell.
    const law = { ...LAW, '2-2': (rows: number) => 1.08 * LAW['2-1'](rows) };
    const p = ask(doc, runsAt(doc, SCALES, law, {}, 1.2), 'rows', 1_000_000).groups[0]!.pairs.find(
      (x) => x.candidate === '2-2',
    )!;
    expect(p.ci95!.low!).toBeLessThan(0.9);
    expect(p.ci95!.high!).toBeGreaterThan(1.1);
    expect(p.decision).toBe('undecided');
    expect(p.sentence).toMatch(
      /: Undecided: drop indexes, VACUUM \(FULL\), re-create indexes is expected to take [\d.]+× as long as VACUUM \(FULL\), but the interval holds both no change and a change beyond ±10 % \(95 % CI /,
    );
  });

  it(`refuses beyond ${SCALE_EXTRAPOLATION_LIMIT}× the measured range, naming the command that measures it`, async () => {
    const doc = await load('vacuum-index-cleanup');
    const rows = runsAt(doc, SCALES, LAW);
    for (const [value, words] of [
      [40_000_000, /40,000,000 is 25× beyond the largest/],
      [10_000, /10,000 is 10× below the smallest/],
    ] as const) {
      const p = ask(doc, rows, 'rows', value).groups[0]!.pairs[0]!;
      expect(p.status).toBe('refused');
      expect(p.ratio).toBeNull();
      // The fit's crossing is no answer at a size refused (it was printed beside the refusal).
      expect(p.crossing).toBeNull();
      expect(p.sentence).toMatch(words);
      expect(p.sentence).toContain(`tunelab run vacuum-index-cleanup --param rows=${value} --server 16`);
    }
    // The command stays a value the parameter takes: a whole number inside its declared range.
    const def = doc.params.rows!;
    expect(def.type === 'integer' && def.min !== undefined && def.max !== undefined).toBe(true);
    if (def.type !== 'integer') return;
    for (const [value, measured] of [
      [0.0000001, def.min],
      [1.4, def.min],
      [1e15, def.max],
    ] as const)
      expect(ask(doc, rows, 'rows', value).groups[0]!.pairs[0]!.command).toBe(
        `tunelab run vacuum-index-cleanup --param rows=${measured} --server 16`,
      );
    // Within the limit it answers and says it extrapolates.
    const near = ask(doc, rows, 'rows', 3_200_000);
    expect(near.groups[0]!.pairs[0]!.status).toBe('answered');
    expect(near.groups[0]!.pairs[0]!.sentence).toMatch(/2× outside the measured range: an extrapolation/);
  });

  it('needs three measured scales, and keeps classes and majors apart', async () => {
    const doc = await load('vacuum-index-cleanup');
    const two = runsAt(doc, SCALES.slice(0, 2), LAW);
    const other = runsAt(doc, SCALES, LAW, { major: 17, db_version: '17.2' });
    const out = ask(doc, [...two, ...other], 'rows', 150_000);
    expect(out.groups.map((g) => g.major)).toEqual([16, 17]);
    const [p16, p17] = out.groups.map((g) => g.pairs[0]!);
    expect(p16!.status).toBe('insufficient-data');
    expect(p16!.sentence).toMatch(/^rows measured at 2 values \(100,000, 200,000\); an answer at any scale needs 3/);
    expect(p17!.status).toBe('answered');
  });

  it('reads the scale of a swept parameter from the sample’s point', async () => {
    const doc = await load('recovery-init-sync');
    const law = { fsync: (t: number) => 0.0004 * t, syncfs: (t: number) => 0.05 * t ** 0.2 };
    const rows = runsAt(doc, [3000, 10_000, 30_000], law).map((r) => ({
      ...r,
      point_param: 'tables',
      point_value: r.params['rows'] as number,
      params: { tables: r.params['rows'], drop_caches: false },
    }));
    const out = ask(doc, rows, 'tables', 20_000, 'restart_duration', 'lower-is-better');
    expect(out.groups).toHaveLength(1);
    expect(out.groups[0]!.params).toEqual({ drop_caches: false });
    expect(out.groups[0]!.pairs[0]!.status).toBe('answered');
  });

  it('throws ScaleQueryError for a scenario without a scale or another parameter', async () => {
    const ff = await load('fillfactor-hot-updates');
    expect(() => ask(ff, [], 'rows', 5, 'nopm', 'higher-is-better')).toThrow(ScaleQueryError);
    const vic = await load('vacuum-index-cleanup');
    expect(() => ask(vic, [], 'tables', 5)).toThrow(/scale parameter is rows, not tables/);
  });

  it('answers from the fitted curves alone, after a trip through JSON and the contract (as a page gets them)', async () => {
    const doc = await load('vacuum-index-cleanup');
    const rows = runsAt(doc, SCALES, LAW);
    const curves = fitScaleCurves({ doc, rows, param: 'rows', metric: 'duration', direction: 'lower-is-better' });
    const shipped = ScaleCurves.parse(JSON.parse(JSON.stringify(curves)));
    for (const value of [400_000, 3_000_000, 10_000, 100_000_000])
      expect(answerCurvesAtScale(shipped, value)).toEqual(ask(doc, rows, 'rows', value));
    // The curves hold the lines' parameters, not the samples: a few hundred bytes per variant.
    expect(JSON.stringify(shipped.groups[0]!.curves[0]).length).toBeLessThan(1000);
    expect(answersAtScale(shipped, shipped.groups[0]!)).toBe(true);
    expect(() => answerCurvesAtScale(shipped, 0)).toThrow(RangeError);
  });

  it('keeps two release lines of one engine apart (MariaDB 10.6 and 10.11 are two groups)', async () => {
    const doc = await load('vacuum-index-cleanup');
    const at = (minor: number) =>
      runsAt(doc, SCALES, LAW, { engine: 'mariadb', db_version: `10.${minor}.9-MariaDB`, major: 10, minor });
    const curves = fitScaleCurves({
      doc,
      rows: [...at(6), ...at(11)],
      param: 'rows',
      metric: 'duration',
      direction: 'lower-is-better',
    });
    expect(curves.groups.map((g) => g.server)).toEqual(['MariaDB 10.11', 'MariaDB 10.6']);
  });
});
