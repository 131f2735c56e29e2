import type { Step, StepActionName } from '@tunelab/contracts';
import { collectAction } from './collect.ts';
import { crashServerAction } from './crash-server.ts';
import { createTablesAction } from './create-tables.ts';
import { dataDirCensusAction } from './data-dir-census.ts';
import { dropCachesAction } from './drop-caches.ts';
import { startServerAction } from './start-server.ts';
import { insertStreamAction } from './insert-stream.ts';
import { setAction } from './set.ts';
import { sqlAction } from './sql.ts';
import { timedAction } from './timed.ts';
import { workloadAction } from './workload.ts';
import type { ActionContext, StepAction } from './types.ts';
import { completeRegistry } from '../registry.ts';

export type { ActionContext, StepAction } from './types.ts';

/** An action as the registry holds it: the step is checked against the action's own schema. */
type Registered<A extends StepActionName> = { action: A; execute(step: Step, ctx: ActionContext): Promise<void> };
function register<A extends StepActionName>(a: StepAction<A>): Registered<A> {
  return { action: a.action, execute: (step, ctx) => a.execute(a.schema.parse(step), ctx) };
}

/** THE list of executors; one entry per action of contracts' STEP_SCHEMAS (+ timed). */
const ACTIONS = [
  register(sqlAction),
  register(setAction),
  register(collectAction),
  register(timedAction),
  register(insertStreamAction),
  register(workloadAction),
  register(createTablesAction),
  register(crashServerAction),
  register(startServerAction),
  register(dropCachesAction),
  register(dataDirCensusAction),
] as const;

/** Does not compile while an action of contracts has no executor here. */
const STEP_ACTIONS = completeRegistry<StepActionName>()('action', ACTIONS);

/** Runs one step through the registry. */
export async function runStep(step: Step, ctx: ActionContext): Promise<void> {
  ctx.signal.throwIfAborted();
  const action = STEP_ACTIONS.get(step.action);
  if (!action) throw new Error(`no executor for step action "${step.action}"`);
  await action.execute(step, ctx);
}
