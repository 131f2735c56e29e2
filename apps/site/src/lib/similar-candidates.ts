/**
 * What the "hardware like mine" picker ranks (components/HardwarePicker.astro): the measured
 * hardware classes with their runs, their measured tier and the median of their runs' probes, as
 * GET /v1/similar counts them (`?scenario=<key>&source=measured`, or `?source=measured`).
 */
import { classFigures, type ProbeFigures, type SimilarCandidate } from '@tunelab/answers/similar';
import type { SiteData } from './load.ts';

const GIB = 1024 ** 3;

/** The measured classes of one scenario's runs (or of all), each with its runs' probes' figures. */
export function similarCandidates(data: SiteData, scenarioKey: string | null): SimilarCandidate[] {
  const byFingerprint = new Map(data.hardware.map((h) => [h.fingerprint, h]));
  const rows = new Map<string, { candidate: SimilarCandidate; probes: ProbeFigures[] }>();
  for (const r of data.runs) {
    if (r.source !== 'measured' || (scenarioKey !== null && r.scenario.key !== scenarioKey)) continue;
    const h = byFingerprint.get(r.hardware.fingerprint);
    if (!h) continue;
    const memoryGb = Math.round(h.memoryBytes / GIB);
    // The API groups by class, storage kind, tier, cores and memory (results-db similar-hardware.ts).
    const key = JSON.stringify([h.class, h.storageKind, h.storageTier, h.physicalCores, memoryGb]);
    const row = rows.get(key) ?? {
      candidate: {
        class: h.class,
        source: 'measured',
        storageKind: h.storageKind,
        storageTier: h.storageTier,
        physicalCores: h.physicalCores,
        memoryGb,
        runs: 0,
      },
      probes: [],
    };
    row.candidate.runs++;
    const measured = data.runDetail.get(r.id)?.hardwareSpec.measured;
    if (measured) row.probes.push(measured);
    rows.set(key, row);
  }
  return [...rows.values()].map(({ candidate, probes }) => ({ ...candidate, figures: classFigures(probes) }));
}
