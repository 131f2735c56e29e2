import type { DatabaseSession } from '../engines/driver.ts';
import { runStep, type ActionContext } from './actions/index.ts';
import type { Connection } from './connect.ts';
import type { RunLog } from './run-log.ts';
import type { RunPlan } from './plan.ts';
import type { Unit } from './types.ts';

/** The executor context of the fixture build (`unit` null) or of one measured unit. */
export function actionContext(
  plan: RunPlan,
  conn: Connection,
  log: RunLog,
  signal: AbortSignal,
  at: { session: DatabaseSession; database: string; unit: Unit | null; recorded: Map<string, number> },
): ActionContext {
  const { unit } = at;
  const tag = unit ? { variant: unit.variant, repetition: unit.repetition } : {};
  const point = unit?.point ? { point: unit.point } : {};
  const ctx: ActionContext = {
    session: at.session,
    target: conn.handle,
    database: at.database,
    connect: () => conn.openDatabase(at.database),
    params: unit?.point ? { ...plan.params, [unit.point.param]: unit.point.value } : plan.params,
    sqlFiles: plan.scenario.sqlFiles,
    signal,
    record: (metric, value) => void at.recorded.set(metric, value),
    series: (metric, x, value) => {
      if (unit) log.timeSeries.push({ variant: unit.variant, repetition: unit.repetition, metric, x, value, ...point });
    },
    note: (kind, text) => void log.notes.push({ ...tag, kind, text }),
    warn: (text) => log.warn(text),
    runSteps: async (steps) => {
      for (const step of steps) await runStep(step, ctx);
    },
    ...tag,
    ...point,
  };
  return ctx;
}
