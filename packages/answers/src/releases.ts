/**
 * The server release as an answer axis. For one scenario and metric, per hardware class, scenario
 * version, parameter values, sweep point and declared pair: the pair's ratio candidate / baseline on
 * every measured PostgreSQL release (each release's runs grouped by `groupSamples` as any answer's
 * are, so the paired block log ratios are the ones its verdicts use), the change between adjacent
 * releases — Welch on the two releases' block log ratios (`welchShift`), or the interaction test on
 * the ratio of means for runs without blocks — Benjamini–Hochberg-adjusted over every step of the
 * answer, each printed with its false-coverage-rate interval (Benjamini & Yekutieli, 2005: at
 * 1 − R·0.05/m, R of the m steps significant after the adjustment, so the interval excludes 0
 * exactly when the step is significant), and reported only above the class's noise (the smallest
 * change its blocks can tell from none, as each group's `spread` states it) and only when neither
 * release's runs were all flagged noisy (a step measured on a busy machine asks for the release to
 * be measured again).
 * `answerUpgrade` says what upgrading from one release to another changes, with the changes between
 * and the release that introduced each.
 */
import {
  compareReleases,
  releaseOfParts,
  type ComparisonGroupRecord,
  type PairComparison,
  type ReleaseLine,
  type ReleasePoint,
  type ReleaseSeries,
  type ReleaseStep,
  type UpgradeAnswer,
  type UpgradePair,
} from '@tunelab/contracts';
import {
  adjustPValues,
  EQUIVALENCE_MARGIN,
  formatLevel,
  formatP,
  formatPercent,
  interactionTest,
  relativeDifference,
  welchShift,
  type Moments,
} from '@tunelab/stats';
import { groupSamples, rowsByGroup, type Filters, type SampleRow, type ScenarioDocs } from './groups.ts';
import { groupSpread } from './spread.ts';
import { classLabel } from './classes.ts';
import { releaseDrift } from './drift.ts';

/** A `from` or `to` of the upgrade that names no measured release. */
export class ReleaseQueryError extends Error {
  constructor(
    readonly field: 'from' | 'to',
    message: string,
  ) {
    super(message);
    this.name = 'ReleaseQueryError';
  }
}

/** What a step is computed from: the blocks' log-ratio moments, or the two variants' moments. */
type Evidence =
  { kind: 'blocks'; n: number; mean: number; sd: number } | { kind: 'means'; baseline: Moments; candidate: Moments };
type Point = ReleasePoint & { evidence: Evidence | null };
type Series = Omit<ReleaseSeries, 'releases' | 'steps' | 'threshold'> & { points: Point[] };
/** Every run on the release was flagged noisy (measured on a busy machine): no step to or from it is reported. */
export const measuredOnBusyMachine = (p: Pick<ReleasePoint, 'runs' | 'noisyRuns'>): boolean =>
  p.runs > 0 && p.noisyRuns === p.runs;

/** `busy`: the release of the two whose every run was flagged noisy (the first when both were); such a step is never reported. */
type RawStep = Omit<ReleaseStep, 'adjusted' | 'reported' | 'sentence'> & {
  busy: string | null;
  /** The change's interval at 1 − alpha (the same test as `p`, so it excludes 0 exactly when p < alpha). */
  intervalAt: (alpha: number) => { low: number; high: number };
};

/** The release a row's server reported (PostgreSQL: MAJOR.MINOR); null for engines without a release axis. */
const releaseOfRow = (r: SampleRow) => releaseOfParts(r.engine, { major: r.major, minor: r.minor });

function momentsOf(group: ComparisonGroupRecord, variant: string): Moments | null {
  const v = group.variants.find((x) => x.variant === variant);
  return v && v.sd !== null && v.n >= 2 ? { n: v.n, mean: v.mean, sd: v.sd, min: v.min } : null;
}

/** The pair on one release's group: ratio and interval from its blocks, else from its means. */
/** The pair on one release: `own` are the group's rows (its runs' rows at its point, rowsByGroup). */
function pointOf(release: string, own: readonly SampleRow[], group: ComparisonGroupRecord, c: PairComparison): Point {
  const runIds = new Set(own.map((r) => r.run_id));
  const fallbackRuns = new Set(own.filter((r) => r.server_release !== release).map((r) => r.run_id)).size;
  const drift = releaseDrift(own, c.baseline, c.candidate);
  const noisyRuns = new Set(own.filter((r) => r.noisy === true).map((r) => r.run_id)).size;
  const base = { release, runs: runIds.size, fallbackRuns, noisyRuns, drift };
  if (c.paired) {
    const p = c.paired;
    const evidence = { kind: 'blocks' as const, n: p.blocks, mean: Math.log(p.ratio), sd: p.sdLogRatio };
    return { ...base, blocks: p.blocks, ratio: p.ratio, ratioCi: p.ratioCi, evidence };
  }
  const onPoint = (variant: string) => own.filter((r) => r.variant === variant).map((r) => r.value);
  const b = momentsOf(group, c.baseline);
  const k = momentsOf(group, c.candidate);
  const xs = onPoint(c.baseline);
  const ys = onPoint(c.candidate);
  const ratio = b && k && b.mean !== 0 ? k.mean / b.mean : Number.NaN;
  const ci = xs.length >= 2 && ys.length >= 2 ? relativeDifference(xs, ys).ratioCi : null;
  const finite = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : null);
  return {
    ...base,
    blocks: null,
    ratio,
    ratioCi: { low: finite(ci?.low), high: finite(ci?.high) },
    evidence: b && k && Number.isFinite(ratio) ? { kind: 'means', baseline: b, candidate: k } : null,
  };
}

const seriesKey = (g: ComparisonGroupRecord, c: PairComparison) =>
  JSON.stringify([
    g.hardware.class,
    g.scenario.version,
    g.engine.engine,
    g.unit,
    Object.entries(g.params).sort(([x], [y]) => x.localeCompare(y)),
    g.point ?? null,
    c.baseline,
    c.candidate,
  ]);

/** Whether the measured rows are on two releases or more (collectSeries's releases). */
function onTwoReleases(rows: readonly SampleRow[]): boolean {
  let first: string | null = null;
  for (const r of rows) {
    if (r.source === 'published') continue;
    const release = releaseOfRow(r);
    if (release === null) continue;
    if (first === null) first = release;
    else if (release !== first) return true;
  }
  return false;
}

/** Every release's groups, the pair's point on each, collected per series (class × conditions × pair). */
function collectSeries(rows: readonly SampleRow[], filters: Filters, docs: ScenarioDocs) {
  const byRelease = new Map<string, SampleRow[]>();
  for (const r of rows) {
    const release = releaseOfRow(r);
    if (release === null || r.source === 'published') continue;
    let list = byRelease.get(release);
    if (!list) byRelease.set(release, (list = []));
    list.push(r);
  }
  const series = new Map<string, Series>();
  const comparisons = new Map<string, PairComparison[]>();
  const q: Filters = { ...filters, source: 'measured', groupBy: 'class' };
  for (const [release, own] of byRelease) {
    const rowsOf = rowsByGroup(own, q);
    for (const g of groupSamples(own, q, docs).groups) {
      let classComparisons = comparisons.get(g.hardware.class);
      if (!classComparisons) comparisons.set(g.hardware.class, (classComparisons = []));
      classComparisons.push(...g.comparisons);
      for (const c of g.comparisons) {
        if (c.direction === 'descriptive') continue;
        const key = seriesKey(g, c);
        const s = series.get(key) ?? {
          hardwareClass: g.hardware.class,
          engine: g.engine.engine,
          scenarioVersion: g.scenario.version,
          params: g.params,
          point: g.point ?? null,
          baseline: c.baseline,
          candidate: c.candidate,
          points: [],
        };
        s.points.push(pointOf(release, rowsOf.get(g.key) ?? [], g, c));
        series.set(key, s);
      }
    }
  }
  for (const s of series.values()) s.points.sort((a, b) => compareReleases(a.release, b.release));
  return { series: [...series.values()], comparisons, releases: [...byRelease.keys()].sort(compareReleases) };
}

/** The change of the pair's ratio from one release's point to another's; null without evidence on both. */
function stepBetween(a: Point, b: Point): RawStep | null {
  const ea = a.evidence;
  const eb = b.evidence;
  if (!ea || !eb) return null;
  const busy = [a, b].find(measuredOnBusyMachine)?.release ?? null;
  if (ea.kind === 'blocks' && eb.kind === 'blocks') {
    if (ea.n < 2 || eb.n < 2) return null;
    const s = welchShift(ea, eb);
    return {
      from: a.release,
      to: b.release,
      change: Math.expm1(s.estimate),
      ci95: { low: Math.expm1(s.low), high: Math.expm1(s.high) },
      method: 'paired-blocks',
      p: s.p,
      busy,
      intervalAt: (alpha) => {
        const at = welchShift(ea, eb, alpha);
        return { low: Math.expm1(at.low), high: Math.expm1(at.high) };
      },
    };
  }
  if (ea.kind !== 'means' || eb.kind !== 'means') return null;
  // The ratio on b ÷ the ratio on a: the interaction test with b as its first cell.
  const t = interactionTest(eb, ea);
  if (t.method !== 'log-ratio') return null;
  return {
    from: a.release,
    to: b.release,
    change: t.estimate - 1,
    ci95: { low: t.ci.low - 1, high: t.ci.high - 1 },
    method: 'ratio-of-means',
    p: t.p,
    busy,
    intervalAt: (alpha) => {
      const at = interactionTest(eb, ea, 1 - alpha).ci;
      return { low: at.low - 1, high: at.high - 1 };
    },
  };
}

/** The class's noise: the largest change its paired blocks cannot tell from none (else its block sd), else the margin. */
function thresholdOf(comparisons: readonly PairComparison[], margin: number): ReleaseSeries['threshold'] {
  const spread = groupSpread(comparisons);
  if (spread) {
    const value = spread.detectable?.high ?? Math.expm1(spread.sdLogRatio.high);
    return {
      value,
      basis: 'class-noise',
      sentence: `changes under ${formatPercent(value)} are within this class's noise: ${spread.detectable ? 'the largest change its paired blocks on one release cannot tell from none' : 'the block-to-block sd of its pairs’ log ratios'}`,
    };
  }
  return {
    value: margin,
    basis: 'margin',
    sentence: `no run of this class measured in blocks: changes within the scenario's ±${formatPercent(margin)} margin are not reported`,
  };
}

const ratioText = (p: ReleasePoint) =>
  `${p.ratio.toFixed(3)}× (95% CI ${p.ratioCi.low === null ? 'unbounded' : p.ratioCi.low.toFixed(3)}–${p.ratioCi.high === null ? 'unbounded' : p.ratioCi.high.toFixed(3)})`;

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${formatPercent(Math.abs(x))}`;

/** A step's adjusted interval with its level (the one that excludes 0 exactly when the step is significant). */
const adjustedCi = ({ ci, level }: ReleaseStep['adjusted']) =>
  `${formatLevel(level)}% CI ${formatPercent(ci.low ?? Number.NaN)} to ${formatPercent(ci.high ?? Number.NaN)}`;

const stepSize = (s: Pick<ReleaseStep, 'change' | 'adjusted'>) => `${signed(s.change)} (${adjustedCi(s.adjusted)})`;

function stepSentence(s: Omit<ReleaseStep, 'sentence'>, threshold: number, busy: string | null): string {
  const size = stepSize(s);
  const p = `adjusted ${formatP(s.adjusted.p)}, ${s.adjusted.family} steps`;
  if (busy !== null)
    return `${s.from} → ${s.to}: ${size}, ${p}, not reported: every run on ${busy} was flagged noisy (measured on a busy machine); measure ${busy} again on a quiet one`;
  if (s.reported) return `${s.to} changed the ratio by ${size} from ${s.from}, ${p}`;
  if (s.adjusted.p > 0.05) return `${s.from} → ${s.to}: ${size}, ${p}: no significant change, not reported`;
  return `${s.from} → ${s.to}: ${size}, ${p}, within the class's noise (${formatPercent(threshold)})`;
}

/** Adjusts raw steps together (BH) and words them; `threshold(i)` is the noise step i must exceed. */
function finishSteps(raw: readonly RawStep[], threshold: (i: number) => number): ReleaseStep[] {
  const adjusted = adjustPValues(
    raw.map((s) => s.p),
    'benjamini-hochberg',
  );
  // Benjamini–Yekutieli's false-coverage-rate intervals: at 1 − R·q/m for the R steps BH selects
  // (every selected p is ≤ R·q/m, every other one above it), at 1 − q/m when none is selected.
  const selected = adjusted.filter((p) => p <= 0.05).length;
  const alpha = (Math.max(selected, 1) * 0.05) / Math.max(raw.length, 1);
  return raw.map(({ busy, intervalAt, ...s }, i) => {
    const a = {
      method: 'benjamini-hochberg' as const,
      p: adjusted[i]!,
      family: raw.length,
      ci: intervalAt(alpha),
      level: 1 - alpha,
    };
    // The threshold is a factor either way: a fall to 1 / (1 + t) is as large as a rise to 1 + t
    // (compared as |log|, as the class's noise itself is measured on log ratios).
    const large = Math.abs(Math.log1p(s.change)) > Math.log1p(threshold(i));
    // A side measured only on a busy machine says nothing about the release: its change is not
    // reported, whatever its size (it still counts in the adjustment, as every step computed).
    const step = { ...s, adjusted: a, reported: a.p <= 0.05 && large && busy === null };
    return { ...step, sentence: stepSentence(step, threshold(i), busy) };
  });
}

const stripEvidence = ({ evidence: _evidence, ...p }: Point): ReleasePoint => p;

/** Every release series of a scenario's rows with its adjacent steps, BH over all of them. */
export function answerReleaseSeries(input: {
  rows: readonly SampleRow[];
  filters: Filters;
  docs: ScenarioDocs;
  margin?: number;
}): { series: ReleaseSeries[]; releases: string[]; points: Map<ReleaseSeries, Point[]> } {
  const { series, comparisons, releases } = collectSeries(input.rows, input.filters, input.docs);
  const margin = input.margin ?? EQUIVALENCE_MARGIN;
  const raw = series.flatMap((s, si) =>
    s.points.slice(1).flatMap((b, i) => {
      const step = stepBetween(s.points[i]!, b);
      return step ? [{ si, step }] : [];
    }),
  );
  const thresholds = series.map((s) => thresholdOf(comparisons.get(s.hardwareClass) ?? [], margin));
  const steps = finishSteps(
    raw.map((r) => r.step),
    (i) => thresholds[raw[i]!.si]!.value,
  );
  const points = new Map<ReleaseSeries, Point[]>();
  const out = series.map(({ points: own, ...s }, si) => {
    const answered: ReleaseSeries = {
      ...s,
      threshold: thresholds[si]!,
      releases: own.map(stripEvidence),
      steps: steps.filter((_, i) => raw[i]!.si === si),
    };
    points.set(answered, own);
    return answered;
  });
  return { series: out, releases, points };
}

/** The release line of a scenario's answers: its series measured on two releases or more; undefined when none is. */
export function answerReleaseLine(input: Parameters<typeof answerReleaseSeries>[0]): ReleaseLine | undefined {
  // No series can span two releases when the rows do not: the grouping, drift searches and steps
  // of every release's groups would be computed only to be left out (a fleet on one release).
  if (!onTwoReleases(input.rows)) return undefined;
  const series = answerReleaseSeries(input).series.filter((s) => s.releases.length >= 2);
  if (series.length === 0) return undefined;
  const releases = [...new Set(series.flatMap((s) => s.releases.map((r) => r.release)))].sort(compareReleases);
  return { releases, series };
}

function upgradeSentence(p: Omit<UpgradePair, 'sentence'>, from: string, to: string): string {
  const pair = `${p.candidate} vs ${p.baseline}`;
  const head = `On ${classLabel(p.hardwareClass)}, upgrading PostgreSQL ${from} → ${to} moves ${pair} from ${ratioText(p.before)} to ${ratioText(p.after)}`;
  const size = `${signed(p.step.change)} (${adjustedCi(p.step.adjusted)}, adjusted ${formatP(p.step.adjusted.p)})`;
  const change = p.step.adjusted.p <= 0.05 ? `: the ratio changes by ${size}` : `: no significant change, ${size}`;
  const between =
    p.changes.length === 0
      ? '; no change between adjacent releases on the way is above the noise'
      : `; introduced by ${p.changes.map((c) => `${c.to} (${signed(c.change)} from ${c.from})`).join(', ')}`;
  const fallback = p.before.fallbackRuns + p.after.fallbackRuns;
  const note =
    fallback > 0
      ? `. ${fallback} of these runs did not ask for a release (--server MAJOR or a server of their own) and count at the release their server reported`
      : '';
  return `${head}${change}${between}${note}.`;
}

/**
 * What upgrading from release `from` to `to` changes, per class × conditions × declared pair measured
 * on both: the pair's ratio on each, the direct step between them (BH over the upgrade's pairs) and
 * the reported adjacent changes in (from, to]. Throws ReleaseQueryError when no series has `from`
 * (or `to`).
 */
export function answerUpgrade(input: {
  rows: readonly SampleRow[];
  filters: Filters;
  docs: ScenarioDocs;
  from: string;
  to: string;
  margin?: number;
}): UpgradeAnswer {
  const { from, to } = input;
  const { series, releases, points } = answerReleaseSeries(input);
  for (const [field, release] of [
    ['from', from],
    ['to', to],
  ] as const)
    if (!releases.includes(release))
      throw new ReleaseQueryError(
        field,
        `no measured run of ${input.filters.scenario ?? 'this scenario'} on PostgreSQL ${release} under these filters (measured: ${releases.join(', ') || 'none'})`,
      );
  const both = series.flatMap((s) => {
    const own = points.get(s) ?? [];
    const a = own.find((p) => p.release === from);
    const b = own.find((p) => p.release === to);
    const step = a && b && from !== to ? stepBetween(a, b) : null;
    return a && b && step ? [{ s, a, b, step }] : [];
  });
  const steps = finishSteps(
    both.map((x) => x.step),
    (i) => both[i]!.s.threshold.value,
  );
  const pairs = both.map(({ s, a, b }, i) => {
    const inRange = (r: string) => compareReleases(r, from) > 0 && compareReleases(r, to) <= 0;
    const pair = {
      hardwareClass: s.hardwareClass,
      params: s.params,
      point: s.point,
      baseline: s.baseline,
      candidate: s.candidate,
      before: stripEvidence(a),
      after: stripEvidence(b),
      step: steps[i]!,
      changes: s.steps.filter((x) => x.reported && inRange(x.to)),
    };
    return { ...pair, sentence: upgradeSentence(pair, from, to) };
  });
  const sentence =
    pairs.length === 0
      ? `No class has a declared pair measured on both PostgreSQL ${from} and ${to} under equal conditions.`
      : pairs.map((p) => p.sentence).join(' ');
  return { from, to, metric: input.filters.metric, pairs, series, sentence };
}
