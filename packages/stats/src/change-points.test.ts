import { describe, expect, it } from 'vitest';
import reference from './change-point-reference-values.json' with { type: 'json' };
import { detectChangePoints, eDivisive, energyCandidate, segmentTTest } from './change-points.ts';

// Apache Otava's published test cases (github.com/apache/otava, tests/analysis_test.py,
// tests/change_point_divisive_test.py, tests/series_test.py, tests/tigerbeetle_test.py): the
// same series, options and expected change-point indices.

const indexes = (series: readonly number[], options: Parameters<typeof detectChangePoints>[1]) =>
  detectChangePoints(series, options).map((c) => c.index);

describe("the t-test against SciPy's ttest_ind_from_stats (scripts/change-point-reference.py)", () => {
  it.each(reference.cases)('$name', (c) => {
    const t = segmentTTest(c.left, c.right);
    expect(t.meanBefore).toBeCloseTo(c.meanBefore, 10);
    expect(t.meanAfter).toBeCloseTo(c.meanAfter, 10);
    expect(t.sdBefore).toBeCloseTo(c.sdBefore, 10);
    expect(t.sdAfter).toBeCloseTo(c.sdAfter, 10);
    expect(Math.abs(t.p - c.p)).toBeLessThanOrEqual(Math.max(1e-6 * c.p, 1e-15));
  });
  it('answers p = 1 for two points in all, as Otava does', () => {
    expect(segmentTTest([1], [2]).p).toBe(1);
  });
});

describe('analysis_test.py', () => {
  const SINGLE = [
    1.02, 0.95, 0.99, 1.0, 1.12, 1.0, 1.01, 0.98, 1.01, 0.96, 0.5, 0.51, 0.48, 0.48, 0.55, 0.5, 0.49, 0.51, 0.5, 0.49,
  ];
  it('test_single_series: window 10, p 0.0001 → [10]', () => {
    expect(indexes(SINGLE, { windowLength: 10, maxP: 0.0001 })).toEqual([10]);
  });
  it('test_significance_tester: flat halves are not significant, a 20 % drop is', () => {
    const flat = segmentTTest([1.0, 1.02, 1.05, 0.95, 0.98], [1.0, 1.02, 1.05, 0.95, 0.98]);
    expect(flat.p).toBeGreaterThan(0.99);
    expect(flat.p).toBeLessThan(1.01);
    const step = segmentTTest([1.0, 1.02, 1.05, 0.95, 0.98], [0.8, 0.82, 0.85, 0.79, 0.77]);
    expect(step.p).toBeGreaterThan(0);
    expect(step.p).toBeLessThan(0.001);
  });
});

describe('change_point_divisive_test.py', () => {
  const SEQUENCE = [0.3, 2.4, 1.5, -0.9, -0.5, 99.7, 98.3, 99.1, 149.0, 149.7, 149.5, 149.1, 148.8, 150.0];

  // The test's compute_Q_and_candidate_slow: Q̂ of every split by its definition.
  function slowCandidate(s: readonly number[]): { index: number; qhat: number } {
    let best = { index: -1, qhat: 0 };
    for (let tau = 1; tau < s.length; tau += 1)
      for (let kappa = tau + 1; kappa <= s.length; kappa += 1) {
        const x = s.slice(0, tau);
        const y = s.slice(tau, kappa);
        const [n, m] = [x.length, y.length];
        let a = 0;
        for (const xi of x) for (const yj of y) a += Math.abs(xi - yj);
        let b = 0;
        for (let i = 0; i < n; i += 1) for (let k = i + 1; k < n; k += 1) b += Math.abs(x[i]! - x[k]!);
        let c = 0;
        for (let j = 0; j < m; j += 1) for (let k = j + 1; k < m; k += 1) c += Math.abs(y[j]! - y[k]!);
        const q =
          (2 / (m + n)) * a -
          (n > 1 ? ((2 * m) / (m + n) / (n - 1)) * b : 0) -
          (m > 1 ? ((2 * n) / (m + n) / (m - 1)) * c : 0);
        if (q > best.qhat) best = { index: tau, qhat: q };
      }
    return best;
  }

  it('test_calculator_candidate: the candidate and its Q̂ match the definition', () => {
    const slow = slowCandidate(SEQUENCE);
    const fast = energyCandidate(SEQUENCE, 0, SEQUENCE.length)!;
    expect(fast.index).toBe(slow.index);
    expect(fast.qhat).toBeCloseTo(slow.qhat, 9);
  });
  it('test_ttest: E-divisive with the t-test at p 0.01 → [5, 8]', () => {
    expect(eDivisive(SEQUENCE, 0.01).map((c) => c.index)).toEqual([5, 8]);
  });
});

describe('series_test.py (Otava defaults: window 50, p 0.001)', () => {
  const SERIES_1 = [1.02, 0.95, 0.99, 1.0, 1.12, 0.9, 0.5, 0.51, 0.48, 0.48, 0.55];
  const SERIES_2 = [2.02, 2.03, 2.01, 2.04, 1.82, 1.85, 1.79, 1.81, 1.8, 1.76, 1.78];
  it('test_change_point_detection: series1 → [6], series2 → [4]', () => {
    expect(indexes(SERIES_1, {})).toEqual([6]);
    expect(indexes(SERIES_2, {})).toEqual([4]);
  });
  it('test_change_point_min_magnitude: at 0.2 only series1 → [6], every magnitude ≥ 0.2', () => {
    const points = detectChangePoints(SERIES_1, { minMagnitude: 0.2 });
    expect(points.map((c) => c.index)).toEqual([6]);
    expect(points.every((c) => c.magnitude >= 0.2)).toBe(true);
    expect(indexes(SERIES_2, { minMagnitude: 0.2 })).toEqual([]);
  });
  it('test_div_by_zero: two changes, the first at 3', () => {
    const points = indexes([0.0, 0.0, 0.0, 1.0, 1.12, 0.9, 0.5, 0.51, 0.48, 0.48, 0.55], {});
    expect(points).toHaveLength(2);
    expect(points[0]).toBe(3);
  });
});

describe('tigerbeetle_test.py (window 30)', () => {
  // prettier-ignore
  const TB = [26705, 26475, 26641, 26806, 26835, 26911, 26564, 26812, 26874, 26682, 15672, 26745, 26460, 26977, 26851, 23412, 23547, 23674, 23519, 23670, 23662, 23462, 23750, 23717, 23524, 23588, 23687, 23793, 23937, 23715, 23570, 23730, 23690, 23699, 23670, 23860, 23988, 23652, 23681, 23798, 23728, 23604, 23523, 23412, 23685, 23773, 23771, 23718, 23409, 23739, 23674, 23597, 23682, 23680, 23711, 23660, 23990, 23938, 23742, 23703, 23536, 24363, 24414, 24483, 24509, 24944, 24235, 24560, 24236, 24667, 24730, 28346, 28437, 28436, 28057, 28217, 28456, 28427, 28398, 28250, 28331, 28222, 28726, 28578, 28345, 28274, 28514, 28590, 28449, 28305, 28411, 28788, 28404, 28821, 28580, 27483, 26805, 27487, 27124, 26898, 27295, 26951, 27312, 27660, 27154, 27050, 26989, 27193, 27503, 27326, 27375, 27513, 27057, 27421, 27574, 27609, 27123, 27824, 27644, 27394, 27836, 27949, 27702, 27457, 27272, 28207, 27802, 27516, 27586, 28005, 27768, 28543, 28237, 27915, 28437, 28342, 27733, 28296, 28524, 28687, 28258, 28611, 29360, 28590, 29641, 28965, 29474, 29256, 28611, 28205, 28539, 27962, 28398, 28509, 28240, 28592, 28102, 28461, 28578, 28669, 28507, 28535, 28226, 28536, 28561, 28087, 27953, 28398, 28007, 28518, 28337, 28242, 28607, 28545, 28514, 28377, 28010, 28412, 28633, 28576, 28195, 28637, 28724, 28466, 28287, 28719, 28425, 28860, 28842, 28604, 28327, 28216, 28946, 28918, 29287, 28725, 29148, 29541, 29137, 29628, 29087, 28612, 29154, 29108, 28884, 29234, 28695, 28969, 28809, 28695, 28634, 28916, 29852, 29389, 29757, 29531, 29363, 29251, 29552, 29561, 29046, 29795, 29022, 29395, 28921, 29739, 29257, 29455, 29376, 29528, 28909, 29492, 28984, 29621, 29026, 29457, 29102, 29114, 28924, 29162, 29259, 29554, 29616, 29211, 29367, 29460, 28836, 29645, 29586, 28848, 29324, 28969, 29150, 29243, 29081, 29312, 28923, 29272, 29117, 29072, 29529, 29737, 29652, 29612, 29856, 29012, 30402, 29969, 29309, 29439, 29285, 29421, 29023, 28772, 29692, 29416, 29267, 29542, 29904, 30045, 29739, 29945, 29141, 29163, 29765, 29197, 29441, 28910, 29504, 29614, 29643, 29506, 29420, 29672, 29432, 29784, 29888, 29309, 29247, 29816, 29254, 29813, 29451, 29382, 29618, 28558, 29845, 29499, 29283, 29184, 29246, 28790, 29952, 29145, 29415, 30437, 29227, 29605, 29859, 29156, 29807, 29406, 29734, 29861, 29140, 29983, 29832, 29919, 29896, 29991, 29266, 29001, 29459, 29548, 29310, 29042, 29303, 29894, 29091, 29018, 29537, 29614, 29180, 29736, 29500, 29218, 29581, 28906, 28542, 29306, 28987, 29878, 28865, 30272, 29707, 29662, 29815, 30492, 29347, 30096, 29054, 30238, 28813, 31895, 28915];
  it.each([
    { name: 'test_tb_old_defaults', maxP: 0.01, minMagnitude: 0.05, expected: [15, 71] },
    { name: 'test_tb_old_defaults_p05', maxP: 0.05, minMagnitude: 0.05, expected: [15, 71] },
    { name: 'test_tb_old_defaults_p1', maxP: 0.1, minMagnitude: 0.05, expected: [10, 11, 15, 71, 363] },
    { name: 'test_tb_old_defaults_p2', maxP: 0.2, minMagnitude: 0.05, expected: [10, 11, 15, 71] },
    // prettier-ignore
    { name: 'test_tb_magnitude0_p2', maxP: 0.2, minMagnitude: 0, expected: [3, 6, 7, 10, 11, 13, 15, 16, 28, 29, 35, 37, 39, 41, 44, 48, 49, 56, 58, 61, 65, 66, 69, 71, 74, 76, 82, 95, 108, 117, 125, 126, 129, 131, 136, 137, 142, 148, 165, 169, 187, 190, 192, 197, 200, 212, 220, 241, 243, 246, 247, 249, 250, 260, 265, 266, 268, 278, 282, 288, 305, 306, 325, 330, 337, 338, 340, 347, 349, 363] },
    // prettier-ignore
    { name: 'test_tb_magnitude0_p1', maxP: 0.1, minMagnitude: 0, expected: [3, 6, 10, 11, 15, 16, 28, 29, 35, 37, 39, 41, 44, 48, 49, 61, 71, 95, 117, 131, 142, 148, 165, 169, 192, 206, 212, 260, 265, 268, 278, 282, 288, 305, 363] },
  ])('$name: p $maxP, magnitude $minMagnitude', ({ maxP, minMagnitude, expected }) => {
    expect(indexes(TB, { windowLength: 30, maxP, minMagnitude })).toEqual(expected);
  });

  // Otava finds the one-point drop at 10 as two changes (10 and 11) at p 0.1 and 0.2, and the last
  // point's jump (363) at 0.1; with segments of at least 2 or 3 points only the two steps remain.
  it.each([
    { minSegment: 2, maxP: 0.1 },
    { minSegment: 2, maxP: 0.2 },
    { minSegment: 3, maxP: 0.2 },
  ])('with segments of ≥ $minSegment points at p $maxP one outlier is no change: [15, 71]', ({ minSegment, maxP }) => {
    expect(indexes(TB, { windowLength: 30, maxP, minMagnitude: 0.05, minSegment })).toEqual([15, 71]);
  });
});

describe('bad options', () => {
  it.each([
    [{ windowLength: 1 }, /windowLength/],
    [{ maxP: 0 }, /maxP/],
    [{ minMagnitude: -1 }, /minMagnitude/],
    [{ minSegment: 0 }, /minSegment/],
  ])('%o is refused by name', (options, message) => {
    expect(() => detectChangePoints([1, 2, 3], options)).toThrow(message);
  });
  it('refuses a value that is not a finite number', () => {
    expect(() => detectChangePoints([1, Number.NaN, 3])).toThrow(/series\[1\]/);
  });
});
