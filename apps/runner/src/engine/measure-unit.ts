/**
 * Stage 5 — measure one unit (variant × repetition × sweep point): clone the template, observe
 * the relations, run the variant's steps, observe again, turn what was recorded and observed into
 * samples, drop the clone. A variant with a `setup` keeps one database for the whole run instead:
 * cloned and set up by its first unit, measured again by every later one, dropped by `dropKept`.
 */
import type { Sample, Step } from '@tunelab/contracts';
import { capabilityOf, type DatabaseSession, type ServerMessage } from '../engines/driver.ts';
import { actionContext } from './context.ts';
import type { Connection } from './connect.ts';
import { metricValue, type Observed } from './metrics/index.ts';
import type { RunLog } from './run-log.ts';
import type { RunPlan } from './plan.ts';
import type { Probed } from './probe.ts';
import type { Snapshot, Unit } from './types.ts';

export type UnitResult = {
  samples: Sample[];
  snapshots: Snapshot[];
  /** The clone from the template; absent for a unit measured again on its variant's kept database. */
  restoreSeconds?: number;
  timedSeconds: number;
};

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/** The database kept for a variant with a `setup` (dropped by `dropKept` at the end of measuring). */
const keptDatabaseOf = (plan: RunPlan, variantIndex: number) => `${plan.prefix}k_v${variantIndex + 1}`;

export async function measureUnit(
  plan: RunPlan,
  conn: Connection,
  probed: Probed,
  log: RunLog,
  signal: AbortSignal,
  unit: Unit,
  /** The kept databases created so far (variants with a `setup`); this unit adds its own on first use. */
  kept: Set<string>,
): Promise<UnitResult> {
  const variantIndex = plan.doc.variants.findIndex((v) => v.key === unit.variant);
  const variant = plan.doc.variants[variantIndex]!;
  const pointIndex = unit.point ? plan.points.findIndex((p) => p?.value === unit.point?.value) : -1;
  const dbName = variant.setup
    ? keptDatabaseOf(plan, variantIndex)
    : `${plan.prefix}r${unit.repetition}${pointIndex >= 0 ? `_p${pointIndex + 1}` : ''}_v${variantIndex + 1}`;
  const label = `${unit.variant} #${unit.repetition}${unit.point ? ` (${unit.point.param} = ${unit.point.value})` : ''}`;
  const point = unit.point ? { point: unit.point } : {};
  const context = (session: DatabaseSession, recorded: Map<string, number>) =>
    actionContext(plan, conn, log, signal, { session, database: dbName, unit, recorded });

  // A fresh clone for every unit, or the variant's kept database: cloned and set up on first use.
  const restoring = !variant.setup || !kept.has(dbName);
  const restoreStart = process.hrtime.bigint();
  if (restoring) await conn.admin.createDatabase(dbName, plan.template);
  const restoreSeconds = restoring ? seconds(restoreStart) : undefined;
  if (variant.setup && restoring) {
    kept.add(dbName);
    const session = await conn.openDatabase(dbName);
    await context(session, new Map()).runSteps(variant.setup);
    keepServerOutput(session, log, unit, `${label} setup`);
    await conn.closeSessions();
  }
  const session = await conn.openDatabase(dbName);
  // What a restore left dirty is written out before the steps; a kept database restored nothing
  // (its windows run on from the previous one's state, checkpoints falling where the server puts them).
  const unsettled = restoring ? await session.capabilities.settle?.settle() : undefined;
  if (unsettled && !log.warnings.includes(unsettled)) log.warn(unsettled);
  const before = await observe(session, probed);
  const recorded = new Map<string, number>();
  await context(session, recorded).runSteps(variant.steps);
  const after = await observe(session, probed);
  keepServerOutput(session, log, unit, label);
  await conn.closeSessions();
  if (!variant.setup) await conn.admin.dropDatabase(dbName);

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
  // A unit on a kept database restored nothing: no restore sample rather than a 0 that is not one.
  if (restoreSeconds !== undefined)
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

/**
 * The dead tuples a VACUUM's verbose output says it could not remove yet: plain VACUUM says
 * "… N are dead but not yet removable", VACUUM FULL "N dead row versions cannot be removed yet"
 * (in its DETAIL). 0 when nothing was held back.
 */
export function heldBackTuples(messages: readonly ServerMessage[]): number {
  let held = 0;
  for (const m of messages) {
    const match = /(\d+) (?:are dead but not yet removable|dead row versions cannot be removed yet)/.exec(m.message);
    if (match) held = Math.max(held, Number(match[1]));
  }
  return held;
}

/** Server messages (VACUUM VERBOSE…) become a note; a held-back xmin horizon becomes a warning. */
function keepServerOutput(session: DatabaseSession, log: RunLog, unit: Unit, label: string): void {
  const messages = session.drainMessages();
  // A transaction elsewhere on the server (even in another database) holds back the
  // xmin horizon; VACUUM then keeps dead tuples and the run measures something else.
  const held = heldBackTuples(messages);
  if (held > 0) {
    log.warn(
      `${label}: ${held} dead tuples were not yet removable — another transaction on the server held back the xmin horizon`,
    );
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

/** Drops the kept databases at the end of measuring (cleanup drops them too, should measuring stop early). */
export async function dropKept(conn: Connection, kept: ReadonlySet<string>): Promise<void> {
  for (const name of kept) await conn.admin.dropDatabase(name);
}
