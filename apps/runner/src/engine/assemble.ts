/**
 * Stage 6 — assemble: the submission the API receives (validated by the contracts schema), with
 * the fixture's build time next to the restores.
 */
import { RunSubmission, type RunNoise } from '@tunelab/contracts';
import { RUNNER_VERSION } from '../version.ts';
import { crossoverNotes } from './crossovers.ts';
import type { Measured } from './measure.ts';
import { idempotencyKeyOf, type RunPlan } from './plan.ts';
import type { Probed } from './probe.ts';
import type { RunLog } from './run-log.ts';
import type { RunResult } from './types.ts';

export function assemble(
  plan: RunPlan,
  probed: Probed,
  buildSeconds: number,
  m: Measured,
  log: RunLog,
  startedAt: Date,
  noise: RunNoise | null = null,
): RunResult {
  const { doc, rule } = plan;
  log.notes.push(...crossoverNotes(doc, log.timeSeries));
  const meanRestore = m.restoreSeconds.reduce((a, b) => a + b, 0) / m.restoreSeconds.length;
  const ratio = buildSeconds / meanRestore;
  // The fixture is a pseudo-variant so that build time reaches the API next to the restores.
  const samples = [
    ...m.samples,
    { variant: 'fixture', repetition: 1, metric: 'build_duration', unit: 's', value: buildSeconds },
  ];
  log.notes.push({
    kind: 'fixture-snapshot',
    text: `fixture built in ${buildSeconds.toFixed(3)} s; restored from template ${m.restoreSeconds.length}× in ${meanRestore.toFixed(3)} s on average; rebuild/restore = ${ratio.toFixed(1)}×`,
  });
  const submission = RunSubmission.parse({
    scenario: {
      key: doc.key,
      version: plan.scenario.version,
      title: doc.title,
      ...(doc.comparisons.length > 0
        ? { comparisons: doc.comparisons.map((c) => ({ baseline: c.baseline, candidate: c.candidate })) }
        : {}),
    },
    params: plan.submittedParams,
    options: {
      repetitions: m.repetitions,
      scale: plan.scale,
      ...(plan.managed?.server !== undefined ? { server: plan.managed.server } : {}),
      ...(plan.managed?.serverRelease !== undefined ? { serverRelease: plan.managed.serverRelease } : {}),
      ...(plan.managed?.settings && Object.keys(plan.managed.settings).length > 0
        ? { serverSettings: plan.managed.settings }
        : {}),
      ...(plan.sequential
        ? {
            sequential: {
              ...plan.sequential,
              stopped:
                m.stopping?.stopped === 'decided'
                  ? ('decided' as const)
                  : m.stopping?.stopped === 'time-budget'
                    ? ('time-budget' as const)
                    : ('max-blocks' as const),
            },
          }
        : {}),
      ...(rule
        ? {
            untilStable: {
              startRepetitions: plan.startRepetitions,
              maxRepetitions: rule.maxRepetitions,
              cvThreshold: rule.cvThreshold,
              ...(rule.budgetSeconds !== undefined ? { budgetSeconds: rule.budgetSeconds } : {}),
              ...(rule.source ? { source: rule.source } : {}),
            },
          }
        : {}),
    },
    hardware: probed.hardware,
    database: probed.database,
    runnerVersion: RUNNER_VERSION,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    samples,
    timeSeries: log.timeSeries,
    notes: log.notes,
    warnings: log.warnings,
    order: m.order.map((u) => ({ variant: u.variant, repetition: u.repetition })),
    ...(noise ? { noise } : {}),
  });
  return {
    runId: plan.runId,
    idempotencyKey: idempotencyKeyOf(plan.runId),
    submission,
    snapshots: m.snapshots,
    fixture: { buildSeconds, restoreSeconds: m.restoreSeconds, ratio },
    ...(m.stopping ? { stopping: m.stopping } : {}),
  };
}
