/**
 * For tests: runs of vacuum-index-cleanup's pair 1-1 → 1-2 measured in paired blocks on a series of
 * PostgreSQL releases, with a known change of the pair's ratio planted at one release. Each block
 * runs both variants under one load factor (1×–2.5×, a shared machine), each sample with its own
 * ±2 % noise; the ratio 1-2 / 1-1 is `RATIO` before `stepAt` and `RATIO × (1 + step)` from it on.
 * Every third run asks for no release (`--server MAJOR`): it counts at the release its server reported.
 */
import { readFileSync } from 'node:fs';
import { seededRandom } from '@tunelab/stats';

const fixture = JSON.parse(
  readFileSync(new URL('../../../tests/fixtures/sample-submission.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

export const RELEASE_RUNS_SCENARIO = 'vacuum-index-cleanup';
export const RATIO = 0.8;

export type ReleaseRunsOptions = {
  releases: readonly string[];
  /** The release from which on the ratio is multiplied by 1 + step; none: a flat series. */
  stepAt?: string;
  step?: number;
  runsPerRelease?: number;
  blocksPerRun?: number;
  seed?: number;
};

/** Twenty releases across PostgreSQL 16 and 17, as `--server 16.0` … `--server 17.9` would run them. */
export const TWENTY_RELEASES = [
  ...Array.from({ length: 10 }, (_, i) => `16.${i}`),
  ...Array.from({ length: 10 }, (_, i) => `17.${i}`),
];

/**
 * One run's submission on `release`: blocks of the pair, `[1-1, 1-2]` values measured in one block
 * each; `asked: false` leaves out `options.serverRelease` (a run of `--server MAJOR`).
 */
export function releaseSubmission(
  release: string,
  blocks: readonly (readonly [number, number])[],
  asked = true,
): Record<string, unknown> {
  const [major, minor] = release.split('.').map(Number) as [number, number];
  const doc = structuredClone(fixture);
  doc.scenario = {
    key: RELEASE_RUNS_SCENARIO,
    version: 'e'.repeat(64),
    comparisons: [{ baseline: '1-1', candidate: '1-2' }],
  };
  doc.options = {
    repetitions: blocks.length,
    scale: 'default',
    server: major,
    ...(asked ? { serverRelease: release } : {}),
  };
  doc.database = { ...(doc.database as object), version: `PostgreSQL ${release} on x86_64-pc-linux-gnu`, major, minor };
  doc.samples = blocks.flatMap((values, b) =>
    (['1-1', '1-2'] as const).map((variant, place) => ({
      variant,
      repetition: b + 1,
      position: ((b + place) % 2) + 1,
      metric: 'duration',
      unit: 's',
      value: values[place],
    })),
  );
  delete doc.timeSeries;
  delete doc.order;
  return doc;
}

/** The submissions, one per run, in release order. */
export function releaseRuns(o: ReleaseRunsOptions): Record<string, unknown>[] {
  const random = seededRandom(o.seed ?? 45);
  const noise = () => 1 + (random() - 0.5) * 0.04;
  const runs: Record<string, unknown>[] = [];
  let stepped = false;
  for (const release of o.releases) {
    if (release === o.stepAt) stepped = true;
    const ratio = RATIO * (stepped ? 1 + (o.step ?? 0) : 1);
    for (let run = 0; run < (o.runsPerRelease ?? 3); run += 1) {
      const blocks = Array.from({ length: o.blocksPerRun ?? 6 }, () => {
        const load = 1 + random() * 1.5;
        return [10 * load * noise(), 10 * ratio * load * noise()] as const;
      });
      runs.push(releaseSubmission(release, blocks, run % 3 !== 2));
    }
  }
  return runs;
}
