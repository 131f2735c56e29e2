import type { z } from 'zod';
import type { ParamValue, Step, StepActionName, SweepPoint } from '@tunelab/contracts';
import type { DatabaseSession, TargetHandle } from '../../engines/driver.ts';

/** What an action's `execute(step, ctx)` gets; one context per fixture build or measured unit. */
export type ActionContext = {
  /** A session on this unit's database (the fixture template while building the fixture). */
  session: DatabaseSession;
  /** The target handle: its driver, URL and, for a managed target, the cluster (stop/start). */
  target: TargetHandle;
  /** Name of this unit's database on the target. */
  database: string;
  /**
   * Opens another session on this unit's database (e.g. one per virtual user), with the
   * scenario's session settings applied and the run's application_name, so Ctrl-C ends it too.
   * Sessions still open when the unit ends are closed by the engine.
   */
  connect(): Promise<DatabaseSession>;
  /** Resolved parameters, including the current sweep point's value. */
  params: Readonly<Record<string, ParamValue>>;
  /** Contents of the scenario's `.sql` files by file name. */
  sqlFiles: ReadonlyMap<string, string>;
  /** Aborted on Ctrl-C/SIGTERM: stop promptly and let the error propagate. */
  signal: AbortSignal;
  /** A measured value of this unit; a metric with `source: recorded` (key or `from`) picks it up. */
  record(metric: string, value: number): void;
  /** A time-series point of this unit (x: seconds since the action started, usually). */
  series(metric: string, x: number, value: number): void;
  /** A run note tagged with this unit (variant, repetition). */
  note(kind: string, text: string): void;
  /** A warning shown to the user and kept with the run. */
  warn(text: string): void;
  /** Runs nested steps through the registry (used by `timed`). */
  runSteps(steps: readonly Step[]): Promise<void>;
  /** Absent while building the fixture. */
  variant?: string;
  repetition?: number;
  point?: SweepPoint;
};

/** One step action: its name, its schema (from contracts) and its executor. */
export type StepAction<A extends StepActionName = StepActionName> = {
  action: A;
  schema: z.ZodType<Extract<Step, { action: A }>>;
  execute(step: Extract<Step, { action: A }>, ctx: ActionContext): Promise<void>;
};
