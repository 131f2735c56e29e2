/**
 * Stage 5 — measure one unit (variant × repetition × sweep point): clone the template, observe
 * the relations, run the variant's steps, observe again, turn what was recorded and observed into
 * samples, drop the clone.
 */
import type { Sample, Step } from '@tunelab/contracts';
import { capabilityOf, type DatabaseSession } from '../engines/driver.ts';
import { actionContext } from './context.ts';
import type { Connection } from './connect.ts';
import { metricValue, type Observed } from './metrics/index.ts';
import type { RunLog } from './run-log.ts';
import type { RunPlan } from './plan.ts';
import type { Probed } from './probe.ts';
import type { Snapshot, Unit } from './types.ts';

export type UnitResult = { samples: Sample[]; snapshots: Snapshot[]; restoreSeconds: number; timedSeconds: number };

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

export async function measureUnit(
  plan: RunPlan,
  conn: Connection,
  probed: Probed,
  log: RunLog,
  signal: AbortSignal,
  unit: Unit,
): Promise<UnitResult> {
  const variantIndex = plan.doc.variants.findIndex((v) => v.key === unit.variant);
  const variant = plan.doc.variants[variantIndex]!;
  const pointIndex = unit.point ? plan.points.findIndex((p) => p?.value === unit.point?.value) : -1;
  const dbName = `${plan.prefix}r${unit.repetition}${pointIndex >= 0 ? `_p${pointIndex + 1}` : ''}_v${variantIndex + 1}`;
  const label = `${unit.variant} #${unit.repetition}${unit.point ? ` (${unit.point.param} = ${unit.point.value})` : ''}`;
  const point = unit.point ? { point: unit.point } : {};

  const restoreStart = process.hrtime.bigint();
  await conn.admin.createDatabase(dbName, plan.template);
  const restoreSeconds = seconds(restoreStart);
  const session = await conn.openDatabase(dbName);
  const unsettled = await session.capabilities.settle?.settle();
  if (unsettled && !log.warnings.includes(unsettled)) log.warn(unsettled);
  const before = await observe(session, probed);
  const recorded = new Map<string, number>();
  await actionContext(plan, conn, log, signal, { session, database: dbName, unit, recorded }).runSteps(variant.steps);
  const after = await observe(session, probed);
  keepServerOutput(session, log, unit, label);
  await conn.closeSessions();
  await conn.admin.dropDatabase(dbName);

  const tag = {
    variant: unit.variant,
    repetition: unit.repetition,
    ...(unit.position !== undefined ? { position: unit.position } : {}),
  };
  const samples: Sample[] = [];
  for (const m of plan.doc.metrics) {
    const value = metricValue(m, { recorded, before, after });
    if (value === null) log.warn(`metric ${m.key} has no value for ${label}`);
    else samples.push({ ...tag, metric: m.key, unit: m.unit, value, ...point });
  }
  samples.push({ ...tag, metric: 'restore_duration', unit: 's', value: restoreSeconds, ...point });
  return {
    samples,
    snapshots: [
      { ...unit, at: 'before', sizes: before.sizes, tupleStats: before.tupleStats },
      { ...unit, at: 'after', sizes: after.sizes, tupleStats: after.tupleStats },
    ],
    restoreSeconds,
    timedSeconds: timedSeconds(variant.steps, recorded),
  };
}

async function observe(session: DatabaseSession, probed: Probed): Promise<Observed> {
  const o: Observed = { sizes: {}, tableStats: {}, tupleStats: {} };
  for (const rel of probed.relations) {
    o.sizes[rel] = await session.relationSizes(rel);
    o.tableStats[rel] = await session.tableStats(rel);
    if (probed.tupleStats)
      o.tupleStats[rel] = await capabilityOf(session, 'tupleStats', 'a tuple_stat metric').tupleStats(rel);
  }
  return o;
}

/** Server messages (VACUUM VERBOSE…) become a note; a held-back xmin horizon becomes a warning. */
function keepServerOutput(session: DatabaseSession, log: RunLog, unit: Unit, label: string): void {
  const messages = session.drainMessages();
  // A transaction elsewhere on the server (even in another database) holds back the
  // xmin horizon; VACUUM then keeps dead tuples and the run measures something else.
  for (const m of messages) {
    const held = /(\d+) are dead but not yet removable/.exec(m.message);
    if (held && Number(held[1]) > 0) {
      log.warn(
        `${label}: ${held[1]} dead tuples were not yet removable — another transaction on the server held back the xmin horizon`,
      );
    }
  }
  if (messages.length) {
    log.notes.push({
      variant: unit.variant,
      repetition: unit.repetition,
      kind: 'server-output',
      text:
        (unit.point ? `[${unit.point.param} = ${unit.point.value}]\n` : '') +
        messages
          .map((m) => `${m.severity}:  ${m.message}`)
          .join('\n')
          .slice(0, 64 * 1024),
    });
  }
}

/** Seconds of the unit's first timed block (progress display). */
function timedSeconds(steps: readonly Step[], recorded: ReadonlyMap<string, number>): number {
  const timed = steps.find((s) => s.action === 'timed');
  return (timed && recorded.get(timed.metric)) ?? 0;
}
