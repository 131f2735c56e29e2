/**
 * No answer field or sentence shows an impossible improvement of a positive quantity (a duration
 * more than 100% shorter, a size more than 100% smaller, a negative mean) — over generated
 * samples, from steady to wildly noisy, through the grouping, the family's Bonferroni level, the verdict
 * words and the versions view, as the API gives them.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '@tunelab/stats';
import { groupSamples, type SampleRow } from './groups.ts';
import { answerVersions } from './versions.ts';
import { testRow } from './test-rows.ts';

const UNITS = ['s', 'ms', 'tps', 'NOPM', 'MB', 'bytes', 'count', '%'] as const;
const CASES = 200;

function generated(seed: number, unit: string): SampleRow[] {
  const random = seededRandom(seed);
  // Log-uniform levels over six orders of magnitude, a spread from 1% to 300%, 3 to 8 runs.
  const level = () => 10 ** (random() * 6 - 3);
  const rows: SampleRow[] = [];
  for (const major of [16, 17])
    for (const point of [1, 2])
      for (const variant of ['a', 'b', 'c']) {
        const center = level();
        const spread = 0.01 + random() * 3;
        const n = 3 + Math.floor(random() * 6);
        for (let i = 0; i < n; i += 1)
          rows.push(
            testRow({
              variant,
              point_param: 'vus',
              point_value: point,
              repetition: i + 1,
              // Positive: a log-normal-ish value around the center.
              value: center * Math.exp(spread * (random() - 0.5) * 2),
              unit,
              run_id: `00000000-0000-4000-8000-0000000${String(major)}${String(point)}00`,
              scenario_key: 'generated',
              comparisons: [
                { baseline: 'a', candidate: 'b' },
                { baseline: 'a', candidate: 'c' },
              ],
              db_version: `${major}.1`,
              major,
              minor: 1,
            }),
          );
      }
  return rows;
}

/** Every "N% <word>" in a sentence. */
const percents = (s: string, word: string) =>
  [...s.matchAll(new RegExp(`(\\d+(?:\\.\\d+)?)% ${word}`, 'g'))].map((m) => Number(m[1]));

describe('answers over generated positive samples', () => {
  it.each(UNITS)('no field or sentence reaches an impossible value (unit %s)', (unit) => {
    for (let seed = 1; seed <= CASES / UNITS.length; seed += 1) {
      for (const direction of ['lower-is-better', 'higher-is-better'] as const) {
        const groups = groupSamples(generated(seed * 31 + unit.length, unit), {
          metric: 'm',
          source: 'measured',
          groupBy: 'class',
          direction,
        }).groups;
        for (const g of groups) {
          for (const v of g.variants) expect(v.ci95!.low!).toBeGreaterThanOrEqual(0);
          for (const c of g.comparisons) {
            expect(c.adjusted!.family).toBe(4);
            expect(c.adjusted!.method).toBe('bonferroni');
            expect(c.adjusted!.p).toBeLessThanOrEqual(1);
            const ci = c.ci95!;
            // One rule: a change is called exactly when the printed interval excludes none.
            expect(c.verdict.significant).toBe(ci.low! > 0 || ci.high! < 0);
            expect(c.verdict.significant).toBe(c.adjusted!.p < 0.05);
            if (direction === 'lower-is-better') {
              expect(c.improvement!).toBeLessThan(1);
              expect(ci.high!).toBeLessThanOrEqual(1);
            } else {
              expect(c.improvement!).toBeGreaterThan(-1);
              expect(ci.low!).toBeGreaterThanOrEqual(-1);
            }
            const s = c.verdict.sentence;
            expect(s).not.toMatch(/NaN|∞/);
            // What shrinks cannot shrink by more than all of it: less time, a lower rate, a smaller amount.
            const shrink = ['s', 'ms'].includes(unit) ? 'faster' : ['tps', 'NOPM'].includes(unit) ? 'slower' : 'lower';
            for (const x of percents(s, shrink)) expect(x).toBeLessThanOrEqual(100);
            // Sizes and counts are never faster or slower.
            if (['MB', 'bytes', 'count', '%'].includes(unit)) expect(s).not.toMatch(/faster|slower/);
          }
        }
        const answered = groups.map((g) => ({
          group: g,
          name: g.key,
          pairs: g.comparisons.map((c) => ({
            baseline: c.baseline,
            candidate: c.candidate,
            measured: c,
            agreement: 'no-article' as const,
            reasons: [],
            notes: [],
            article: null,
            advice: '',
            sentence: 'no article figure',
          })),
        }));
        for (const c of answerVersions(answered).comparisons)
          for (const i of c.interactions) {
            expect(i.method).toBe('log-ratio');
            expect(i.ci95.low!).toBeGreaterThanOrEqual(0);
            expect(i.estimate).toBeGreaterThan(0);
          }
      }
    }
  });
});
