/**
 * What a pair's answer claims, one claim per thing it is about, each with its own agreement: a
 * page puts a badge beside a sentence, and the badge must be about that sentence. A pair held
 * against a declared ratio the article published (fillfactor's size table) makes two claims: the
 * ratio (agreeing with the article or not) and the verdict on the metric itself (NOPM), which has
 * no article figure of its own. Also the magnitude of a verdict and the "% faster" of two means,
 * so that no app computes either.
 */
import type { Agreement, PairAnswer, PairComparison, RatioAnswer, UsedDirection } from '@tunelab/contracts';
import { formatLevel, UNBOUNDED_INTERVAL_TEXT } from '@tunelab/stats';

export type PairClaim = {
  /** `verdict`: the measured comparison on the answer's metric; `ratio`: the declared ratio held against the article's. */
  about: 'verdict' | 'ratio';
  /** "NOPM", "data size ÷ ff100". */
  subject: string;
  agreement: Agreement;
  /** The pair's advice (verdict), or "ff80 1.20 here, 1.21 in the article" (ratio). */
  text: string;
  /** A significant measured difference (worth bold type). */
  significant: boolean;
};

/**
 * The agreement of the measured verdict alone, when the pair's agreement is about a declared
 * ratio: the same steps `answerPair` takes for a pair without an article figure.
 */
function verdictAgreement(pair: Pick<PairAnswer, 'measured' | 'reasons'>): Agreement {
  const m = pair.measured;
  if (!m || m.verdict.kind === 'insufficient-data') return 'insufficient-data';
  if (m.verdict.kind === 'descriptive') return 'no-article';
  return pair.reasons.length > 0 ? 'not-comparable' : 'no-article';
}

const two = (v: number) => v.toFixed(2);

/** One claim per subject of a pair's answer, each with the agreement that belongs to it. */
export function pairClaims(
  pair: Pick<PairAnswer, 'measured' | 'agreement' | 'reasons' | 'article' | 'advice' | 'candidate' | 'baseline'>,
  metricLabel: string,
  ratios: readonly Pick<RatioAnswer, 'baseline' | 'label' | 'rows'>[],
): PairClaim[] {
  const significant = pair.measured?.verdict.significant ?? false;
  const art = pair.article;
  if (art?.kind !== 'ratio')
    return [{ about: 'verdict', subject: metricLabel, agreement: pair.agreement, text: pair.advice, significant }];
  // The ratio the article's figure is (answerPair labels it "the article’s <ratio label>").
  const ratio = ratios.find((r) => r.baseline === pair.baseline && art.label === `the article’s ${r.label}`);
  const subject = ratio?.label ?? art.label;
  const theirs = art.values[pair.candidate];
  const mine = ratio?.rows.find((r) => r.variant === pair.candidate)?.ratio ?? null;
  const here = mine === null ? 'not measured' : two(mine);
  return [
    { about: 'verdict', subject: metricLabel, agreement: verdictAgreement(pair), text: pair.advice, significant },
    {
      about: 'ratio',
      subject,
      agreement: pair.agreement,
      text: `${pair.candidate} ${here} here, ${theirs === undefined ? 'not published' : two(theirs)} in the article`,
      significant: false,
    },
  ];
}

const pct = (x: number) => `${(Math.abs(x) * 100).toFixed(1)}%`;

/** A p-value for people: two significant digits, "< 0.001" below that (never 4.5e-4). */
export const formatP = (p: number) => (p < 0.001 ? '< 0.001' : `= ${p.toPrecision(2)}`);

/**
 * The p a pair's verdict was decided by, in words: the p of the test its printed interval inverts,
 * Bonferroni-adjusted when the scenario declares several decisions ("Bonferroni-adjusted p = 0.012
 * over 3 decisions"), else plain ("p = 0.012"); measured in blocks, the confidence sequence's
 * always-valid p. Null without a test. Every page and report that prints a p beside a verdict
 * prints this one.
 */
export function decidingP(c: Pick<PairComparison, 'welch' | 'adjusted' | 'paired'> | null): {
  p: number;
  adjusted: boolean;
  text: string;
} | null {
  if (!c?.adjusted) return null;
  const { family } = c.adjusted;
  // Blocks: the always-valid p of the confidence sequence that decided, Bonferroni over the family.
  if (c.paired)
    return family > 1
      ? { p: c.adjusted.p, adjusted: true, text: `always-valid p ${formatP(c.adjusted.p)} over ${family} decisions` }
      : { p: c.paired.p, adjusted: false, text: `always-valid p ${formatP(c.paired.p)}` };
  return family > 1
    ? {
        p: c.adjusted.p,
        adjusted: true,
        text: `Bonferroni-adjusted p ${formatP(c.adjusted.p)} over ${family} decisions`,
      }
    : { p: c.adjusted.p, adjusted: false, text: `p ${formatP(c.adjusted.p)}` };
}

/** The level of a pair's interval: 95%, or 1 − 0.05/family when it shares alpha with others ("98.3%"). */
export function intervalLevelText(c: Pick<PairComparison, 'adjusted'>): string {
  const family = c.adjusted?.family ?? 1;
  return `${formatLevel(1 - 0.05 / family)}%`;
}

/**
 * "syncfs 37.5% better (95% CI 21.8%–50.1%), p = 0.002" (or "98.3% CI …, Bonferroni-adjusted p =
 * … over 3 decisions" when the scenario declares several): the size and confidence of a
 * significant verdict, in the metric's direction (better / worse); null for anything else.
 */
export function verdictMagnitude(candidate: string, c: PairComparison | null): string | null {
  if (!c || !c.verdict.significant || c.improvement === null) return null;
  const ci = c.ci95 && c.ci95.low !== null && c.ci95.high !== null ? { low: c.ci95.low, high: c.ci95.high } : null;
  const word = c.verdict.kind === 'faster' ? 'better' : 'worse';
  // An end that cannot be bounded (null) reads as in every other report: "unbounded".
  const level = intervalLevelText(c);
  const interval =
    c.ci95 === null
      ? ''
      : ci === null
        ? ` (${level} CI ${UNBOUNDED_INTERVAL_TEXT})`
        : c.improvement >= 0
          ? ` (${level} CI ${pct(ci.low)}–${pct(ci.high)})`
          : ` (${level} CI ${pct(ci.high)}–${pct(ci.low)})`;
  const p = decidingP(c)?.text ?? 'p n/a';
  return `${candidate} ${pct(c.improvement)} ${word}${interval}, ${p}`;
}

/**
 * The improvement of a candidate's mean over the baseline's in the metric's direction (0.375:
 * 37.5% less time, or 37.5% more throughput): an article's "% faster" where it printed none and
 * its runs are too few for a verdict. Null when the baseline's mean is 0 or the metric describes.
 */
export function meanImprovement(baselineMean: number, candidateMean: number, direction: UsedDirection): number | null {
  if (direction === 'descriptive' || baselineMean === 0 || !Number.isFinite(baselineMean)) return null;
  const change = (candidateMean - baselineMean) / Math.abs(baselineMean);
  const r = direction === 'lower-is-better' ? -change : change;
  return Number.isFinite(r) ? r : null;
}

/**
 * The words for a pair that is not a difference: measured in blocks, the decision of the paired
 * analysis ("equivalent within ±10.0%", "undecided after 12 blocks", "unstable: …"); before
 * blocks, "no measurable difference" when its interval lies within ±10%, else "not enough
 * repetitions to be sure". Every page and report that words such a pair in a phrase uses this.
 */
export function notDifferentWords(c: Pick<PairComparison, 'paired' | 'verdict'>): string {
  const p = c.paired;
  if (p) {
    const margin = `±${(p.margin * 100).toFixed(1)}%`;
    if (p.decision === 'equivalent') return `equivalent within ${margin}`;
    if (p.decision === 'unstable') return `unstable: its block-to-block noise exceeds the ${margin} margin`;
    return `undecided after ${p.blocks} blocks`;
  }
  return c.verdict.conclusive ? 'no measurable difference' : 'not enough repetitions to be sure';
}
