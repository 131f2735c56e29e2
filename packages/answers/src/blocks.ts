/**
 * A run's blocks so far, decided as the answers decide them (groupSamples → the paired verdict):
 * the runner's sequential stopping rule asks this after every block, so the run stops exactly when
 * the answer it will print is decided, never on a rule of its own.
 */
import {
  ComparisonQuery,
  type EngineName,
  type Sample,
  type ScenarioDocument,
  type SweepPoint,
} from '@tunelab/contracts';
import { groupSamples, sampleRows } from './groups.ts';

export type PairDecision = {
  point: SweepPoint | null;
  baseline: string;
  candidate: string;
  /** The paired decision; null when the pair has no blocks to judge (no positions, or a value ≤ 0). */
  decision: 'differs' | 'equivalent' | 'undecided' | 'unstable' | null;
  conclusive: boolean;
  sentence: string;
};

export type BlocksDecision = {
  /** Every declared pair at every sweep point is conclusive (differs, or equivalent within the margin). */
  decided: boolean;
  pairs: PairDecision[];
};

/**
 * Decides `metric` over a run's samples so far. `engine` and its major and minor only place the
 * rows in one group, as a stored run's would be.
 */
export function decideBlocks(input: {
  doc: ScenarioDocument;
  samples: readonly Sample[];
  metric: string;
  engine: EngineName;
  major: number;
  minor: number;
  /** The sweep points the run plans (the family counts them all, measured yet or not). */
  points?: number;
}): BlocksDecision {
  const { doc, metric } = input;
  const rows = sampleRows(input.samples, metric, {
    run_id: 'this-run',
    scenario_key: doc.key,
    version_hash: 'this-run',
    comparisons: doc.comparisons,
    fingerprint: 'this-machine',
    hardware_class: 'this-machine',
    cpu_model: '',
    storage_kind: 'unknown',
    physical_cores: 1,
    memory_bytes: 0,
    source: 'measured',
    received_at: new Date(0),
    engine: input.engine,
    db_version: `${input.major}.${input.minor}`,
    major: input.major,
    minor: input.minor,
    params: {},
    run_warnings: [],
    settings: {},
  });
  const q = { ...ComparisonQuery.parse({ scenario: doc.key, source: 'measured', groupBy: 'class' }), metric };
  const { groups } = groupSamples(rows, q, new Map([[doc.key, doc]]), input.points ?? 1);
  const pairs = groups.flatMap((g) =>
    g.comparisons.map((c) => ({
      point: g.point ?? null,
      baseline: c.baseline,
      candidate: c.candidate,
      decision: c.paired?.decision ?? null,
      conclusive: c.verdict.conclusive,
      sentence: c.verdict.sentence,
    })),
  );
  return { decided: pairs.length > 0 && pairs.every((p) => p.conclusive), pairs };
}
