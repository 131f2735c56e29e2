/**
 * The measurement loop: whole blocks (for each repetition: every sweep point, and at each point
 * every variant once, in a random order — B A D C, C A B D, …, each sample keeping its position),
 * with the sequential design (sequential.ts) or --until-stable adding one block at a time. With
 * `sweep.order: points` the blocks run at one point at a time (all of 10,000, then 30,000, …).
 */
import { randomInt } from 'node:crypto';
import type { Sample } from '@tunelab/contracts';
import type { Connection } from './connect.ts';
import { dropKept, measureUnit } from './measure-unit.ts';
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
import { decideSequential } from './sequential.ts';
import { quietGate } from '../probe/quiet.ts';
import { formatPercent } from '@tunelab/stats';

/** A uniformly random order of the variants (Fisher–Yates on the OS's random numbers). */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

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
  const { rule, points, sequential } = plan;
  const { variants } = probed;
  const perRound = variants.length * points.length;
  log.emit({ type: 'phase', phase: 'measure', message: designText(plan, variants.length) });
  const m: Measured = { samples: [], snapshots: [], order: [], restoreSeconds: [], repetitions: 0 };
  const most = sequential ? sequential.maxBlocks : rule?.maxRepetitions;
  const maxTotal = most !== undefined ? { maxTotal: perRound * most } : {};
  // sweep.order: points — the rounds below run at one point at a time.
  const groups = plan.doc.sweep?.order === 'points' ? points.map((p) => [p]) : [points];
  let index = 0;
  const stops: StopDecision[] = [];
  const kept = new Set<string>();
  const measureStart = performance.now();
  const quiet = quietGate(signal, (message) => log.emit({ type: 'phase', phase: 'measure', message }));
  for (const group of groups) {
    const groupStart = performance.now();
    const waitedBefore = quiet.waitedMs;
    let planned = plan.startRepetitions;
    for (let repetition = 1; repetition <= planned; repetition++) {
      await quiet.beforeBlock(repetition);
      const roundStart = performance.now();
      const total = perRound * planned;
      for (const point of group) {
        // A block: every variant once at this point, in a random order (position 1 ran first).
        for (const [place, variant] of shuffled(variants).entries()) {
          signal.throwIfAborted();
          index++;
          const unit: Unit = { variant: variant.key, repetition, ...(point ? { point } : {}), position: place + 1 };
          log.emit({ type: 'unit-start', ...unit, index, total, ...maxTotal });
          const r = await measureUnit(plan, conn, probed, log, signal, unit, kept);
          m.samples.push(...r.samples);
          m.snapshots.push(...r.snapshots);
          if (r.restoreSeconds !== undefined) m.restoreSeconds.push(r.restoreSeconds);
          m.order.push(unit);
          log.emit({
            type: 'unit-done',
            ...unit,
            index,
            total,
            ...maxTotal,
            seconds: r.timedSeconds,
            ...(r.restoreSeconds !== undefined ? { restoreSeconds: r.restoreSeconds } : {}),
          });
        }
      }
      quiet.afterBlock();
      m.repetitions = Math.max(m.repetitions, repetition);
      // One full block at a time, so every variant always has the same number of repetitions.
      if (repetition === planned && (sequential || rule)) {
        const now = performance.now();
        const judged = judgeBlocks(plan, probed, m.samples, group, repetition, {
          // The sequential budget is shared out evenly between groups of points run one after another;
          // waiting for a quiet machine is not measuring and does not count.
          seconds:
            (now - (sequential ? groupStart : measureStart) - (quiet.waitedMs - (sequential ? waitedBefore : 0))) /
            1000,
          roundSeconds: (now - roundStart) / 1000,
          groups: groups.length,
        });
        if (judged.stop) stops.push(judged.stop);
        else planned++;
        log.emit({
          type: 'stability',
          repetitions: repetition,
          message: judged.stop
            ? judged.stop.reason
            : sequential
              ? `${judged.more}: adding block ${planned} (at most ${most})`
              : `${judged.more}: adding repetition ${planned} (max ${most})`,
          ...(judged.stop ? { stopped: judged.stop.stopped } : {}),
          rule: sequential ? 'sequential' : 'until-stable',
        });
      }
    }
  }
  await dropKept(conn, kept);
  if (stops.length) {
    const stop = stops.find((d) => d.stopped !== 'stable') ?? stops[0]!;
    m.stopping =
      stops.length === 1
        ? stop
        : { ...stop, reason: stops.map((d) => d.reason).join('; '), cvs: stops.flatMap((d) => d.cvs) };
  }
  if (m.stopping) log.notes.push({ kind: 'stopping-rule', text: m.stopping.reason });
  const waited = quiet.note();
  if (waited) log.notes.push({ kind: 'quiet-wait', text: waited });
  return m;
}

/** What the measuring will do, in words: the design, its blocks or repetitions and when it stops. */
function designText(plan: RunPlan, count: number): string {
  const { rule, points, sequential } = plan;
  const sweepText = points[0]
    ? ` × ${points.length} ${points[0].param} values (${points.map((p) => p!.value).join(', ')})`
    : '';
  return sequential
    ? `${count} variants${sweepText} in blocks of every variant in a random order, ${plan.startRepetitions}–${sequential.maxBlocks} blocks, until every declared pair's ${sequential.metric} is decided (differs, or equivalent within ±${formatPercent(sequential.margin)}) or ${sequential.budgetSeconds} s of measuring${sequential.source === 'scenario' ? " (the scenario's default; --repetitions N runs exactly N, --budget sets the time)" : ''}`
    : rule
      ? `${count} variants${sweepText} × ${plan.startRepetitions}–${rule.maxRepetitions} repetitions, until every compared variant's CV ≤ ${formatCvPercent(rule.cvThreshold)}${rule.budgetSeconds !== undefined ? ` or ${rule.budgetSeconds} s of measuring` : ''}${rule.source === 'scenario' ? " (the scenario's default; --repetitions N runs exactly N)" : ''}`
      : `${count} variants${sweepText} × ${plan.startRepetitions} blocks (every variant once per block, in a random order)`;
}

/** After a full block: the sequential design's decision, or the CV rule's; stop, or what is still open. */
function judgeBlocks(
  plan: RunPlan,
  probed: Probed,
  samples: readonly Sample[],
  group: RunPlan['points'],
  blocks: number,
  elapsed: Elapsed & { groups: number },
): { stop: StopDecision } | { stop?: undefined; more: string } {
  if (plan.sequential) {
    const d = decideSequential({
      doc: plan.doc,
      rule: plan.sequential,
      probed,
      samples,
      plannedPoints: plan.points.length,
      points: group,
      blocks,
      elapsed,
      budgetSeconds: plan.sequential.budgetSeconds / elapsed.groups,
    });
    return d.stop ? d : { more: d.undecided };
  }
  const d = decideAtEveryPoint(plan, group, samples, blocks, plan.rule!, elapsed);
  return d.stop ? d : { more: d.unstable };
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
