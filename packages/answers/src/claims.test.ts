import { describe, expect, it } from 'vitest';
import { decidingP, formatP, meanImprovement, pairClaims, verdictMagnitude } from './claims.ts';
import { comparePair } from './compare.ts';

// Durations of fillfactor-like runs: ff80 about 20% slower than ff100, one run of NOPM each.
const ff100 = [10.1, 10.3, 9.9, 10.2];
const ff80 = [12.2, 12.4, 11.9, 12.1];

describe('a pair’s claims each carry their own agreement', () => {
  it('a pair held against the article’s declared ratio says its verdict apart, with the verdict’s own agreement', () => {
    // One NOPM figure per variant: no verdict (insufficient data); the size ratio reproduces the article.
    const measured = comparePair('ff100', 'ff80', [2000], [1900], 'higher-is-better');
    expect(measured.verdict.kind).toBe('insufficient-data');
    const claims = pairClaims(
      {
        baseline: 'ff100',
        candidate: 'ff80',
        measured,
        agreement: 'reproduces',
        reasons: [],
        advice: 'ff80 vs ff100: not enough data yet',
        article: {
          kind: 'ratio',
          machine: 'article',
          label: 'the article’s data size ÷ ff100',
          stated: false,
          point: null,
          values: { ff100: 1, ff80: 1.21 },
          outcome: 'unknown',
          sentence: 'data size ÷ ff100: ff80 1.21 in the article, 1.20 here',
        },
      },
      'NOPM',
      [
        {
          baseline: 'ff100',
          label: 'data size ÷ ff100',
          rows: [{ variant: 'ff80', mean: 142.5, ratio: 1.2, interval: null, article: 1.21, agrees: true, units: 3 }],
        },
      ],
    );
    expect(claims).toEqual([
      expect.objectContaining({ about: 'verdict', subject: 'NOPM', agreement: 'insufficient-data' }),
      expect.objectContaining({
        about: 'ratio',
        subject: 'data size ÷ ff100',
        agreement: 'reproduces',
        text: 'ff80 1.20 here, 1.21 in the article',
      }),
    ]);
  });

  it('a pair held against a comparison makes one claim, with the pair’s agreement', () => {
    const measured = comparePair('ff100', 'ff80', ff100, ff80, 'lower-is-better');
    const claims = pairClaims(
      {
        baseline: 'ff100',
        candidate: 'ff80',
        measured,
        agreement: 'contradicts',
        reasons: [],
        advice: 'prefer ff100',
        article: null,
      },
      'duration',
      [],
    );
    expect(claims).toEqual([
      expect.objectContaining({ about: 'verdict', agreement: 'contradicts', significant: true }),
    ]);
  });
});

describe('numbers of a verdict for people', () => {
  it('says the magnitude in the metric’s direction with its interval, and small p-values without exponents', () => {
    const slower = comparePair('ff100', 'ff80', ff100, ff80, 'lower-is-better');
    expect(verdictMagnitude('ff80', slower)).toMatch(
      /^ff80 \d+\.\d% worse \(95% CI \d+\.\d%–\d+\.\d%\), p (= 0\.\d+|< 0\.001)$/,
    );
    const faster = comparePair('ff80', 'ff100', ff80, ff100, 'lower-is-better');
    expect(verdictMagnitude('ff100', faster)).toMatch(/^ff100 \d+\.\d% better/);
    // An end that cannot be bounded reads "unbounded", as in the verdict sentences and the site's tables.
    expect(verdictMagnitude('ff100', { ...faster, ci95: { low: null, high: 0.5 } })).toMatch(
      /^ff100 \d+\.\d% better \(95% CI unbounded\), p /,
    );
    expect(verdictMagnitude('x', comparePair('a', 'x', [1, 2, 3], [1, 2, 3], 'lower-is-better'))).toBeNull();
    const family = comparePair('ff80', 'ff100', ff80, ff100, 'lower-is-better', {
      decision: { family: 6, margin: 0.1 },
    });
    // The p beside a verdict is the one that decided it: Bonferroni's over the declared decisions,
    // printed beside the interval at the level that decided (1 − 0.05/6).
    expect(family.adjusted).toEqual({ method: 'bonferroni', p: Math.min(1, family.adjusted!.p), family: 6 });
    expect(decidingP(family)).toEqual({
      p: family.adjusted!.p,
      adjusted: true,
      text: `Bonferroni-adjusted p ${formatP(family.adjusted!.p)} over 6 decisions`,
    });
    if (family.verdict.significant)
      expect(verdictMagnitude('ff100', family)).toMatch(
        /^ff100 \d+\.\d% better \(99\.2% CI .*\), Bonferroni-adjusted p /,
      );
    expect(decidingP(faster)).toEqual({
      p: faster.adjusted!.p,
      adjusted: false,
      text: `p ${formatP(faster.adjusted!.p)}`,
    });
    const alone = comparePair('ff80', 'ff100', ff80, ff100, 'lower-is-better', {
      decision: { family: 1, margin: 0.1 },
    });
    expect(decidingP(alone)?.adjusted).toBe(false);
    expect(decidingP(null)).toBeNull();
    expect(formatP(0.000045)).toBe('< 0.001');
    expect(formatP(0.0091)).toBe('= 0.0091');
  });

  it('computes an article’s "% faster" from its means in the metric’s direction', () => {
    // The article's 0:03:46 vs 0:02:21: 37.6% less time.
    expect(meanImprovement(226, 141, 'lower-is-better')).toBeCloseTo(0.376, 3);
    expect(meanImprovement(2000, 2400, 'higher-is-better')).toBeCloseTo(0.2, 6);
    expect(meanImprovement(0, 1, 'lower-is-better')).toBeNull();
    expect(meanImprovement(1, 2, 'descriptive')).toBeNull();
  });
});
