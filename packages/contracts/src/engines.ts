/**
 * Engine facts, once: the engines TuneLab measures, their display names, the URL schemes a target
 * of each is given by, default ports, how a version string maps to a *major* (the release line
 * runs are grouped by: PostgreSQL 17.10 → "17", MariaDB 10.11.9 → "10.11", MySQL 8.0.36 → "8.0"),
 * the majors a managed server exists for, the target a printed command names and the defaults of
 * the settings scenarios list. The runner, the answers, the API and the site read them from here;
 * adding an engine is one entry in ENGINE_FACTS (ENGINES, EngineName and Protocol follow from it)
 * and one folder of the runner's `engines/` with its line in DRIVERS.
 */

/** One engine's facts. */
export type EngineFacts = {
  /** As people write it: "PostgreSQL". */
  name: string;
  /**
   * The wire protocol, which picks the runner's driver: MySQL and MariaDB speak the same one,
   * so a `mysql://` target may turn out to be MariaDB (the server's version string says which).
   * The protocols are the ones ENGINE_FACTS names (`Protocol`).
   */
  protocol: string;
  /** URL schemes a target of this engine is given by, with the colon (`new URL().protocol`). */
  schemes: readonly string[];
  defaultPort: number;
  /**
   * How many leading numbers of a version make its major: 1 for PostgreSQL ≥ 10 (17.10 → 17),
   * 2 for MySQL and MariaDB, whose release lines are x.y (8.0, 8.4; 10.6, 10.11, 11.4).
   */
  majorParts: 1 | 2;
  /**
   * The majors the runner installs and manages a throwaway server of (`--server MAJOR`, `servers
   * install`), oldest first; empty for an engine the runner only measures on a server of the user's.
   */
  managedMajors: readonly number[];
  /** The target a printed `tunelab run` names for a server of the user's (the user replaces it). */
  exampleTarget: string;
  /**
   * The server's defaults of the settings scenarios list as relevant: a setting a run did not
   * record is at its default (the runner records only settings changed from it).
   */
  defaultSettings: Readonly<Record<string, string>>;
};

/** PostgreSQL 15's defaults (https://www.postgresql.org/docs/15/runtime-config.html). */
const POSTGRESQL_DEFAULTS = {
  shared_buffers: '128MB',
  work_mem: '4MB',
  maintenance_work_mem: '64MB',
  max_wal_size: '1GB',
  min_wal_size: '80MB',
  checkpoint_timeout: '5min',
  checkpoint_completion_target: '0.9',
  effective_cache_size: '4GB',
  effective_io_concurrency: '1',
  random_page_cost: '4',
  synchronous_commit: 'on',
  fsync: 'on',
  full_page_writes: 'on',
  wal_compression: 'off',
  wal_level: 'replica',
  wal_buffers: '4MB',
  autovacuum: 'on',
  max_parallel_maintenance_workers: '2',
  max_parallel_workers: '8',
  max_worker_processes: '8',
  recovery_init_sync_method: 'fsync',
  huge_pages: 'try',
  jit: 'on',
  default_statistics_target: '100',
};

/** InnoDB's defaults in MariaDB 10.11 (https://mariadb.com/kb/en/innodb-system-variables/), MySQL's alike. */
const INNODB_DEFAULTS = {
  innodb_buffer_pool_size: '128M',
  innodb_flush_log_at_trx_commit: '1',
  innodb_flush_method: 'O_DIRECT',
  innodb_log_file_size: '96M',
  innodb_file_per_table: 'ON',
  innodb_doublewrite: 'ON',
  innodb_io_capacity: '200',
  sync_binlog: '0',
};

export const ENGINE_FACTS = {
  postgresql: {
    name: 'PostgreSQL',
    protocol: 'postgres',
    schemes: ['postgres:', 'postgresql:'],
    defaultPort: 5432,
    majorParts: 1,
    managedMajors: [14, 15, 16, 17, 18],
    exampleTarget: 'postgres://USER@HOST:5432/DBNAME',
    defaultSettings: POSTGRESQL_DEFAULTS,
  },
  mysql: {
    name: 'MySQL',
    protocol: 'mysql',
    schemes: ['mysql:'],
    defaultPort: 3306,
    majorParts: 2,
    managedMajors: [],
    exampleTarget: 'mysql://USER@HOST:3306/DBNAME',
    defaultSettings: INNODB_DEFAULTS,
  },
  mariadb: {
    name: 'MariaDB',
    protocol: 'mysql',
    schemes: ['mariadb:'],
    defaultPort: 3306,
    majorParts: 2,
    managedMajors: [],
    exampleTarget: 'mysql://USER@HOST:3306/DBNAME',
    defaultSettings: INNODB_DEFAULTS,
  },
} as const satisfies Record<string, EngineFacts>;

/** An engine's key: one of ENGINE_FACTS's. */
export type EngineName = keyof typeof ENGINE_FACTS;
/** Every engine, in ENGINE_FACTS's order (the `Engine` enum of scenarios, runs, the API and the site). */
export const ENGINES = Object.keys(ENGINE_FACTS) as [EngineName, ...EngineName[]];
/** A wire protocol some engine speaks ("postgres", "mysql"). */
export type Protocol = (typeof ENGINE_FACTS)[EngineName]['protocol'];

/** An engine's display name by its key ("postgresql" → "PostgreSQL"), for keys read from stored data. */
export const ENGINE_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  ENGINES.map((e) => [e, ENGINE_FACTS[e].name]),
);

/**
 * The PostgreSQL majors a managed server (`--server MAJOR`, `servers install`) exists for: the
 * majors a job may name for a PostgreSQL scenario, and the server majors coverage expects. The
 * only place they are written: READMEs and `--help` say them from here (a runner test checks).
 */
export const SUPPORTED_POSTGRESQL_MAJORS = ENGINE_FACTS.postgresql.managedMajors;

/** The facts of an engine key read from stored data or a request, or null for one TuneLab does not know. */
export function factsOf(engine: string): EngineFacts | null {
  return (ENGINES as readonly string[]).includes(engine) ? ENGINE_FACTS[engine as EngineName] : null;
}

/** Engines a managed server exists for (`--server MAJOR`). */
export const MANAGED_ENGINES: readonly EngineName[] = ENGINES.filter((e) => ENGINE_FACTS[e].managedMajors.length > 0);

/**
 * The server a printed `tunelab run` names for a run on `engine` `major`: a managed server of that
 * major when the runner installs it, else the engine's example target for the user to replace.
 */
export function serverForCommand(engine: string, major: number | null): { server: number } | { target: string } {
  const facts = factsOf(engine);
  if (!facts) throw new Error(`no engine "${engine}"`);
  if (major !== null && facts.managedMajors.includes(major)) return { server: major };
  return { target: facts.exampleTarget };
}

/** The engine's URL schemes by protocol, for "supported: postgres://, postgresql://" sentences. */
export function schemesOfProtocol(protocol: Protocol): string[] {
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

/**
 * The release a run's server was, from the two numbers stored with it, for an engine whose major is
 * one number (PostgreSQL (17, 4) → "17.4", https://www.postgresql.org/support/versioning/); null
 * for MySQL and MariaDB, whose release needs a third number the store does not keep.
 */
export function releaseOfParts(engine: string, parts: { major: number; minor: number }): string | null {
  return factsOf(engine)?.majorParts === 1 ? `${parts.major}.${parts.minor}` : null;
}

/**
 * The release a server's one comparable version number names, as the engine numbers them:
 * PostgreSQL's server_version_num is major × 10000 + minor (120000 → "12", 150019 → "15.19");
 * MySQL's and MariaDB's is major × 10000 + minor × 100 + patch (100600 → "10.6", 101119 →
 * "10.11.19"). A trailing zero part is left out.
 */
export function releaseOfVersionNum(engine: EngineName, num: number): string {
  const parts =
    ENGINE_FACTS[engine].majorParts === 1
      ? [Math.floor(num / 10000), num % 10000]
      : [Math.floor(num / 10000), Math.floor(num / 100) % 100, num % 100];
  while (parts.length > ENGINE_FACTS[engine].majorParts && parts.at(-1) === 0) parts.pop();
  return parts.join('.');
}

/** "needs MariaDB 10.6 or newer": what a scenario's minimum version asks of a server of `engine`, in the engine's own words. */
export const versionNeeded = (engine: EngineName, minVersionNum: number): string =>
  `needs ${ENGINE_FACTS[engine].name} ${releaseOfVersionNum(engine, minVersionNum)} or newer`;

/** The major of a release as `ServerRelease` writes it ("17.4" → 17). */
export const majorOfRelease = (release: string): number => Number(release.split('.')[0]);

/** Orders releases as `ServerRelease` writes them numerically (16.10 after 16.9). */
export function compareReleases(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am! - bm! || an! - bn!;
}

/** The major of a version string: PostgreSQL 17.10 → "17", MariaDB 10.11.9 → "10.11", MySQL 8.0.36 → "8.0"; null when it has no x.y. */
export function majorOf(engine: EngineName, version: string): string | null {
  const parts = parseServerVersion(version);
  return parts ? majorOfParts(engine, parts) : null;
}
