/**
 * A group's noise stated with its answer: from the pairs measured in paired blocks,
 * how much their ratios vary from block to block on this class, and the smallest difference the
 * evidence can tell from none — "on this class, differences under 6 % cannot be told apart". A
 * pair whose block-to-block spread exceeds its margin is counted unstable (the paired verdict's
 * `unstable`). Groups without blocks (runs stored before them) state none: their Welch answers
 * carry their own intervals.
 */
import type { GroupSpread, PairComparison } from '@tunelab/contracts';
import { formatPercent } from '@tunelab/stats';

type Paired = NonNullable<PairComparison['paired']>;

const range = (values: readonly number[]) => ({ low: Math.min(...values), high: Math.max(...values) });
const rangeText = (r: { low: number; high: number }) =>
  formatPercent(r.low) === formatPercent(r.high)
    ? formatPercent(r.low)
    : `${formatPercent(r.low)}–${formatPercent(r.high)}`;

/** The spread of a group's paired pairs; null when none was measured in blocks. */
export function groupSpread(comparisons: readonly Pick<PairComparison, 'paired'>[]): GroupSpread | null {
  const paired = comparisons.map((c) => c.paired).filter((p): p is Paired => p != null && p.blocks >= 2);
  if (paired.length === 0) return null;
  // The sd of the log ratios as a relative change, as the verdicts word it ("varies by 12.3 %").
  const sd = range(paired.map((p) => Math.expm1(p.sdLogRatio)));
  const bounded = paired.map((p) => p.detectable).filter((d): d is number => d !== null && Number.isFinite(d));
  const detectable = bounded.length > 0 ? range(bounded) : null;
  const blocks = range(paired.map((p) => p.blocks));
  const unstable = paired.filter((p) => p.decision === 'unstable').length;
  const blocksText = blocks.low === blocks.high ? `${blocks.low}` : `${blocks.low}–${blocks.high}`;
  const pairs = paired.length === 1 ? 'the pair’s ratio varies' : `the ${paired.length} pairs’ ratios vary`;
  const parts = [`On this class ${pairs} by ${rangeText(sd)} from block to block (${blocksText} paired blocks)`];
  if (detectable)
    parts.push(
      `differences under ${rangeText(detectable)}${paired.length > 1 && bounded.length > 1 && detectable.low !== detectable.high ? ' (by pair)' : ''} cannot be told apart`,
    );
  if (unstable > 0)
    parts.push(
      `${unstable === paired.length ? (paired.length === 1 ? 'it is' : 'all are') : `${unstable} of ${paired.length} ${unstable === 1 ? 'is' : 'are'}`} unstable: noisier than the ±${formatPercent(paired[0]!.margin)} margin`,
    );
  return {
    sdLogRatio: range(paired.map((p) => p.sdLogRatio)),
    detectable,
    blocks,
    unstable,
    sentence: parts.join('; '),
  };
}
