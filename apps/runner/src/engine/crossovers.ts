import type { RunNote, ScenarioDocument, TimeSeriesPoint } from '@tunelab/contracts';
import { declaredCrossings, meanCurve, type SeriesPoint } from '@tunelab/answers';

/**
 * For every series chart the scenario declares and every comparison pair: where, per repetition,
 * the candidate's curve crosses the baseline's (e.g. the row count at which a compressed table
 * overtakes a plain one). One `crossover` note per pair and repetition that has both curves. The
 * crossings are @tunelab/answers' `declaredCrossings` of that repetition's points — the one
 * crossing algorithm the closing report, the API and the site use.
 */
export function crossoverNotes(doc: ScenarioDocument, series: readonly TimeSeriesPoint[]): RunNote[] {
  const repetitions = [...new Set(series.map((p) => p.repetition))].sort((a, b) => a - b);
  const ofRepetition = new Map<number, SeriesPoint[]>(
    repetitions.map((repetition) => [
      repetition,
      series
        .filter((p) => p.repetition === repetition && !p.point)
        .map(({ point: _point, ...p }) => ({ ...p, run: 'this-run' })),
    ]),
  );
  const answered = new Map(repetitions.map((r) => [r, declaredCrossings(doc, ofRepetition.get(r)!)]));
  const notes: RunNote[] = [];
  for (const chart of doc.report.charts) {
    if (chart.kind !== 'series') continue;
    const unit = chart.x_unit ? ` ${chart.x_unit}` : '';
    for (const { baseline, candidate } of doc.comparisons) {
      for (const repetition of repetitions) {
        const found = answered
          .get(repetition)!
          .find((c) => c.metric === chart.metric && c.baseline === baseline && c.candidate === candidate);
        if (!found) continue;
        const points = ofRepetition.get(repetition)!;
        const a = meanCurve(points, chart.metric, baseline);
        const b = meanCurve(points, chart.metric, candidate);
        const text = found.crossings.length
          ? `${chart.metric}: ${found.crossings.map((c) => `${c.above === 'candidate' ? `${candidate} rises above` : `${candidate} falls below`} ${baseline} at x ≈ ${Math.round(c.x)}${unit}`).join('; ')}`
          : `${chart.metric}: the curves of ${baseline} and ${candidate} do not cross (${candidate} stays ${b[0]!.y > a[0]!.y ? 'above' : 'below'}) between x = ${Math.round(Math.max(a[0]!.x, b[0]!.x))} and ${Math.round(Math.min(a.at(-1)!.x, b.at(-1)!.x))}${unit}`;
        notes.push({ repetition, kind: 'crossover', text: `${baseline} vs ${candidate}: ${text}` });
      }
    }
  }
  return notes;
}
