import type { ManagedTargetOptions } from '../engines/managed-postgresql/provider.ts';
import type { ProcessOwner } from '../engines/managed-postgresql/cluster/orphans.ts';
import type { RunNote, RunSubmission, StorageKind, SweepPoint } from '@tunelab/contracts';
import type { RelationSizes, TupleStats } from '../engines/driver.ts';
import type { LoadedScenario } from '@tunelab/scenarios';
import type { StopDecision, UntilStableOptions } from './stopping.ts';

/** One measured unit: a variant at a repetition (and a sweep point, when the scenario sweeps). */
export type Unit = {
  variant: string;
  /** The block: every variant runs once per repetition (at each sweep point), in a random order. */
  repetition: number;
  point?: SweepPoint;
  /** The unit's place in its block, 1 = first. */
  position?: number;
};

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
      /** Absent for a unit on its variant's kept database (nothing restored). */
      restoreSeconds?: number;
    } & Unit)
  /**
   * The sequential design (`rule: sequential`) or --until-stable: another block was added
   * (`stopped` absent), or the rule stopped the run.
   */
  | {
      type: 'stability';
      repetitions: number;
      message: string;
      stopped?: StopDecision['stopped'];
      rule?: 'sequential' | 'until-stable';
    }
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
  /**
   * `--budget`: the sequential design's time budget in seconds (blocks are added until every
   * declared pair is decided, or another block would pass it), over the scenario's own.
   */
  budgetSeconds?: number;
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
  /** The lease of a throttle on a server of the user's (ms; host-changes.ts; default 180 s). */
  hostLeaseMs?: number;
  /** Notes the caller adds to the run: what chose its options (`--like-article`). */
  notes?: RunNote[];
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

/** What a run's clean-up removed and what it could not (cleanup.ts). */
export type CleanupReport = {
  dropped: string[];
  /** Databases/schemas still there (or that could not be checked) when the deadline passed. */
  left: string[];
  /** Settings still to be put back (the saved values), or null. */
  globalsLeft: Record<string, string> | null;
  /** Names in `left` whose creation was never confirmed (they may not exist). */
  uncertain?: string[];
  /** The last error, when something is left. */
  error?: string;
};

/** The record of one run on this machine, kept while it runs and when its clean-up gave up (leftovers.ts). */
export type RunRecord = ProcessOwner & {
  format: 'tunelab-inflight/1';
  runId: string;
  /** `postgres://host:port` / `mysql://host:port`: which server (serverKey). */
  server: string;
  /** The target without its password. */
  target: string;
  /** Saved values of global settings the run changed (restored by the clean-up). */
  globals?: Record<string, string>;
  /** What its clean-up could not remove, when it gave up. */
  left?: string[];
};

/** This machine's records of runs in flight (leftovers.ts `createLedger`). */
export type Ledger = {
  dir: string;
  /** Records the run before anything is created; never throws (a full disk only warns). */
  begin(runId: string, target: string, warn: (text: string) => void): Promise<void>;
  saveGlobals(runId: string, previous: Record<string, string>): Promise<void>;
  /** Clean-up complete: the record goes; otherwise it stays with what is left. */
  finish(runId: string, report: CleanupReport): Promise<void>;
  /** Records of runs of this machine on this server that left something: clean-up gave up, or the process is gone. */
  abandoned(target: string): Promise<RunRecord[]>;
};
