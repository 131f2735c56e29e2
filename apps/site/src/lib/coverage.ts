/**
 * The coverage page's data: scenario × hardware class × server major, with runs, the newest run
 * and open fleet jobs per cell (GET /v1/coverage, or the same read on the results database).
 * Every scenario folder gets a row even when nothing was measured: the empty cells are the gaps.
 */
import { ENGINE_NAMES, majorOfParts, type Coverage, type CoverageCell, type RunSummary } from '@tunelab/contracts';
import { siteData } from './load.ts';
import { compareMajors } from './servers.ts';

export type CoverageRow = { scenario: string; title: string; server: string; cells: (CoverageCell | null)[] };
export type CoverageMatrix = {
  classes: string[];
  rows: CoverageRow[];
  /** Open jobs not tied to a hardware class (for a runner, labels or any machine), per scenario. */
  unclassedJobs: Map<string, number>;
  gaps: number;
  filled: number;
};

/**
 * The release lines ("10.11") of a scenario's measured runs per engine and stored first number:
 * coverage counts by the first number alone (a cell's `server`, 10 for MariaDB 10.11), so its
 * row is named by the majors (contracts' majorOfParts) of the runs it counts.
 */
export type Releases = (scenario: string, engine: string, first: number) => string[];

export function releasesOf(runs: readonly RunSummary[]): Releases {
  const seen = new Map<string, Set<string>>();
  for (const r of runs) {
    if (r.source !== 'measured') continue;
    const key = `${r.scenario.key}\u0000${r.database.engine}\u0000${r.database.major}`;
    seen.set(key, (seen.get(key) ?? new Set()).add(majorOfParts(r.database.engine, r.database)));
  }
  return (scenario, engine, first) =>
    [...(seen.get(`${scenario}\u0000${engine}\u0000${first}`) ?? [])].sort(compareMajors);
}

/** "PostgreSQL 16", "MariaDB 10.11", "PostgreSQL any" (jobs for any major). */
function serverLabel(c: Pick<CoverageCell, 'scenario' | 'engine' | 'server'>, releases: Releases): string {
  const name = ENGINE_NAMES[c.engine] ?? c.engine;
  if (c.server === null) return `${name} any`;
  const lines = releases(c.scenario, c.engine, c.server);
  return `${name} ${lines.length > 0 ? lines.join(', ') : c.server}`;
}

/** Lays the cells out as a matrix: one row per scenario × server, one column per hardware class. */
export function coverageMatrix(
  coverage: Coverage,
  scenarios: { key: string; title: string }[],
  releases: Releases = () => [],
): CoverageMatrix {
  const classes = coverage.hardwareClasses;
  const titles = new Map(scenarios.map((s) => [s.key, s.title]));
  const keys = [...new Set([...scenarios.map((s) => s.key), ...coverage.scenarios])].sort();
  const unclassedJobs = new Map<string, number>();
  const byRow = new Map<string, Map<string, CoverageCell>>();
  for (const c of coverage.cells) {
    if (c.hardwareClass === null) {
      unclassedJobs.set(c.scenario, (unclassedJobs.get(c.scenario) ?? 0) + c.openJobs);
      continue;
    }
    const row = `${c.scenario}\u0000${serverLabel(c, releases)}`;
    const cells = byRow.get(row) ?? new Map<string, CoverageCell>();
    cells.set(c.hardwareClass, c);
    byRow.set(row, cells);
  }
  const rows: CoverageRow[] = [];
  let gaps = 0;
  let filled = 0;
  for (const key of keys) {
    const servers = [...byRow.keys()].filter((r) => r.startsWith(`${key}\u0000`)).sort();
    for (const row of servers.length ? servers : [`${key}\u0000—`]) {
      const cells = classes.map((cls) => byRow.get(row)?.get(cls) ?? null);
      for (const c of cells) {
        if (c && c.runs > 0) filled++;
        else gaps++;
      }
      rows.push({ scenario: key, title: titles.get(key) ?? key, server: row.split('\u0000')[1] ?? '—', cells });
    }
  }
  return { classes, rows, unclassedJobs, gaps, filled };
}

let loaded: Promise<CoverageMatrix> | undefined;
/** The coverage page's matrix, from the build's one data load. */
export function coverageData(): Promise<CoverageMatrix> {
  loaded ??= siteData().then((data) =>
    coverageMatrix(
      data.coverage,
      data.scenarios.map((s) => ({ key: s.key, title: s.title })),
      releasesOf(data.runs),
    ),
  );
  return loaded;
}
