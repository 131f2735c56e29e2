/**
 * The release matrix of coverage: scenario × release (PostgreSQL's MAJOR.MINOR) from the measured
 * runs and the fleet's jobs that name a release. Pure: fleet.ts reads the rows, this shapes them.
 * The columns are the releases measured or requested per engine — the results database does not
 * know which releases the npm registry has (the runner does: `tunelab servers list --available`).
 */
import { compareReleases, releaseOfParts, type ReleaseCell, type ReleaseMatrix } from '@tunelab/contracts';

/** Measured runs per scenario × engine × the server's two numbers. */
export type ReleaseRunRow = {
  scenario: string;
  engine: string;
  major: number;
  minor: number;
  runs: number;
  hardwareClasses: string[];
};

/** Jobs naming a release per scenario × engine × release: open, failed for good, the newest failure. */
export type ReleaseJobRow = {
  scenario: string;
  engine: string;
  release: string;
  pending: number;
  failed: number;
  lastError: string | null;
};

const statusOf = (c: Omit<ReleaseCell, 'status'>): ReleaseCell['status'] =>
  c.runs > 0 ? 'measured' : c.pendingJobs > 0 ? 'pending' : c.failedJobs > 0 ? 'failed' : 'missing';

/**
 * Every scenario that has a run or a job on a release of an engine gets a cell in each of that
 * engine's release columns; a cell without a run is a gap whose status says whether a job is on
 * its way (`pending`), only failed (`failed`) or nothing asked for it (`missing`).
 */
export function buildReleaseMatrix(runs: readonly ReleaseRunRow[], jobs: readonly ReleaseJobRow[]): ReleaseMatrix {
  const cells = new Map<string, Omit<ReleaseCell, 'status'>>();
  const cell = (scenario: string, engine: string, release: string) => {
    const key = JSON.stringify([scenario, engine, release]);
    let c = cells.get(key);
    if (!c) {
      c = { scenario, engine, release, runs: 0, hardwareClasses: [], pendingJobs: 0, failedJobs: 0, lastError: null };
      cells.set(key, c);
    }
    return c;
  };
  for (const r of runs) {
    const release = releaseOfParts(r.engine, r)!;
    const c = cell(r.scenario, r.engine, release);
    c.runs += r.runs;
    c.hardwareClasses = [...new Set([...c.hardwareClasses, ...r.hardwareClasses])].sort();
  }
  for (const j of jobs) {
    const c = cell(j.scenario, j.engine, j.release);
    c.pendingJobs += j.pending;
    c.failedJobs += j.failed;
    c.lastError ??= j.lastError;
  }
  const columns = new Map<string, Set<string>>();
  const rows = new Map<string, Set<string>>();
  for (const c of cells.values()) {
    columns.set(c.engine, (columns.get(c.engine) ?? new Set()).add(c.release));
    rows.set(c.engine, (rows.get(c.engine) ?? new Set()).add(c.scenario));
  }
  for (const [engine, releases] of columns)
    for (const scenario of rows.get(engine) ?? []) for (const release of releases) cell(scenario, engine, release);
  const byRelease = (a: { engine: string; release: string }, b: { engine: string; release: string }) =>
    a.engine.localeCompare(b.engine) || compareReleases(a.release, b.release);
  return {
    releases: [...columns]
      .flatMap(([engine, releases]) => [...releases].map((release) => ({ engine, release })))
      .sort(byRelease),
    cells: [...cells.values()]
      .map((c) => ({ ...c, status: statusOf(c) }))
      .sort((a, b) => a.scenario.localeCompare(b.scenario) || byRelease(a, b)),
  };
}

/** The rows of runs whose engine writes a release as MAJOR.MINOR (the others have no release column). */
export const hasRelease = (r: { engine: string; major: number; minor: number }): boolean =>
  releaseOfParts(r.engine, r) !== null;
