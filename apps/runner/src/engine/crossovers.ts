import type { Comparison, ReportChart, RunNote, TimeSeriesPoint } from '@tunelab/contracts';
import { findCrossings } from '@tunelab/stats';

/**
 * For every series chart the scenario declares and every comparison pair: where, per repetition,
 * the candidate's curve crosses the baseline's (e.g. the row count at which a compressed table
 * overtakes a plain one). One `crossover` note per pair and repetition that has both curves.
 */
export function crossoverNotes(
  charts: readonly ReportChart[],
  pairs: readonly Comparison[],
  series: readonly TimeSeriesPoint[],
): RunNote[] {
  const notes: RunNote[] = [];
  for (const chart of charts) {
    if (chart.kind !== 'series') continue;
    const curve = (variant: string, repetition: number) =>
      series
        .filter((p) => p.metric === chart.metric && p.variant === variant && p.repetition === repetition && !p.point)
        .map((p) => ({ x: p.x, y: p.value }));
    const repetitions = [...new Set(series.map((p) => p.repetition))].sort((a, b) => a - b);
    for (const { baseline, candidate } of pairs) {
      for (const repetition of repetitions) {
        const a = curve(baseline, repetition);
        const b = curve(candidate, repetition);
        if (a.length < 2 || b.length < 2) continue;
        const crossings = findCrossings(a, b);
        const unit = chart.x_unit ? ` ${chart.x_unit}` : '';
        const text = crossings.length
          ? `${chart.metric}: ${crossings.map((c) => `${c.above === 'candidate' ? `${candidate} rises above` : `${candidate} falls below`} ${baseline} at x ≈ ${Math.round(c.x)}${unit}`).join('; ')}`
          : `${chart.metric}: the curves of ${baseline} and ${candidate} do not cross (${candidate} stays ${b[0]!.y > a[0]!.y ? 'above' : 'below'}) between x = ${Math.round(Math.max(a[0]!.x, b[0]!.x))} and ${Math.round(Math.min(a.at(-1)!.x, b.at(-1)!.x))}${unit}`;
        notes.push({ repetition, kind: 'crossover', text: `${baseline} vs ${candidate}: ${text}` });
      }
    }
  }
  return notes;
}
