/**
 * The measurement loop: whole interleaved rounds (for each repetition: every sweep point, every
 * variant — A B C D, A B C D, …), with --until-stable adding one round at a time. With
 * `sweep.order: points` the rounds run at one point at a time (all of 10,000, then 30,000, …).
 */
import type { Sample } from '@tunelab/contracts';
import type { Connection } from './connect.ts';
import { measureUnit } from './measure-unit.ts';
import type { RunLog } from './run-log.ts';
import type { RunPlan } from './plan.ts';
import type { Probed } from './probe.ts';
import {
  decideStop,
  describeUnstable,
  formatCvPercent,
  type Elapsed,
  type StopDecision,
  type UntilStable,
} from './stopping.ts';
import type { Snapshot, Unit } from './types.ts';

export type Measured = {
  samples: Sample[];
  snapshots: Snapshot[];
  order: Unit[];
  restoreSeconds: number[];
  repetitions: number;
  stopping?: StopDecision;
};

export async function measureAll(
  plan: RunPlan,
  conn: Connection,
  probed: Probed,
  log: RunLog,
  signal: AbortSignal,
): Promise<Measured> {
  const { rule, points } = plan;
  const { variants } = probed;
  const perRound = variants.length * points.length;
  const sweepText = points[0]
    ? ` × ${points.length} ${points[0].param} values (${points.map((p) => p!.value).join(', ')})`
    : '';
  log.emit({
    type: 'phase',
    phase: 'measure',
    message: rule
      ? `${variants.length} variants${sweepText} × ${plan.startRepetitions}–${rule.maxRepetitions} repetitions, until every compared variant's CV ≤ ${formatCvPercent(rule.cvThreshold)}${rule.budgetSeconds !== undefined ? ` or ${rule.budgetSeconds} s of measuring` : ''}${rule.source === 'scenario' ? " (the scenario's default; --repetitions N runs exactly N)" : ''}`
      : `${variants.length} variants${sweepText} × ${plan.startRepetitions} repetitions`,
  });
  const m: Measured = { samples: [], snapshots: [], order: [], restoreSeconds: [], repetitions: 0 };
  const maxTotal = rule ? { maxTotal: perRound * rule.maxRepetitions } : {};
  // sweep.order: points — the rounds below run at one point at a time.
  const groups = plan.doc.sweep?.order === 'points' ? points.map((p) => [p]) : [points];
  let index = 0;
  const stops: StopDecision[] = [];
  const measureStart = performance.now();
  for (const group of groups) {
    let planned = plan.startRepetitions;
    for (let repetition = 1; repetition <= planned; repetition++) {
      const roundStart = performance.now();
      const total = perRound * planned;
      for (const point of group) {
        for (const variant of variants) {
          signal.throwIfAborted();
          index++;
          const unit: Unit = { variant: variant.key, repetition, ...(point ? { point } : {}) };
          log.emit({ type: 'unit-start', ...unit, index, total, ...maxTotal });
          const r = await measureUnit(plan, conn, probed, log, signal, unit);
          m.samples.push(...r.samples);
          m.snapshots.push(...r.snapshots);
          m.restoreSeconds.push(r.restoreSeconds);
          m.order.push(unit);
          log.emit({
            type: 'unit-done',
            ...unit,
            index,
            total,
            ...maxTotal,
            seconds: r.timedSeconds,
            restoreSeconds: r.restoreSeconds,
          });
        }
      }
      m.repetitions = Math.max(m.repetitions, repetition);
      // One full round at a time, so every variant always has the same number of repetitions.
      if (rule && repetition === planned) {
        const now = performance.now();
        const elapsed = { seconds: (now - measureStart) / 1000, roundSeconds: (now - roundStart) / 1000 };
        const decision = decideAtEveryPoint(plan, group, m.samples, repetition, rule, elapsed);
        if (decision.stop) {
          stops.push(decision.stop);
          log.emit({
            type: 'stability',
            repetitions: repetition,
            message: decision.stop.reason,
            stopped: decision.stop.stopped,
          });
        } else {
          planned++;
          log.emit({
            type: 'stability',
            repetitions: repetition,
            message: `${decision.unstable}: adding repetition ${planned} (max ${rule.maxRepetitions})`,
          });
        }
      }
    }
  }
  if (stops.length) {
    const stop = stops.find((d) => d.stopped !== 'stable') ?? stops[0]!;
    m.stopping =
      stops.length === 1
        ? stop
        : { ...stop, reason: stops.map((d) => d.reason).join('; '), cvs: stops.flatMap((d) => d.cvs) };
  }
  if (m.stopping) log.notes.push({ kind: 'stopping-rule', text: m.stopping.reason });
  return m;
}

/** The stopping rule judged per sweep point; the run stops when every point may stop. */
function decideAtEveryPoint(
  plan: RunPlan,
  points: RunPlan['points'],
  samples: readonly Sample[],
  repetition: number,
  rule: UntilStable,
  elapsed: Elapsed,
): { stop: StopDecision } | { stop?: undefined; unstable: string } {
  const { doc } = plan;
  const label = (i: number) => (points[i] ? `${points[i].param} = ${points[i].value}: ` : '');
  const at = (i: number) => samples.filter((s) => s.point?.value === points[i]?.value);
  const decisions = points.map((_, i) => decideStop(doc, at(i), repetition, rule, elapsed));
  if (decisions.every((d) => d !== null)) {
    const stop = decisions.find((d) => d.stopped !== 'stable') ?? decisions[0]!;
    return {
      stop:
        points.length === 1
          ? stop
          : {
              ...stop,
              reason: decisions.map((d, i) => `${label(i)}${d.reason}`).join('; '),
              cvs: decisions.flatMap((d) => d.cvs),
            },
    };
  }
  return {
    unstable: points
      .map((_, i) => (decisions[i] ? null : `${label(i)}${describeUnstable(doc, at(i), rule)}`))
      .filter((t) => t !== null)
      .join('; '),
  };
}
