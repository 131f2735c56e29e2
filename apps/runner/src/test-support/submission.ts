import { RunSubmission, type Sample, type ScenarioDocument } from '@tunelab/contracts';

/** A complete run of `doc` around the given samples (2 cores / 8 GB / SSD, PostgreSQL 15), for report tests. */
export function submissionOf(doc: ScenarioDocument, samples: Sample[], params: RunSubmission['params'] = {}) {
  return RunSubmission.parse({
    scenario: { key: doc.key, version: 'a'.repeat(64), comparisons: doc.comparisons },
    params,
    hardware: {
      cpuModel: 'test cpu',
      physicalCores: 2,
      logicalCpus: 2,
      memoryBytes: 8 * 1024 ** 3,
      storage: { kind: 'ssd', model: null },
      filesystem: null,
      os: 'linux',
      kernel: 'test',
      virtualization: null,
    },
    database: { engine: 'postgresql', version: '15.19', major: 15, minor: 19, settings: {} },
    runnerVersion: '0.1.0',
    startedAt: '2026-11-23T00:00:00.000Z',
    finishedAt: '2026-11-23T00:01:00.000Z',
    samples,
  });
}
