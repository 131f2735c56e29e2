/**
 * What the scenario page's side-by-side sections (per server version: VersionAnswer.astro; per
 * hardware class: ClassesAnswer.astro) print the same way: a row's verdict in a few words with
 * the p that decided it, and a mean with its unit.
 */
import type { VersionRow } from '@tunelab/contracts';
import { decidingP, notDifferentWords } from '@tunelab/answers';
import type { ClassAnswer } from './answer.ts';
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

/** The id of one pair across hardware classes (ClassDetail.astro), on the scenario page or its classes page. */
export const classPairId = (c: { server: string; baseline: string; candidate: string }, index: number) => {
  const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
  return `classes-${slug(c.server)}-${slug(`${c.candidate}-vs-${c.baseline}`)}-${index}`;
};
