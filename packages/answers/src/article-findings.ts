/**
 * What the article found, from its own figures (published.json, imported as the article's runs):
 * every pair it compared on each of its machines, each ratio it published (report.ratios'
 * `published`) and each direction it stated without figures (`claims`). Where nothing is measured
 * the pages show these as the article's findings ("the article found …; not yet measured here"),
 * never as a measurement; the figures are the imported data's, never written here.
 */
import type { ArticleFigure, ArticleFinding } from '@tunelab/contracts';
import { articleFigure, articleMachine, belowResolution, type AnswerGroup, type ScenarioInput } from './answer.ts';
import { formatP } from './claims.ts';

/** A figure for people: four significant digits, grouped ("226.4", "1,708,000", "46.49"). */
const figure = (v: number) => Number(v.toPrecision(4)).toLocaleString('en-US');
const NOT_HERE = 'not yet measured here';

/** Durations are faster or slower; any other metric better or worse (the outcome is in the metric's direction). */
const TIME_UNITS = new Set(['s', 'ms', 'us', 'µs']);

/** "1-2 faster than 1-1", "no significant difference between 2-2 and 2-1" — the article's outcome in words. */
function outcomeWords(f: Pick<ArticleFigure, 'outcome'>, baseline: string, candidate: string, unit: string): string {
  const time = TIME_UNITS.has(unit);
  switch (f.outcome) {
    case 'faster':
      return `${candidate} ${time ? 'faster' : 'better'} than ${baseline}`;
    case 'slower':
      return `${candidate} ${time ? 'slower' : 'worse'} than ${baseline}`;
    case 'none':
      return `no significant difference between ${candidate} and ${baseline}`;
    case 'unknown':
      return `${candidate} and ${baseline} without a direction`;
  }
}

function comparisonFindings(scenario: ScenarioInput, groups: readonly AnswerGroup[]): ArticleFinding[] {
  return groups.flatMap((g) => {
    const machine = articleMachine(g);
    return g.comparisons.flatMap((c) => {
      const f = articleFigure(machine, c.baseline, c.candidate, undefined, scenario.published);
      if (!f) return [];
      const n = (v: string) => g.variants.find((x) => x.variant === v)?.n ?? 0;
      const single = n(c.baseline) <= 1 && n(c.candidate) <= 1;
      const values = [c.baseline, c.candidate]
        .filter((v) => f.values[v] !== undefined)
        .map(
          (v) =>
            `${belowResolution(f.values[v]!, g.unit, scenario.published) ?? `${figure(f.values[v]!)} ${g.unit}`} for ${v}`,
        )
        .join(' vs ');
      const evidence = single
        ? 'single figures, no spread'
        : [`n = ${n(c.baseline)} + ${n(c.candidate)}`, c.welch ? `Welch p ${formatP(c.welch.p)}` : null]
            .filter(Boolean)
            .join(', ');
      const at = f.point ? ` at ${f.point.param} = ${f.point.value.toLocaleString('en-US')}` : '';
      const where = f.stated ? f.label : 'its machine (hardware not stated)';
      const words = outcomeWords(f, c.baseline, c.candidate, g.unit);
      return [
        {
          baseline: c.baseline,
          candidate: c.candidate,
          unit: g.unit,
          figure: f,
          sentence: `the article found ${words} on ${where}${at}${values ? `: ${values}` : ''} (${evidence}); ${NOT_HERE}`,
        },
      ];
    });
  });
}

function ratioFindings(scenario: ScenarioInput, figures: Record<string, Record<string, number>>): ArticleFinding[] {
  return (scenario.doc.report.ratios ?? []).flatMap((r) => {
    const theirs = r.published ? figures[r.published] : undefined;
    if (!theirs) return [];
    return Object.entries(theirs)
      .filter(([v]) => v !== r.baseline)
      .map(([candidate, value]) => ({
        baseline: r.baseline,
        candidate,
        unit: '',
        figure: {
          kind: 'ratio' as const,
          machine: 'article',
          label: `the article’s ${r.label}`,
          stated: false,
          point: null,
          values: { [r.baseline]: 1, [candidate]: value },
          outcome: 'unknown' as const,
          sentence: `${r.label}: ${candidate} ${figure(value)} in the article`,
        },
        sentence: `the article found ${r.label} = ${figure(value)} for ${candidate}; ${NOT_HERE}`,
      }));
  });
}

const metricOf = (scenario: ScenarioInput, metric: string) => scenario.doc.metrics.find((m) => m.key === metric);

function claimFindings(scenario: ScenarioInput): ArticleFinding[] {
  return (scenario.published?.claims ?? []).map((c) => ({
    baseline: c.baseline,
    candidate: c.candidate,
    unit: '',
    figure: {
      kind: 'claim' as const,
      machine: 'article',
      label: 'the article (a direction it stated, without figures)',
      stated: false,
      point: null,
      values: {},
      outcome: c.outcome,
      sentence: c.basis,
    },
    sentence: `the article found ${outcomeWords(c, c.baseline, c.candidate, metricOf(scenario, c.metric)?.unit ?? '')} on ${metricOf(scenario, c.metric)?.label ?? c.metric} (a direction it stated, without figures); ${NOT_HERE}`,
  }));
}

/** Every finding of the article: its compared pairs per machine, then its published ratios, then its stated directions. */
export function articleFindings(input: {
  scenario: ScenarioInput;
  figures: Record<string, Record<string, number>>;
  articleGroups: readonly AnswerGroup[];
}): ArticleFinding[] {
  return [
    ...comparisonFindings(input.scenario, input.articleGroups),
    ...ratioFindings(input.scenario, input.figures),
    ...claimFindings(input.scenario),
  ];
}
