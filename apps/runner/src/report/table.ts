import type { ReportFit, ReportRatio, RunSubmission, Sample, ScenarioDocument, SweepPoint } from '@tunelab/contracts';
import { fitByVariant, relativeDifference, verdict } from '@tunelab/stats';
import { cvOf, formatCv } from '../engine/stopping.ts';

/**
 * The end-of-run report in the style of the articles the scenarios reproduce: one row per
 * variant with every repetition and the mean, then per comparison pair the verdict sentence of
 * @tunelab/stats — the same the API and the site print ("1-2 is 37.5% faster than 1-1 (95% CI
 * …, Welch p = …, n = 5 + 5)", or no significant difference). A sweep gets one table per point.
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

function pad(cells: string[][]): string[] {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) =>
    r
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

const pointKey = (p: SweepPoint | undefined) => (p ? `${p.param}=${p.value}` : '');

/** What the table reads from a run. */
export type RunTableInput = Pick<RunSubmission, 'samples' | 'options' | 'notes' | 'warnings'>;

export function renderRunTable(doc: ScenarioDocument, run: RunTableInput): string {
  const out: string[] = [];
  out.push(`${doc.key} — ${doc.title}`);
  const points = new Map<string, SweepPoint | undefined>();
  for (const s of run.samples)
    if (s.variant !== 'fixture' && !points.has(pointKey(s.point))) points.set(pointKey(s.point), s.point);
  for (const point of points.values()) {
    if (point) out.push('', `━━ ${point.param} = ${point.value} ━━`);
    out.push(
      ...renderPoint(
        doc,
        run,
        run.samples.filter((s) => pointKey(s.point) === pointKey(point)),
      ),
    );
  }

  for (const fit of doc.report.fits ?? []) out.push('', ...renderFit(fit, run.samples));
  for (const ratio of doc.report.ratios ?? []) out.push('', ...renderRatio(doc, ratio, run.samples));

  const build = run.samples.find((s) => s.variant === 'fixture' && s.metric === 'build_duration');
  const restores = run.samples.filter((s) => s.metric === 'restore_duration').map((s) => s.value);
  if (build && restores.length) {
    const r = mean(restores);
    const ratio = build.value / r;
    // A restore that is not faster (a managed cluster restarts, a tiny fixture) is said as such.
    const verdictText =
      ratio >= 1.05
        ? `restore is ${ratio.toFixed(1)}× faster than a rebuild`
        : ratio > 0.95
          ? 'restore takes about as long as a rebuild'
          : `restore takes ${(1 / ratio).toFixed(1)}× as long as a rebuild`;
    out.push(
      '',
      `fixture: built once in ${build.value.toFixed(2)} s; restored from the template ${restores.length}× in ${r.toFixed(3)} s on average — ${verdictText}`,
    );
  }
  const stop = run.notes.find((n) => n.kind === 'stopping-rule');
  if (stop) out.push('', `stopped: ${stop.text}`);
  if (run.warnings.length) out.push('', 'warnings:', ...run.warnings.map((w) => `  - ${w}`));
  return out.join('\n');
}

/** report.fits: per variant, `metric` against `per` over every unit of the run (both recorded in the unit). */
function renderFit(fit: ReportFit, samples: readonly Sample[]): string[] {
  const rows = [['variant', fit.label, '95% CI', 'intercept', 'r²', 'units']];
  for (const { variant, fit: line, n } of fitByVariant(samples, fit.metric, fit.per)) {
    const ci = line?.slopeInterval
      ? `${(line.slopeInterval.low * fit.factor).toFixed(2)}–${(line.slopeInterval.high * fit.factor).toFixed(2)}`
      : '';
    rows.push(
      line
        ? [variant, (line.slope * fit.factor).toFixed(2), ci, line.intercept.toFixed(1), line.r2.toFixed(3), String(n)]
        : [variant, '(needs two or more distinct x)', '', '', '', String(n)],
    );
  }
  return [`fit: ${fit.metric} against ${fit.per}, least squares over every unit`, ...pad(rows)];
}

/** report.ratios: each variant's mean ÷ the baseline's over every unit of the run, 95% Fieller interval. */
function renderRatio(doc: ScenarioDocument, ratio: ReportRatio, samples: readonly Sample[]): string[] {
  const of = (variant: string) =>
    samples.filter((s) => s.metric === ratio.metric && s.variant === variant).map((s) => s.value);
  const base = of(ratio.baseline);
  if (base.length === 0) return [];
  const rows = [['variant', ratio.label, '95% CI', 'units']];
  for (const v of doc.variants) {
    const vs = of(v.key);
    if (vs.length === 0) continue;
    let ci = v.key === ratio.baseline ? 'baseline' : 'needs two units each';
    if (v.key !== ratio.baseline && vs.length >= 2 && base.length >= 2) {
      const d = relativeDifference(base, vs);
      ci =
        Number.isFinite(d.ci.low) && Number.isFinite(d.ci.high)
          ? `${(1 + d.ci.low).toFixed(2)}–${(1 + d.ci.high).toFixed(2)}`
          : 'unbounded';
    }
    rows.push([v.key, (mean(vs) / mean(base)).toFixed(2), ci, String(vs.length)]);
  }
  return [`ratio: ${ratio.metric} ÷ ${ratio.baseline}, mean over every unit`, ...pad(rows)];
}

/** The tables and verdicts of one sweep point (or of the whole run when there is no sweep). */
function renderPoint(doc: ScenarioDocument, run: RunTableInput, samples: readonly Sample[]): string[] {
  const out: string[] = [];
  const reps = Math.max(...samples.map((s) => s.repetition));
  const values = (variant: string, metric: string) =>
    samples.filter((s) => s.variant === variant && s.metric === metric).sort((a, b) => a.repetition - b.repetition);

  const untilStable = run.options?.untilStable !== undefined;
  // Timed metrics, and the one the report names first; without either, the first metric.
  const named = doc.metrics.filter((m) => m.source === 'timed' || m.key === doc.report.primary_metric);
  const primary = named.length ? named : doc.metrics.slice(0, 1);
  for (const m of primary) {
    out.push('', `${m.label ?? m.key} (${displayUnit(m.unit)}, ${m.better} is better)`);
    const rows: string[][] = [
      [
        'variant',
        'label',
        ...Array.from({ length: reps }, (_, i) => `#${i + 1}`),
        'mean',
        ...(untilStable ? ['CV'] : []),
      ],
    ];
    for (const v of doc.variants) {
      const vs = values(v.key, m.key);
      const cv = untilStable ? [vs.length >= 2 ? formatCv(cvOf(vs.map((s) => s.value))) : '—'] : [];
      rows.push([
        v.key,
        v.label,
        ...Array.from({ length: reps }, (_, i) => (vs[i] ? formatValue(vs[i].value, m.unit) : '—')),
        vs.length ? formatValue(mean(vs.map((s) => s.value)), m.unit) : '—',
        ...cv,
      ]);
    }
    out.push(...pad(rows));
    for (const c of doc.comparisons) {
      const b = values(c.baseline, m.key).map((s) => s.value);
      const k = values(c.candidate, m.key).map((s) => s.value);
      if (!b.length || !k.length) continue;
      const v = verdict({
        baseline: { label: c.baseline, values: b },
        candidate: { label: c.candidate, values: k },
        direction: m.better === 'lower' ? 'lower-is-better' : 'higher-is-better',
      });
      out.push(
        `${v.sentence}  (mean ${formatValue(mean(k), m.unit)} vs ${formatValue(mean(b), m.unit)} ${displayUnit(m.unit)})`,
      );
    }
  }

  const others = doc.metrics.filter((m) => !primary.includes(m));
  if (others.length) {
    out.push('', 'other metrics (mean over repetitions)');
    const rows: string[][] = [['metric', 'unit', ...doc.variants.map((v) => v.key)]];
    for (const m of others) {
      rows.push([
        m.key,
        displayUnit(m.unit),
        ...doc.variants.map((v) => {
          const vs = values(v.key, m.key);
          return vs.length ? formatValue(mean(vs.map((s) => s.value)), m.unit) : '—';
        }),
      ]);
    }
    out.push(...pad(rows));
  }
  return out;
}
