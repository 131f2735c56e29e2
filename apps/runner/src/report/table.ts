import type {
  ComparisonGroupRecord,
  CrossingAnswer,
  FitAnswer,
  RatioAnswer,
  RunSubmission,
  Sample,
  ScenarioDocument,
  SweepPoint,
} from '@tunelab/contracts';
import { describeNoise } from '@tunelab/contracts';
import { AGREEMENT_TEXT, answerRun, pairClaims, type GroupAnswerOf } from '@tunelab/answers';
import type { LoadedScenario } from '@tunelab/scenarios';
import { cvOf, formatCv } from '../engine/stopping.ts';

/**
 * The end-of-run report in the style of the articles the scenarios reproduce: one row per
 * variant with every repetition and the mean, then per comparison pair what `@tunelab/answers`
 * answers for this run alone — the same engine behind the API's GET /v1/answers and the site:
 * the verdict in the metric's declared direction ("1-2 is 37.5% faster than 1-1 (95% CI …,
 * Welch p = …, n = 5 + 5)"; a descriptive metric gets none), and its agreement with the article
 * (reproduces / contradicts / inconclusive / not comparable / no article figure / not enough
 * data) with the reasons, then the declared ratios, fits and crossings. A sweep gets one table
 * per point. Runs made with --until-stable also show each variant's coefficient of variation
 * and, at the end, why the run stopped (the `stopping-rule` note).
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

const pointKey = (p: SweepPoint | null | undefined) => (p ? `${p.param}=${p.value}` : '');

/** The scenario the table reads: its document and the article's figures (published.json). */
export type TableScenario = Pick<LoadedScenario, 'doc' | 'published'>;

type Answered = GroupAnswerOf<ComparisonGroupRecord>;

export function renderRunTable(scenario: TableScenario, run: RunSubmission): string {
  const doc = scenario.doc;
  // The answers for this run alone, per metric the tables print (one group per sweep point).
  const answers = new Map<string, Answered[]>();
  const answersOf = (metric: string) => {
    let groups = answers.get(metric);
    if (!groups) {
      groups = answerRun({ doc, published: scenario.published, run, metric }).groups;
      answers.set(metric, groups);
    }
    return groups;
  };
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
        new Set((scenario.published?.file.claims ?? []).map((c) => c.metric)),
        run.samples.filter((s) => pointKey(s.point) === pointKey(point)),
        (metric) => answersOf(metric).find((g) => pointKey(g.group.point) === pointKey(point)),
      ),
    );
  }

  // Ratios, fits and crossings pool every unit of the run: any group of the run carries them.
  const measured = doc.metrics.find((m) => run.samples.some((s) => s.metric === m.key));
  const whole = measured ? answersOf(measured.key)[0] : undefined;
  for (const fit of whole?.fits ?? []) out.push('', ...renderFit(fit));
  for (const ratio of whole?.ratios ?? []) out.push('', ...renderRatio(ratio));
  const crossings = renderCrossings(whole?.crossings ?? []);
  if (crossings.length) out.push('', ...crossings);

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
  if (run.noise) out.push('', `noise: ${describeNoise(run.noise)}`);
  if (run.warnings.length) out.push('', 'warnings:', ...run.warnings.map((w) => `  - ${w}`));
  return out.join('\n');
}

/** report.fits as @tunelab/answers fits them: per variant, the slope × factor with its 95% interval. */
function renderFit(fit: FitAnswer): string[] {
  const rows = [['variant', fit.label, '95% CI', 'r²', 'units']];
  for (const r of fit.rows)
    rows.push([
      r.variant,
      r.slope.toFixed(2),
      r.interval ? `${r.interval.low.toFixed(2)}–${r.interval.high.toFixed(2)}` : '',
      r.r2.toFixed(3),
      String(r.units),
    ]);
  return [`fit: ${fit.metric} against ${fit.against}, least squares over every unit`, ...pad(rows)];
}

/** report.ratios as @tunelab/answers computes them: mean ÷ the baseline's, 95% Fieller interval, the article's ratio. */
function renderRatio(ratio: RatioAnswer): string[] {
  const withArticle = ratio.rows.some((r) => r.article !== null && r.variant !== ratio.baseline);
  const rows = [['variant', ratio.label, '95% CI', 'units', ...(withArticle ? ['article'] : [])]];
  for (const r of ratio.rows) {
    const ci =
      r.variant === ratio.baseline
        ? 'baseline'
        : r.interval === null
          ? 'needs two units each'
          : r.interval.low === null || r.interval.high === null
            ? 'unbounded'
            : `${r.interval.low.toFixed(2)}–${r.interval.high.toFixed(2)}`;
    const article =
      r.variant === ratio.baseline || r.article === null
        ? ''
        : `${r.article.toFixed(2)}${r.agrees === null ? '' : r.agrees ? ' (inside)' : ' (outside)'}`;
    rows.push([
      r.variant,
      r.ratio === null ? '—' : r.ratio.toFixed(2),
      ci,
      String(r.units),
      ...(withArticle ? [article] : []),
    ]);
  }
  return [`ratio: ${ratio.metric} ÷ ${ratio.baseline}, mean over every unit`, ...pad(rows)];
}

/** Where the declared series charts' mean curves cross (`findCrossings`, via @tunelab/answers). */
function renderCrossings(crossings: readonly CrossingAnswer[]): string[] {
  return crossings.map(({ metric, baseline, candidate, crossings: xs }) =>
    xs.length
      ? `crossing: ${metric}: ${xs.map((c) => `${candidate} ${c.above === 'candidate' ? 'rises above' : 'falls below'} ${baseline} at x ≈ ${Math.round(c.x)}`).join('; ')} (mean curves)`
      : `crossing: ${metric}: the mean curves of ${baseline} and ${candidate} do not cross`,
  );
}

/** The tables and verdicts of one sweep point (or of the whole run when there is no sweep). */
function renderPoint(
  doc: ScenarioDocument,
  run: RunSubmission,
  /** Metrics the article stated a direction for (published.json `claims`): their verdicts are printed too. */
  claimed: ReadonlySet<string>,
  samples: readonly Sample[],
  answered: (metric: string) => Answered | undefined,
): string[] {
  const out: string[] = [];
  const reps = Math.max(...samples.map((s) => s.repetition));
  const values = (variant: string, metric: string) =>
    samples.filter((s) => s.variant === variant && s.metric === metric).sort((a, b) => a.repetition - b.repetition);

  const untilStable = run.options?.untilStable !== undefined;
  // Timed metrics, the one the report names first and those the article stated a direction for;
  // without any, the first metric.
  const named = doc.metrics.filter(
    (m) => m.source === 'timed' || m.key === doc.report.primary_metric || claimed.has(m.key),
  );
  const primary = named.length ? named : doc.metrics.slice(0, 1);
  for (const m of primary) {
    out.push(
      '',
      `${m.label ?? m.key} (${displayUnit(m.unit)}, ${m.descriptive === true ? 'descriptive: no verdict' : `${m.better} is better`})`,
    );
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
    const group = answered(m.key);
    for (const pair of group?.pairs ?? []) {
      const c = pair.measured;
      if (!c) continue;
      const b = values(pair.baseline, m.key).map((s) => s.value);
      const k = values(pair.candidate, m.key).map((s) => s.value);
      if (!b.length || !k.length) continue;
      out.push(
        `${c.verdict.sentence}  (mean ${formatValue(mean(k), m.unit)} vs ${formatValue(mean(b), m.unit)} ${displayUnit(m.unit)})`,
        ...agreementLines(pair, m.key, group?.ratios ?? []),
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

/** "reproduces the article (…)" / "not comparable — scale: rows 2,000 here vs 200,000,000 in the article" */
export function agreementLine(pair: Answered['pairs'][number]): string {
  // A declared ratio's sentence starts with its own label ("data size ÷ ff100: ff80 1.21 in the article, 1.20 here").
  const figure = pair.article
    ? ` (${pair.article.kind === 'ratio' ? pair.article.sentence : `${pair.article.label}: ${pair.article.sentence}`})`
    : '';
  const reasons = pair.reasons.length ? ` — ${pair.reasons.join('; ')}` : '';
  return `${pair.sentence}${figure}${reasons}`;
}

/**
 * The article's side of a pair, one line per claim (`pairClaims` of @tunelab/answers), each with
 * its own agreement: a pair held against a declared ratio the article published (fillfactor's
 * size table) gets a line for the verdict on the metric, which has no article figure of its own,
 * and one for the ratio beside the article's.
 */
export function agreementLines(pair: Answered['pairs'][number], metricLabel: string, ratios: readonly RatioAnswer[]) {
  const claims = pairClaims(pair, metricLabel, ratios);
  if (claims.length === 1) return [`  article: ${agreementLine(pair)}`];
  return [
    ...claims.map(
      (c) => `  article, ${c.subject}: ${AGREEMENT_TEXT[c.agreement]}${c.about === 'ratio' ? ` (${c.text})` : ''}`,
    ),
    ...(pair.reasons.length ? [`  differences from the article: ${pair.reasons.join('; ')}`] : []),
  ];
}
