/**
 * Stage 4 — fixture: built once into the template database that every unit is cloned from.
 */
import { actionContext } from './context.ts';
import type { Connection } from './connect.ts';
import type { RunLog } from './run-log.ts';
import type { RunPlan } from './plan.ts';
import type { Probed } from './probe.ts';

/** Builds the fixture; returns its build time in seconds. */
export async function buildFixture(
  plan: RunPlan,
  conn: Connection,
  probed: Probed,
  log: RunLog,
  signal: AbortSignal,
): Promise<number> {
  signal.throwIfAborted();
  log.emit({ type: 'phase', phase: 'fixture', message: `building the fixture in ${plan.template}` });
  const start = process.hrtime.bigint();
  await conn.admin.createDatabase(plan.template);
  const session = await conn.openDatabase(plan.template);
  for (const ext of probed.extensions) await session.exec(`CREATE EXTENSION IF NOT EXISTS ${ext}`);
  await actionContext(plan, conn, log, signal, {
    session,
    database: plan.template,
    unit: null,
    recorded: new Map(),
  }).runSteps(plan.doc.fixture);
  await conn.closeSessions();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  log.emit({ type: 'fixture-built', seconds });
  return seconds;
}
