/**
 * Changes over time within one release: the pair's per-run ratio candidate / baseline, in the
 * order the runs were received, searched for change points as Apache Otava searches a dated
 * series (stats' `detectChangePoints`: E-divisive means split, t-test merge), with a minimum
 * segment of DRIFT_MIN_SEGMENT runs so one odd run is not a change. A change found here is the
 * machine or its kernel drifting while the server release stayed the same — what a release step
 * must not be confused with.
 */
import type { ReleaseDrift } from '@tunelab/contracts';
import { detectChangePoints, formatP, formatPercent } from '@tunelab/stats';
import { pairBlocks, type SampleRow } from './groups.ts';

/** Fewest runs on each side of a change: one or two odd runs are not drift. */
export const DRIFT_MIN_SEGMENT = 3;
/** The t-test's p a change must stay below (Otava's default `max_pvalue`). */
export const DRIFT_MAX_P = 0.001;

type RunRows = { id: string; at: Date; rows: SampleRow[] };

const blockSample = (r: SampleRow) => ({
  value: r.value,
  runId: r.run_id,
  repetition: r.repetition,
  position: r.position ?? null,
});

/** One run's ratio: the geometric mean of its blocks' ratios where it has blocks, else the ratio of its means. */
function runRatio(rows: readonly SampleRow[], baseline: string, candidate: string): number | null {
  const of = (variant: string) => rows.filter((r) => r.variant === variant && r.value > 0);
  const b = of(baseline);
  const c = of(candidate);
  if (b.length === 0 || c.length === 0) return null;
  const logs = (pairBlocks(b.map(blockSample), c.map(blockSample)) ?? []).map((p) =>
    Math.log(p.candidate / p.baseline),
  );
  if (logs.length > 0) return Math.exp(logs.reduce((s, x) => s + x, 0) / logs.length);
  const mean = (xs: readonly SampleRow[]) => xs.reduce((s, r) => s + r.value, 0) / xs.length;
  return mean(c) / mean(b);
}

/**
 * The drift of a pair on one release's runs (`rows`: that release's sample rows of the group, at its
 * sweep point); null with fewer than 2 × DRIFT_MIN_SEGMENT runs, too few to tell a change from noise.
 */
export function releaseDrift(rows: readonly SampleRow[], baseline: string, candidate: string): ReleaseDrift | null {
  const byRun = new Map<string, RunRows>();
  for (const r of rows) {
    const run = byRun.get(r.run_id) ?? { id: r.run_id, at: r.received_at, rows: [] };
    run.rows.push(r);
    byRun.set(r.run_id, run);
  }
  const runs = [...byRun.values()]
    .sort((x, y) => x.at.getTime() - y.at.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
    .flatMap((r) => {
      const ratio = runRatio(r.rows, baseline, candidate);
      return ratio !== null && Number.isFinite(ratio) ? [{ id: r.id, at: r.at, ratio }] : [];
    });
  if (runs.length < 2 * DRIFT_MIN_SEGMENT) return null;
  const found = detectChangePoints(
    runs.map((r) => r.ratio),
    { maxP: DRIFT_MAX_P, minSegment: DRIFT_MIN_SEGMENT },
  );
  const changes = found.map((c) => ({
    run: runs[c.index]!.id,
    at: runs[c.index]!.at.toISOString(),
    runsBefore: c.index,
    before: c.stats.meanBefore,
    after: c.stats.meanAfter,
    change: c.forwardChange,
    p: c.stats.p,
  }));
  const pair = `${candidate} / ${baseline}`;
  const sentence =
    changes.length === 0
      ? `No change over time in ${pair} across its ${runs.length} runs on this release (change points as Apache Otava finds them, segments of ${DRIFT_MIN_SEGMENT} runs or more, p < ${DRIFT_MAX_P})`
      : `${pair} changed over time on this release: ${changes
          .map(
            (c) =>
              `from ×${c.before.toPrecision(3)} to ×${c.after.toPrecision(3)} (${c.change >= 0 ? '+' : '−'}${formatPercent(Math.abs(c.change))}, ${formatP(c.p)}) from the run received ${c.at.slice(0, 10)}`,
          )
          .join('; ')} — the machine or its kernel, not the release`;
  return { runs: runs.length, changes, sentence };
}
