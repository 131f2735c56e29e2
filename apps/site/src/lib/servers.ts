/**
 * A group's server as people name it: "PostgreSQL 17", "MariaDB 10.11", "MySQL 8.0". The major is
 * the release line runs are grouped by, mapped by contracts' `majorOfParts` from the two numbers
 * stored with every run — not the first number alone (`engine.major`, 10 for MariaDB 10.11),
 * which would name MariaDB 10.6 and 10.11 alike. Pages print, group and order servers only
 * through these.
 */
import { ENGINE_FACTS, ENGINES, majorOf, type ComparisonGroup, type Engine, type VersionRow } from '@tunelab/contracts';
import { groupMajor } from '@tunelab/answers';

export type Server = { engine: Engine; major: string };

/** The server of a group's runs (a group never pools two majors): @tunelab/answers' groupMajor. */
export const groupServer = (g: Pick<ComparisonGroup, 'engine' | 'databaseVersions'>): Server => ({
  engine: g.engine.engine,
  major: groupMajor(g),
});

/**
 * The server of a row of the versions axis: that of the group it is read from (by key), or of its
 * first server build's version string when the group is not at hand ("10.11.19-MariaDB" → 10.11).
 */
export function rowServer(
  r: Pick<VersionRow, 'engine' | 'major' | 'group' | 'serverVersions'>,
  groups: readonly { group: Pick<ComparisonGroup, 'key' | 'engine' | 'databaseVersions'> }[],
): Server {
  const g = groups.find((a) => a.group.key === r.group)?.group;
  if (g) return groupServer(g);
  const version = r.serverVersions[0];
  return { engine: r.engine, major: (version === undefined ? null : majorOf(r.engine, version)) ?? String(r.major) };
}

/** "MariaDB 10.11" */
export const serverLabel = (s: Server): string => `${ENGINE_FACTS[s.engine].name} ${s.major}`;

/** A key two groups of one server share ("mariadb 10.11"). */
export const serverKey = (s: Server): string => `${s.engine} ${s.major}`;

/** Release lines in order: 9.6 < 10 < 10.6 < 10.11 (number by number, not as text or one decimal). */
export function compareMajors(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Engines in contracts' fixed order (PostgreSQL, MySQL, MariaDB), then their majors oldest first. */
export const compareServers = (a: Server, b: Server): number =>
  ENGINES.indexOf(a.engine) - ENGINES.indexOf(b.engine) || compareMajors(a.major, b.major);

/** "PostgreSQL 14, 15 and 17; MariaDB 10.11": each engine once, its majors oldest first. */
export function serversText(servers: readonly Server[]): string {
  const byEngine = new Map<Engine, Set<string>>();
  for (const s of [...servers].sort(compareServers))
    byEngine.set(s.engine, (byEngine.get(s.engine) ?? new Set()).add(s.major));
  return [...byEngine]
    .map(([engine, set]) => {
      const majors = [...set];
      const list = majors.length > 1 ? `${majors.slice(0, -1).join(', ')} and ${majors.at(-1)}` : (majors[0] ?? '');
      return `${ENGINE_FACTS[engine].name} ${list}`;
    })
    .join('; ');
}
