/** The runner engine, for tests and embedding; the CLI lives in ./cli.ts. */
export {
  runScenario,
  cleanupRun,
  runPrefix,
  idempotencyKeyOf,
  DATABASE_PREFIX,
  type RunOptions,
  type RunResult,
  type RunEvent,
  type Snapshot,
} from './engine/run-scenario.ts';
export { runStep, type ActionContext, type StepAction } from './engine/actions/index.ts';
export type { MetricSource } from './engine/metrics/types.ts';
export {
  assessStability,
  decideStop,
  comparedVariants,
  DEFAULT_CV_THRESHOLD,
  DEFAULT_MAX_REPETITIONS,
  MIN_STARTING_REPETITIONS,
  type StopDecision,
  type UntilStable,
  type UntilStableOptions,
} from './engine/stopping.ts';
export { postgresDriver, isLocalPostgresTarget, quoteIdent } from './engines/postgresql/driver.ts';
export type {
  Driver,
  AdminSession,
  DatabaseSession,
  TargetHandle,
  ManagedCluster,
  ManagedProvider,
} from './engines/driver.ts';
export { DRIVERS, MANAGED_PROVIDERS, driverFor, planTarget, openTarget } from './engines/index.ts';
export { UsageError, TargetUnreachable, RunFailed, Interrupted, EngineError } from './errors.ts';
export { probeHardware, probeStorageOf } from './probe/hardware.ts';
export { renderRunTable } from './report/table.ts';
export { submitRun, parseRetryAfter, type SubmitOutcome, type SubmitOptions } from './app/api-client.ts';
export { spoolRun, listSpool, flushSpool } from './app/spool.ts';
export { makeRunFile, readRunFile, writeRunFile, type RunFile } from './app/run-file.ts';
export { readConfig, type RunnerConfig } from './config.ts';
export { main, buildCli } from './cli.ts';
export { parseRunArgs, type RunRequest } from './commands/run.ts';
export { EXIT, CliError } from './exit-codes.ts';
export { RUNNER_VERSION } from './version.ts';
export type { AdviseReport } from './advise/command.ts';
