import { describe, expect, it } from 'vitest';
import { formatP, formatPercent, verdict, type Direction } from './index.ts';

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
    expect(result.sentence).toBe('1-2 is 37.5% faster than 1-1 (95% CI 21.8%–50.1%, Welch p = 0.002, n = 5 + 5)');
  });

  it('finds the article’s ~20% on server 2 and ~12% on server 3', () => {
    const two = compare(['1-1', PUBLISHED['server-2']['1-1']], ['1-2', PUBLISHED['server-2']['1-2']]);
    expect(two.kind).toBe('faster');
    expect(two.sentence).toBe('1-2 is 19.9% faster than 1-1 (95% CI 9.7%–29.0%, Welch p = 0.002, n = 5 + 5)');
    const three = compare(['1-1', PUBLISHED['server-3']['1-1']], ['1-2', PUBLISHED['server-3']['1-2']]);
    expect(three.kind).toBe('faster');
    expect(three.sentence).toBe('1-2 is 12.1% faster than 1-1 (95% CI 1.7%–21.4%, Welch p = 0.027, n = 5 + 5)');
  });

  it('finds "almost no difference" between 2-1 and 2-2 not significant', () => {
    const server = PUBLISHED['server-1'];
    const result = compare(['2-1', server['2-1']], ['2-2', server['2-2']]);
    expect(result.kind).toBe('no-significant-difference');
    expect(result.sentence).toBe(
      '2-2 and 2-1 show no significant difference (2-2 is 1.3% faster, 95% CI −38.7%–29.7%, Welch p = 0.93, n = 5 + 5)',
    );
    // The other way round the same numbers read as "slower", with the interval of the increase.
    expect(compare(['2-2', server['2-2']], ['2-1', server['2-1']]).sentence).toMatch(
      /^2-1 and 2-2 show no significant difference \(2-1 is 1\.3% slower, 95% CI −\d/,
    );
  });

  it('calls the old variant slower, with the increase relative to the new one', () => {
    const server = PUBLISHED['server-1'];
    const result = compare(['1-2', server['1-2']], ['1-1', server['1-1']]);
    expect(result.kind).toBe('slower');
    expect(result.relative).toBeCloseTo(-(226.4 - 141.4) / 141.4, 12);
    expect(result.sentence).toMatch(
      /^1-1 is 60\.1% slower than 1-2 \(95% CI \d+\.\d%–\d+\.\d%, Welch p = 0\.002, n = 5 \+ 5\)$/,
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

  it('has no relative difference against a zero baseline', () => {
    expect(compare(['a', [0, 0, 0]], ['b', [1, 2, 3]]).kind).toBe('insufficient-data');
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
