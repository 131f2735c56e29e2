/**
 * What a run page says first: the scenario's metric per variant (and sweep point) as this run
 * measured it, and the answers it counts towards (the groups of the scenario's answers that hold
 * it, counted or left out). The environment, raw samples and server logs follow, folded.
 */
import type { RunDetail, ScenarioAnswers } from '@tunelab/contracts';
import { durationUnitLabel, formatValue } from './format.ts';

type RunMetricRow = { variant: string; point: number | null; n: number; mean: string; range: string };

/** The run's values of `metric`, per variant and sweep point in the order measured: n, mean and range, formatted as the answer cards format them. */
export function runMetricRows(run: Pick<RunDetail, 'samples'>, metric: string): { unit: string; rows: RunMetricRow[] } {
  const samples = run.samples.filter((s) => s.metric === metric);
  // The answer cards' formatter (durations in s), so a mean here reads as the card beside it does.
  const unit = samples[0]?.unit ?? '';
  const display = {
    label: unit === 's' ? durationUnitLabel('s') : unit,
    format: (v: number) => formatValue(v, unit, 's'),
  };
  const cells = new Map<string, { variant: string; point: number | null; values: number[] }>();
  for (const s of samples) {
    const point = s.point?.value ?? null;
    const key = `${point ?? ''}\u0000${s.variant}`;
    const cell = cells.get(key) ?? { variant: s.variant, point, values: [] };
    cell.values.push(s.value);
    cells.set(key, cell);
  }
  // Sweep points in order (sort is stable: variants keep the order they were measured in).
  const rows = [...cells.values()]
    .sort((a, b) => (a.point ?? -Infinity) - (b.point ?? -Infinity))
    .map((c) => {
      const mean = c.values.reduce((a, b) => a + b, 0) / c.values.length;
      const lo = Math.min(...c.values);
      const hi = Math.max(...c.values);
      return {
        variant: c.variant,
        point: c.point,
        n: c.values.length,
        mean: display.format(mean),
        range: c.values.length > 1 ? `${display.format(lo)} – ${display.format(hi)}` : '—',
      };
    });
  return { unit: display.label, rows };
}

/** Per scenario's answers, the groups holding each run: indexed once, not scanned again for each run page. */
const holdingOf = new WeakMap<ScenarioAnswers, Map<string, ScenarioAnswers['groups']>>();

/** The groups of the scenario's answers that hold this run: counted towards the verdict, or left out (and why). */
export function answersHolding(answers: ScenarioAnswers | null, runId: string): ScenarioAnswers['groups'] {
  if (!answers) return [];
  let byRun = holdingOf.get(answers);
  if (!byRun) {
    byRun = new Map();
    for (const a of [...answers.groups, ...answers.leftOut])
      for (const id of new Set(a.group.runs.map((r) => r.id))) {
        const list = byRun.get(id);
        if (list) list.push(a);
        else byRun.set(id, [a]);
      }
    holdingOf.set(answers, byRun);
  }
  return byRun.get(runId) ?? [];
}
