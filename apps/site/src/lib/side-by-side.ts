/**
 * What the scenario page's side-by-side sections (per server version: VersionAnswer.astro; per
 * hardware class: ClassDetail.astro, both drawn by SideBySidePair.astro) print the same way: a
 * row's verdict in a few words with the p that decided it, a mean with its unit, a row as the
 * table and forest plot take it, when the rows were measured, and a pair's id.
 */
import type { ClassRow, VersionRow } from '@tunelab/contracts';
import { decidingP, notDifferentWords } from '@tunelab/answers';
import { AGREEMENT_TEXT, type ClassAnswer } from './answer.ts';
import { formatWithUnit } from './format.ts';

export const sideValue = (v: number | null | undefined, unit: string) =>
  v === null || v === undefined ? '—' : formatWithUnit(v, unit, 's');

/** "1-2 better, p = 0.002": a row's verdict (its sentence is the cell's title) and its deciding p. */
export function rowVerdictWord(
  groups: readonly ClassAnswer[],
  pair: { baseline: string; candidate: string },
  r: Pick<VersionRow, 'group' | 'verdict'>,
): string {
  // The p that decided the verdict (Bonferroni-adjusted over the scenario's decisions when there
  // are several), read from the row's group answer as every other verdict on the site prints it.
  const measured = groups
    .find((a) => a.group.key === r.group)
    ?.pairs.find((p) => p.baseline === pair.baseline && p.candidate === pair.candidate)?.measured;
  const decided = decidingP(measured ?? null);
  const p = decided ? `, ${decided.text}` : '';
  if (r.verdict.kind === 'faster') return `${pair.candidate} better${p}`;
  if (r.verdict.kind === 'slower') return `${pair.candidate} worse${p}`;
  if (r.verdict.kind === 'no-significant-difference')
    return `${notDifferentWords({ paired: measured?.paired, verdict: r.verdict })}${p}`;
  return r.verdict.kind === 'descriptive' ? 'descriptive: no verdict' : 'not enough data';
}

/** A row of either axis: a group's figures for the pair. */
type AxisRowOf = VersionRow | ClassRow;

/**
 * A comparison's row as PairAlongAxis.astro draws it; the axis names the row (`label`, its data-*
 * attributes `attrs`), the rest is the row's figures.
 */
export function axisRow(
  groups: readonly ClassAnswer[],
  c: { baseline: string; candidate: string; unit: string },
  r: AxisRowOf,
  place: { label: string; attrs: Record<string, string> },
) {
  return {
    ...place,
    title: r.serverVersions.join(', '),
    runCount: r.runCount,
    n: { baseline: r.baseline?.n ?? 0, candidate: r.candidate?.n ?? 0 },
    means: `${sideValue(r.baseline?.mean, c.unit)} → ${sideValue(r.candidate?.mean, c.unit)}`,
    improvement: r.improvement,
    ci95: r.ci95,
    significant: r.verdict.significant,
    verdict: rowVerdictWord(groups, c, r),
    verdictSentence: r.verdict.sentence,
    agreement: AGREEMENT_TEXT[r.agreement],
  };
}

/** The days a group's runs were received, in order. */
export const runDates = (groups: readonly ClassAnswer[], key: string) =>
  [
    ...new Set((groups.find((a) => a.group.key === key)?.group.runs ?? []).map((r) => r.receivedAt.slice(0, 10))),
  ].sort();

/** "PostgreSQL 17 2026-11-20 (3 runs); …": when each row, named by `label`, was measured. */
export const measuredWhen = <R extends AxisRowOf>(
  groups: readonly ClassAnswer[],
  rows: readonly R[],
  label: (r: R) => string,
) =>
  rows
    .map(
      (r) =>
        `${label(r)} ${runDates(groups, r.group).join(', ') || 'undated'} (${r.runCount} ${r.runCount === 1 ? 'run' : 'runs'})`,
    )
    .join('; ');

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();

/** The id of one pair along an axis ("versions", "classes") where `held` is held, on the scenario page or its classes page. */
export const pairId = (
  axis: 'versions' | 'classes',
  held: string,
  c: { baseline: string; candidate: string },
  index: number,
) => `${axis}-${slug(held)}-${slug(`${c.candidate}-vs-${c.baseline}`)}-${index}`;

/** The id of one pair across hardware classes (ClassDetail.astro), on the scenario page or its classes page. */
export const classPairId = (c: { server: string; baseline: string; candidate: string }, index: number) =>
  pairId('classes', c.server, c, index);

/**
 * Whether a pair across server versions shows its figures (forest plot, tables) on the scenario's
 * versions page only: the version does not change its answer, and the scenario has more than two
 * such pairs, so its page says the answer in a sentence and links the figures.
 */
export const versionFiguresElsewhere = (
  c: { versionChangesAnswer: boolean },
  comparisons: readonly { versionChangesAnswer: boolean }[],
) => !c.versionChangesAnswer && comparisons.length > 2;
