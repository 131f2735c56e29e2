import type { MetricDef, RunSubmission, ScenarioDocument } from '@tunelab/contracts';
import { cvOf, formatCv } from '../engine/stopping.ts';

/**
 * The end-of-run report in the style of the articles the scenarios reproduce: one row per
 * variant with every repetition and the mean, then one sentence per comparison pair
 * ("1-2 is 37.5% faster than 1-1"). Significance testing is @tunelab/stats' job, not this one.
 * Runs made with --until-stable also show each variant's coefficient of variation and, at the
 * end, why the run stopped (the `stopping-rule` note).
 */

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function formatValue(value: number, unit: string): string {
  if (unit === 'bytes') return (value / 1024 / 1024).toFixed(1); // shown in MB, see displayUnit
  if (unit === 's') return value.toFixed(3);
  if (unit === 'ms' || unit === 'MB' || unit === 'kB') return value.toFixed(1);
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function displayUnit(unit: string) {
  return unit === 'bytes' ? 'MB' : unit;
}

/** "faster"/"slower" for durations, "smaller"/"larger" for sizes, "lower"/"higher" otherwise. */
export function describeDifference(baseline: number, candidate: number, metric: Pick<MetricDef, 'unit' | 'better'>): { pct: number; word: string } {
  const time = metric.unit === 's' || metric.unit === 'ms';
  const size = ['bytes', 'kB', 'MB'].includes(metric.unit);
  if (baseline === 0) return { pct: 0, word: candidate === 0 ? 'the same as' : 'n/a vs' };
  const pct = (Math.abs(baseline - candidate) / Math.abs(baseline)) * 100;
  if (candidate === baseline) return { pct: 0, word: 'the same as' };
  const less = candidate < baseline;
  const word = time ? (less ? 'faster than' : 'slower than') : size ? (less ? 'smaller than' : 'larger than') : less ? 'lower than' : 'higher than';
  return { pct, word };
}

function pad(cells: string[][]): string[] {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd());
}

export function renderRunTable(doc: ScenarioDocument, run: RunSubmission): string {
  const out: string[] = [];
  out.push(`${doc.key} — ${doc.title}`);
  const reps = Math.max(...run.samples.map((s) => s.repetition));
  const values = (variant: string, metric: string) =>
    run.samples.filter((s) => s.variant === variant && s.metric === metric).sort((a, b) => a.repetition - b.repetition);

  const untilStable = run.params.until_stable === true;
  const primary = doc.metrics.filter((m) => m.source === 'timed');
  for (const m of primary) {
    out.push('', `${m.label ?? m.key} (${displayUnit(m.unit)}, ${m.better} is better)`);
    const rows: string[][] = [['variant', 'label', ...Array.from({ length: reps }, (_, i) => `#${i + 1}`), 'mean', ...(untilStable ? ['CV'] : [])]];
    for (const v of doc.variants) {
      const vs = values(v.key, m.key);
      const cv = untilStable ? [vs.length >= 2 ? formatCv(cvOf(vs.map((s) => s.value))) : '—'] : [];
      rows.push([v.key, v.label, ...Array.from({ length: reps }, (_, i) => (vs[i] ? formatValue(vs[i].value, m.unit) : '—')), vs.length ? formatValue(mean(vs.map((s) => s.value)), m.unit) : '—', ...cv]);
    }
    out.push(...pad(rows));
    for (const c of doc.comparisons) {
      const b = values(c.baseline, m.key).map((s) => s.value);
      const k = values(c.candidate, m.key).map((s) => s.value);
      if (!b.length || !k.length) continue;
      const d = describeDifference(mean(b), mean(k), m);
      out.push(`${c.candidate} is ${d.pct.toFixed(1)}% ${d.word} ${c.baseline}  (mean ${formatValue(mean(k), m.unit)} vs ${formatValue(mean(b), m.unit)}, n = ${k.length}+${b.length})`);
    }
  }

  const others = doc.metrics.filter((m) => m.source !== 'timed');
  if (others.length) {
    out.push('', 'other metrics (mean over repetitions)');
    const rows: string[][] = [['metric', 'unit', ...doc.variants.map((v) => v.key)]];
    for (const m of others) {
      rows.push([m.key, displayUnit(m.unit), ...doc.variants.map((v) => {
        const vs = values(v.key, m.key);
        return vs.length ? formatValue(mean(vs.map((s) => s.value)), m.unit) : '—';
      })]);
    }
    out.push(...pad(rows));
  }

  const build = run.samples.find((s) => s.variant === 'fixture' && s.metric === 'build_duration');
  const restores = run.samples.filter((s) => s.metric === 'restore_duration').map((s) => s.value);
  if (build && restores.length) {
    const r = mean(restores);
    out.push(
      '',
      `fixture: built once in ${build.value.toFixed(2)} s; restored from the template ${restores.length}× in ${r.toFixed(3)} s on average — restore is ${(build.value / r).toFixed(1)}× faster than a rebuild`,
    );
  }
  const stop = run.notes.find((n) => n.kind === 'stopping-rule');
  if (stop) out.push('', `stopped: ${stop.text}`);
  if (run.warnings.length) out.push('', 'warnings:', ...run.warnings.map((w) => `  - ${w}`));
  return out.join('\n');
}
