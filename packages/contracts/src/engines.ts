/**
 * Engine facts, once (issue 27): the engines TuneLab measures, their display names, the URL
 * schemes a target of each is given by, default ports, how a version string maps to a *major*
 * (the release line runs are grouped by: PostgreSQL 17.10 → "17", MariaDB 10.11.9 → "10.11",
 * MySQL 8.0.36 → "8.0") and the PostgreSQL majors a managed server exists for. The runner, the
 * answers, the API and the site read them from here; adding an engine starts with one entry in
 * ENGINE_FACTS.
 */

/** One engine's facts. */
export type EngineFacts = {
  /** As people write it: "PostgreSQL". */
  name: string;
  /**
   * The wire protocol, which picks the runner's driver: MySQL and MariaDB speak the same one,
   * so a `mysql://` target may turn out to be MariaDB (the server's version string says which).
   */
  protocol: 'postgres' | 'mysql';
  /** URL schemes a target of this engine is given by, with the colon (`new URL().protocol`). */
  schemes: readonly string[];
  defaultPort: number;
  /**
   * How many leading numbers of a version make its major: 1 for PostgreSQL ≥ 10 (17.10 → 17),
   * 2 for MySQL and MariaDB, whose release lines are x.y (8.0, 8.4; 10.6, 10.11, 11.4).
   */
  majorParts: 1 | 2;
};

/** Every engine, in a fixed order. */
export const ENGINES = ['postgresql', 'mysql', 'mariadb'] as const;
export type EngineName = (typeof ENGINES)[number];

export const ENGINE_FACTS = {
  postgresql: {
    name: 'PostgreSQL',
    protocol: 'postgres',
    schemes: ['postgres:', 'postgresql:'],
    defaultPort: 5432,
    majorParts: 1,
  },
  mysql: { name: 'MySQL', protocol: 'mysql', schemes: ['mysql:'], defaultPort: 3306, majorParts: 2 },
  mariadb: { name: 'MariaDB', protocol: 'mysql', schemes: ['mariadb:'], defaultPort: 3306, majorParts: 2 },
} as const satisfies Record<EngineName, EngineFacts>;

/** An engine's display name by its key ("postgresql" → "PostgreSQL"), for keys read from stored data. */
export const ENGINE_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  ENGINES.map((e) => [e, ENGINE_FACTS[e].name]),
);

/**
 * The PostgreSQL majors a managed server (`--server MAJOR`, `servers install`) exists for: the
 * majors a job may name for a PostgreSQL scenario, and the server majors coverage expects. The
 * only place they are written: READMEs and `--help` say them from here (a runner test checks).
 */
export const SUPPORTED_POSTGRESQL_MAJORS = [14, 15, 16, 17, 18] as const;

/** The engine's URL schemes by protocol, for "supported: postgres://, postgresql://" sentences. */
export function schemesOfProtocol(protocol: EngineFacts['protocol']): string[] {
  return [
    ...new Set(ENGINES.filter((e) => ENGINE_FACTS[e].protocol === protocol).flatMap((e) => ENGINE_FACTS[e].schemes)),
  ];
}

/** The engine a URL scheme names (`mysql:` → mysql), or null. */
export function engineOfScheme(scheme: string): EngineName | null {
  return ENGINES.find((e) => ENGINE_FACTS[e].schemes.some((s) => s === scheme)) ?? null;
}

/** Parses "15.19", "PostgreSQL 16.2 on …", "10.11.19-MariaDB" into its first two numbers. */
export function parseServerVersion(version: string): { major: number; minor: number } | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  if (!m) return null;
  // PostgreSQL ≥ 10 numbers releases major.minor; MySQL/MariaDB use major.minor.patch where
  // "minor" for comparisons is the second component.
  return { major: Number(m[1]), minor: Number(m[2]) };
}

/**
 * The major (release line) of a server from the two numbers stored with every run (`major`,
 * `minor`, as parseServerVersion gives them): PostgreSQL (17, 10) → "17"; MariaDB (10, 11) →
 * "10.11"; MySQL (8, 0) → "8.0". Runs stored before this existed hold the same two numbers, so
 * they map the same way when read (no migration).
 */
export function majorOfParts(engine: EngineName, parts: { major: number; minor: number }): string {
  return ENGINE_FACTS[engine].majorParts === 1 ? String(parts.major) : `${parts.major}.${parts.minor}`;
}

/** The major of a version string: PostgreSQL 17.10 → "17", MariaDB 10.11.9 → "10.11", MySQL 8.0.36 → "8.0"; null when it has no x.y. */
export function majorOf(engine: EngineName, version: string): string | null {
  const parts = parseServerVersion(version);
  return parts ? majorOfParts(engine, parts) : null;
}
