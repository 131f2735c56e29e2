import { describe, expect, it } from 'vitest';
import { formatP, formatPercent, seededRandom, verdict, type Direction } from './index.ts';

// VACUUM timings in seconds from the published article (reference/published-results.json):
// variant 1-x uses INDEX_CLEANUP, 2-x drops and re-creates the indexes.
const PUBLISHED = {
  'server-1': {
    '1-1': [226, 222, 233, 224, 227],
    '1-2': [143, 146, 120, 117, 181],
    '2-1': [232, 272, 328, 259, 389],
    '2-2': [331, 220, 277, 398, 235],
  },
  'server-2': { '1-1': [867, 788, 796, 810, 919], '1-2': [731, 601, 634, 641, 740] },
  'server-3': { '1-1': [602, 619, 581, 676, 569], '1-2': [491, 576, 522, 500, 589] },
};

function compare(
  baseline: [string, number[]],
  candidate: [string, number[]],
  direction: Direction = 'lower-is-better',
) {
  return verdict({
    baseline: { label: baseline[0], values: baseline[1] },
    candidate: { label: candidate[0], values: candidate[1] },
    direction,
  });
}

describe('verdict on the published VACUUM data', () => {
  it('finds 1-2 37.5% faster than 1-1 on server 1, significantly', () => {
    const server = PUBLISHED['server-1'];
    const result = compare(['1-1', server['1-1']], ['1-2', server['1-2']]);
    expect(result.kind).toBe('faster');
    expect(result.relative).toBeCloseTo((226.4 - 141.4) / 226.4, 12);
    expect(result.p).toBeLessThan(0.05);
    expect(result.nBaseline).toBe(5);
    expect(result.nCandidate).toBe(5);
    expect(result.sentence).toBe('1-2 is 37.5% faster than 1-1 (95% CI 21.8%–50.1%, Welch p = 0.004, n = 5 + 5)');
  });

  it('finds the article’s ~20% on server 2 and ~12% on server 3', () => {
    const two = compare(['1-1', PUBLISHED['server-2']['1-1']], ['1-2', PUBLISHED['server-2']['1-2']]);
    expect(two.kind).toBe('faster');
    expect(two.sentence).toBe('1-2 is 19.9% faster than 1-1 (95% CI 9.7%–29.0%, Welch p = 0.003, n = 5 + 5)');
    const three = compare(['1-1', PUBLISHED['server-3']['1-1']], ['1-2', PUBLISHED['server-3']['1-2']]);
    expect(three.kind).toBe('faster');
    expect(three.sentence).toBe('1-2 is 12.1% faster than 1-1 (95% CI 1.7%–21.4%, Welch p = 0.029, n = 5 + 5)');
  });

  it('finds "almost no difference" between 2-1 and 2-2 not significant, and says 5 + 5 runs cannot tell', () => {
    const server = PUBLISHED['server-1'];
    const result = compare(['2-1', server['2-1']], ['2-2', server['2-2']]);
    expect(result.kind).toBe('no-significant-difference');
    expect(result.conclusive).toBe(false);
    // The interval (−29.7% to +38.7% of the time) cannot exclude a change that matters.
    expect(result.sentence).toBe(
      'Not enough repetitions to be sure whether 2-2 differs from 2-1: 2-2 is 1.3% faster, but the 95% CI, −38.7%–29.7%, cannot exclude a change beyond ±10.0% (Welch p = 0.93, n = 5 + 5)',
    );
    // The other way round the same numbers read as "slower", with the interval of the increase.
    expect(compare(['2-2', server['2-2']], ['2-1', server['2-1']]).sentence).toMatch(
      /^Not enough repetitions to be sure whether 2-1 differs from 2-2: 2-1 is 1\.3% slower, but the 95% CI, −\d/,
    );
  });

  it('says "no measurable difference" only when the interval lies within ±10%', () => {
    const a = [100, 101, 99, 100.5, 99.5, 100.2];
    const b = [100.3, 100.8, 99.4, 100.1, 99.9, 100.6];
    const result = compare(['a', a], ['b', b]);
    expect(result.kind).toBe('no-significant-difference');
    expect(result.conclusive).toBe(true);
    expect(result.sentence).toMatch(
      /^b and a show no measurable difference: the 95% CI of the change lies within ±10\.0% \(b is 0\.\d% (faster|slower), 95% CI/,
    );
  });

  it('decides the recovery article’s fsync vs syncfs at n = 3 + 3 from its interval, which excludes no change (Welch on the raw values: p = 0.050)', () => {
    const result = compare(['fsync', [13.7, 6.7, 8.0]], ['syncfs', [0.75, 0.33, 0.03]]);
    expect(result.kind).toBe('faster');
    expect(result.conclusive).toBe(true);
    expect(result.ci!.low).toBeGreaterThan(0);
    expect(result.p).toBeLessThan(0.05);
    expect(result.sentence).toMatch(
      /^syncfs is 96\.1% faster than fsync \(95% CI \d+\.\d%–99\.\d%, Welch p = 0\.0\d+, n = 3 \+ 3\)$/,
    );
  });

  it('calls the old variant slower, with the increase relative to the new one', () => {
    const server = PUBLISHED['server-1'];
    const result = compare(['1-2', server['1-2']], ['1-1', server['1-1']]);
    expect(result.kind).toBe('slower');
    expect(result.relative).toBeCloseTo(-(226.4 - 141.4) / 141.4, 12);
    expect(result.sentence).toMatch(
      /^1-1 is 60\.1% slower than 1-2 \(95% CI \d+\.\d%–\d+\.\d%, Welch p = 0\.004, n = 5 \+ 5\)$/,
    );
  });
});

describe('verdict for higher-is-better metrics', () => {
  it('reads a throughput gain as faster', () => {
    const result = compare(['A', [1000, 1010, 990, 1000]], ['B', [1120, 1130, 1110, 1120]], 'higher-is-better');
    expect(result.kind).toBe('faster');
    expect(result.relative).toBeCloseTo(0.12, 12);
    expect(result.sentence).toMatch(/^B is 12\.0% faster than A \(95% CI .*, Welch p < 0\.001, n = 4 \+ 4\)$/);
    expect(result.ci?.low).toBeLessThan(0.12);
    expect(result.ci?.high).toBeGreaterThan(0.12);
  });
});

describe('insufficient data', () => {
  it('needs minN runs per variant', () => {
    const result = compare(['1-1', [226, 222]], ['1-2', [143, 146, 120]]);
    expect(result).toMatchObject({
      kind: 'insufficient-data',
      relative: null,
      ci: null,
      p: null,
      nBaseline: 2,
      nCandidate: 3,
    });
    expect(result.sentence).toBe(
      'Not enough data to compare 1-2 with 1-1 (n = 3 + 2; at least 3 runs of each are needed)',
    );
    expect(
      verdict({
        baseline: { label: 'a', values: [1, 2] },
        candidate: { label: 'b', values: [3, 4] },
        direction: 'lower-is-better',
        minN: 2,
      }).kind,
    ).not.toBe('insufficient-data');
  });

  it('cannot judge identical constant samples', () => {
    const result = compare(['a', [5, 5, 5]], ['b', [5, 5, 5]]);
    expect(result.kind).toBe('insufficient-data');
    expect(result.sentence).toContain('no spread');
  });

  it('calls constant samples with different means a certain difference', () => {
    const result = compare(['a', [5, 5, 5]], ['b', [4, 4, 4]]);
    expect(result.kind).toBe('faster');
    expect(result.sentence).toBe('b is 20.0% faster than a (95% CI 20.0%–20.0%, Welch p < 0.001, n = 3 + 3)');
  });

  it('compares against a zero baseline by the absolute difference and its test', () => {
    // compress_fail_pct: 0% on every run of the plain table, about 9% on the compressed one.
    const fail = verdict({
      baseline: { label: 'plain', values: [0, 0, 0, 0] },
      candidate: { label: 'compressed', values: [8.9, 9.1, 8.95, 8.9] },
      direction: 'lower-is-better',
      quantity: 'amount',
      label: 'compression failures',
      unit: '%',
    });
    expect(fail.kind).toBe('slower');
    expect(fail.relative).toBeNull();
    expect(fail.p).toBeLessThan(1e-5);
    expect(fail.absolute?.difference).toBeCloseTo(8.9625, 10);
    expect(fail.absolute!.ci.low).toBeGreaterThan(8.5);
    expect(fail.sentence).toMatch(
      /^compressed's mean is 8\.96 percentage points higher than plain's \(plain's mean is 0, so a relative change is undefined: absolute difference, 95% CI 8\.\d+ to 9\.\d+ percentage points, Welch p < 0\.001, n = 4 \+ 4\)$/,
    );
    // Too few, too spread: not significant, still no "insufficient-data".
    const weak = compare(['a', [0, 0, 0]], ['b', [1, 2, 3]]);
    expect(weak.kind).toBe('no-significant-difference');
    expect(weak.absolute?.difference).toBe(2);
    expect(weak.sentence).toMatch(/^No significant difference between b and a: b's mean is 2 higher than a's/);
  });
});

describe('verdict input checks', () => {
  const ok = { label: 'a', values: [1, 2, 3] };
  it.each([
    [{ baseline: { label: 'a', values: [] }, candidate: ok }, /baseline\.values must not be empty/],
    [
      { baseline: ok, candidate: { label: 'b', values: [1, Number.NaN, 3] } },
      /candidate\.values\[1\] must be a finite number/,
    ],
    [{ baseline: { label: '', values: [1, 2, 3] }, candidate: ok }, /baseline\.label/],
    [{ baseline: ok, candidate: ok, alpha: 0 }, /alpha/],
    [{ baseline: ok, candidate: ok, minN: 1 }, /minN/],
  ])('rejects bad input %#', (input, message) => {
    expect(() => verdict({ direction: 'lower-is-better', ...input })).toThrow(RangeError);
    expect(() => verdict({ direction: 'lower-is-better', ...input })).toThrow(message);
  });

  it('rejects an unknown direction', () => {
    // @ts-expect-error — checked at run time for callers outside TypeScript
    expect(() => verdict({ baseline: ok, candidate: ok, direction: 'sideways' })).toThrow(RangeError);
  });
});

describe('formatting', () => {
  it.each([
    [0.0015, 'p = 0.002'],
    [0.93, 'p = 0.93'],
    [0.0004, 'p < 0.001'],
    [0.027, 'p = 0.027'],
    [0.0496, 'p = 0.0496'],
    [0.051, 'p = 0.051'],
    [1, 'p = 1.0'],
  ])('formats p = %s as "%s"', (p, text) => {
    expect(formatP(p)).toBe(text);
  });

  it('uses a true minus sign and never prints −0.0%', () => {
    expect(formatPercent(-0.23)).toBe('−23.0%');
    expect(formatPercent(-0.00001)).toBe('0.0%');
    expect(formatPercent(0.3754)).toBe('37.5%');
  });
});

describe('words per quantity and adjusted p-values', () => {
  const less = [100, 102, 98, 101];
  const more = [160, 158, 163, 161];
  it('says "lower" / "higher" for an amount, never faster or slower', () => {
    const wal = verdict({
      baseline: { label: 'ff100', values: more },
      candidate: { label: 'ff80', values: less },
      direction: 'lower-is-better',
      quantity: 'amount',
      label: 'WAL written',
    });
    expect(wal.kind).toBe('faster');
    expect(wal.sentence).toMatch(/^ff80's WAL written is 37\.\d% lower than ff100's \(95% CI /);
    expect(wal.sentence).not.toMatch(/faster|slower/);
  });

  it('reads a shorter duration as faster and a higher rate as faster, whatever the direction asked', () => {
    const d = verdict({
      baseline: { label: 'a', values: more },
      candidate: { label: 'b', values: less },
      direction: 'higher-is-better',
      quantity: 'duration',
    });
    expect(d.kind).toBe('slower');
    expect(d.sentence).toMatch(/^b is 37\.\d% faster than a/);
    const r = verdict({
      baseline: { label: 'a', values: less },
      candidate: { label: 'b', values: more },
      direction: 'higher-is-better',
      quantity: 'rate',
    });
    expect(r.kind).toBe('faster');
    expect(r.sentence).toMatch(/^b is 60\.\d% faster than a/);
  });

  it('over a family of decisions, its interval at 1 − alpha/family decides, with the p it inverts adjusted (Bonferroni)', () => {
    const base = {
      baseline: { label: '1-1', values: [226, 222, 233, 224, 227] },
      candidate: { label: '1-2', values: [200, 215, 190, 222, 205] },
      direction: 'lower-is-better' as const,
    };
    const raw = verdict(base);
    expect(raw.p).toBeLessThan(0.05);
    expect(raw.p).toBeGreaterThan(0.05 / 9);
    expect(raw.kind).toBe('faster');
    expect(raw.ci!.low).toBeGreaterThan(0);
    const family = verdict({ ...base, family: 9 });
    expect(family.kind).toBe('no-significant-difference');
    expect(family.level).toBeCloseTo(1 - 0.05 / 9, 12);
    // The wider interval now reaches no change: the words say so, and nothing contradicts them.
    expect(family.ci!.low).toBeLessThan(0);
    expect(family.ci!.high).toBeGreaterThan(0);
    expect(family.p).toBe(raw.p);
    expect(family.pAdjusted).toBeCloseTo(raw.p! * 9, 12);
    expect(family.sentence).toMatch(
      /^Not enough repetitions .*the 99\.4% CI, .*Welch p = 0\.0\d+, Bonferroni-adjusted p = 0\.\d+ \(9 tests\), n = 5 \+ 5\)$/,
    );
    // A family of one is the raw test.
    expect(verdict({ ...base, family: 1 })).toEqual(raw);
  });

  it('calls no difference exactly when its printed interval lies within the margin, else a change exactly when it excludes no change', () => {
    const random = seededRandom(4040);
    let checked = 0;
    for (let i = 0; i < 400; i++) {
      const n = 3 + Math.floor(random() * 6);
      const shift = 1 + (random() - 0.5) * 0.6;
      const spread = 0.02 + random() * 0.3;
      const draw = (m: number) => Array.from({ length: n }, () => m * (1 + spread * (random() - 0.5)));
      const family = 1 + Math.floor(random() * 9);
      const v = verdict({
        baseline: { label: 'a', values: draw(100) },
        candidate: { label: 'b', values: draw(100 * shift) },
        direction: 'lower-is-better',
        family,
      });
      if (v.ci === null) continue;
      checked++;
      const excludesNone = v.ci.low > 0 || v.ci.high < 0;
      const within = v.ci.low >= -0.1 && v.ci.high <= 0.1;
      // Within the margin it is an equivalence even where it excludes no change (as a paired run's).
      expect(v.kind !== 'no-significant-difference').toBe(excludesNone && !within);
      expect((v.pAdjusted ?? v.p!) < 0.05).toBe(excludesNone);
      expect(v.conclusive).toBe(excludesNone || within);
    }
    expect(checked).toBeGreaterThan(350);
  });
});
