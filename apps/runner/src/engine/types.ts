import type { ManagedTargetOptions } from '../drivers/managed-postgresql.ts';
import type { RunSubmission, StorageKind, SweepPoint } from '@tunelab/contracts';
import type { RelationSizes, TupleStats } from '../drivers/driver.ts';
import type { LoadedScenario } from '@tunelab/scenarios';
import type { Ledger } from './leftovers.ts';
import type { StopDecision, UntilStableOptions } from './stopping.ts';

/** One measured unit: a variant at a repetition (and a sweep point, when the scenario sweeps). */
export type Unit = { variant: string; repetition: number; point?: SweepPoint };

export type RunEvent =
  | { type: 'phase'; phase: 'probe' | 'fixture' | 'measure' | 'cleanup' | 'done'; message: string }
  // `total` is the units planned so far; with --until-stable it grows by one round at a time up
  // to `maxTotal` (absent when the count is fixed).
  | ({ type: 'unit-start'; index: number; total: number; maxTotal?: number } & Unit)
  | ({
      type: 'unit-done';
      index: number;
      total: number;
      maxTotal?: number;
      seconds: number;
      restoreSeconds: number;
    } & Unit)
  /** --until-stable: another round was added (`stopped` absent), or the rule stopped the run. */
  | { type: 'stability'; repetitions: number; message: string; stopped?: StopDecision['stopped'] }
  | { type: 'fixture-built'; seconds: number }
  | { type: 'warning'; message: string };

export type RunOptions = {
  scenario: LoadedScenario;
  /** Connection URL of the server under test; its protocol picks the driver. Absent for a managed scenario. */
  target?: string;
  /** `--server MAJOR`: a throwaway PostgreSQL server of that major (from the npm registry) instead of `target`. */
  server?: number;
  /**
   * For a managed server: where its binaries and directory come from (`--cluster-bin`,
   * `--cluster-dir`, the servers directory) and its settings (`--set`).
   */
  managed?: Omit<ManagedTargetOptions, 'server'>;
  /** `name=value` overrides, validated against the scenario's parameter declarations (`vus=1,4` for a swept one). */
  params?: Record<string, string>;
  scale?: 'default' | 'published';
  repetitions?: number;
  /**
   * Keep adding interleaved rounds while a compared variant's timed metric has CV above
   * `cvThreshold`, starting from `repetitions` (at least 3), up to `maxRepetitions`.
   */
  untilStable?: UntilStableOptions;
  runId?: string;
  storage?: StorageKind;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  /** Stall timeout (ms) of every call on the server outside the measured block; 0: none; default 600 s. */
  stallTimeoutMs?: number;
  /** How long the clean-up keeps retrying on fresh connections (ms; default 30 s; after Ctrl-C at most 7 s). */
  cleanupRetryMs?: number;
  /** The record of this run on this machine (leftovers.ts), for a `--target` server. */
  ledger?: Ledger;
};

/** Physical state of the observed relations at the start of a variant run (restore checks). */
export type Snapshot = Unit & {
  at: 'before' | 'after';
  sizes: Record<string, RelationSizes>;
  tupleStats: Record<string, TupleStats>;
};

export type RunResult = {
  runId: string;
  idempotencyKey: string;
  submission: RunSubmission;
  snapshots: Snapshot[];
  fixture: { buildSeconds: number; restoreSeconds: number[]; ratio: number };
  /** With `untilStable`: why the run stopped where it did. */
  stopping?: StopDecision;
  /** Measured, but the clean-up could not reach the server: what is left and how to remove it. */
  leftBehind?: string;
};
