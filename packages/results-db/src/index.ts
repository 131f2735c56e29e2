import type { AnswersQuery, RunSubmission, ScenarioAnswersRecord } from '@tunelab/contracts';
import { openConnection, type OpenOptions } from './open.ts';
import { ingestRun, type IngestInput, type IngestResult } from './ingest.ts';
import {
  authenticateRunner,
  createRunner,
  listRunners,
  revokeRunner,
  setPublicLabel,
  type TokenKind,
} from './runners.ts';
import { createFleet, fleetCoverage, type Fleet, type FleetOptions } from './fleet.ts';
import { getHardware, getRun, listHardware, listRuns, listScenarios } from './queries.ts';
import { getRuns } from './run-details.ts';
import { findSimilarHardwareMany } from './similar-hardware.ts';
import { hardwareFingerprint } from './hashing.ts';
import { compareVariants, findSimilarBySpec, findSimilarHardware, listFindings } from './comparisons.ts';
import { importPublished, type PublishedImportResult } from './published.ts';
import { registerInternals } from './internals.ts';
import { answerScenarioQuery } from './answers.ts';
import { scenarioCatalog } from './scenario-catalog.ts';
import type { MigrationResult } from './migrate.ts';
import type { RunnerIdentity } from './runners.ts';

export { DEFAULT_DATA_DIR, DEFAULT_DB_TIMEOUTS, type DatabaseTimeouts, type OpenOptions } from './open.ts';
export { applyMigrations, readMigrations, type MigrationResult } from './migrate.ts';
export { IdempotencyConflictError, isDatabaseUnavailable, RunnerRevokedError } from './errors.ts';
export { DatabaseOwnedError, readOwner, type OwnerRecord } from './owner.ts';
export { RunnerNameError, type RunnerIdentity, type TokenKind } from './runners.ts';
export {
  FLEET_SCHEMA,
  JobConflictError,
  JobRequestError,
  type AgentIdentity,
  type Fleet,
  type FleetOptions,
  type RunSlot,
} from './fleet.ts';
export { CursorError } from './queries.ts';
export { hardwareFingerprint, settingsHash, requestHash } from './hashing.ts';
export { sha256Hex } from '@tunelab/scenarios';
export type { IngestInput, IngestResult } from './ingest.ts';
export { compareVariants, findingsOf, listFindings, findSimilarHardware } from './comparisons.ts';
export {
  importPublished,
  publishedSubmissions,
  PublishedImportError,
  type PublishedImportResult,
} from './published.ts';

/**
 * The results database as the apps see it: named reads and writes, never the Prisma client or
 * the driver (tests reach those through `@tunelab/results-db/testing`).
 */
export type ResultsDb = {
  readonly kind: 'postgresql' | 'pglite';
  /** Where the data lives, for messages ("embedded PGlite in .tunelab/results"). */
  readonly description: string;
  migrate(): Promise<MigrationResult>;
  close(): Promise<void>;
  /**
   * Records, next to an embedded database this process owns, the URL it serves the API at, so
   * that other openers (import, demo, site build) can name it and go through it. No-op for
   * PostgreSQL and in-memory databases.
   */
  advertise(url: string): Promise<void>;
  /** Answers when the database does (readiness). */
  ping(): Promise<void>;
  /** Whether TuneLab's tables exist (the migrations were applied). */
  hasSchema(): Promise<boolean>;
  ingestRun(input: IngestInput): Promise<IngestResult>;
  fingerprintOf(hardware: RunSubmission['hardware']): string;
  /** Mints a runner token (default) or an operator token (`kind: 'operator'`, requests fleet jobs); `publicLabel`: how public responses name the runner (default: they do not). */
  createRunner(
    name: string,
    options?: { publicLabel?: string | null; kind?: TokenKind },
  ): ReturnType<typeof createRunner>;
  setPublicLabel(name: string, label: string | null): Promise<boolean>;
  revokeRunner(name: string): Promise<boolean>;
  listRunners(): ReturnType<typeof listRunners>;
  authenticateRunner(token: string, kind?: TokenKind): Promise<RunnerIdentity | null>;
  /** The fleet's job queue (pg-boss in this database); the caller starts and stops it. */
  openFleet(options?: FleetOptions): Fleet;
  /** Runs and open jobs per scenario × hardware class × server major (the fleet's gaps). */
  coverage(scenario?: string): ReturnType<typeof fleetCoverage>;
  listRuns(q: Parameters<typeof listRuns>[1]): ReturnType<typeof listRuns>;
  getRun(id: string): ReturnType<typeof getRun>;
  /** Several runs' details in one read, in the order asked (the site build reads its runs in batches). */
  getRuns(ids: readonly string[]): ReturnType<typeof getRuns>;
  listHardware(q: Parameters<typeof listHardware>[1]): ReturnType<typeof listHardware>;
  getHardware(fingerprint: string): ReturnType<typeof getHardware>;
  listScenarios(): ReturnType<typeof listScenarios>;
  compare(q: Parameters<typeof compareVariants>[1]): ReturnType<typeof compareVariants>;
  listFindings(q: Parameters<typeof listFindings>[1]): ReturnType<typeof listFindings>;
  findSimilarHardware(
    fingerprint: string,
    q: Parameters<typeof findSimilarHardware>[2],
  ): ReturnType<typeof findSimilarHardware>;
  /** findSimilarHardware for several machines at once (one aggregate), by fingerprint; unknown ones left out. */
  findSimilarHardwareMany(
    fingerprints: readonly string[],
    q: Parameters<typeof findSimilarHardware>[2],
  ): ReturnType<typeof findSimilarHardwareMany>;
  /** "Hardware like mine" for a machine given by its spec (cores, memory, storage kind). */
  findSimilarBySpec(q: Parameters<typeof findSimilarBySpec>[1]): ReturnType<typeof findSimilarBySpec>;
  importPublished(scenariosDir: string): Promise<PublishedImportResult>;
  /** A scenario's answers (null when the scenario has no folder in the catalog). */
  answers(q: AnswersQuery): Promise<ScenarioAnswersRecord | null>;
};

export type ResultsDbOptions = OpenOptions & {
  /** Scenario folders that directions, relevant settings and the article's figures are read from (default: the checkout's `scenarios/`). */
  scenariosDir?: string;
};

/**
 * Opens the results database: PostgreSQL when `url` is given (e.g. the app's DATABASE_URL),
 * otherwise an embedded PGlite database in `options.dataDir` (default `.tunelab/results`).
 * Whoever opens it closes it.
 */
export async function openResultsDb(url?: string, options: ResultsDbOptions = {}): Promise<ResultsDb> {
  const conn = await openConnection(url, options);
  const catalog = scenarioCatalog(options.scenariosDir);
  const { prisma } = conn;
  const db: ResultsDb = {
    kind: conn.kind,
    description: conn.description,
    migrate: conn.migrate,
    close: conn.close,
    advertise: async (url) => conn.ownership?.advertise(url),
    async ping(): Promise<void> {
      await prisma.$queryRaw`SELECT 1`;
    },
    async hasSchema(): Promise<boolean> {
      const [row] = await prisma.$queryRaw<{ runs: string | null }[]>`SELECT to_regclass('public.runs')::text AS runs`;
      return row?.runs != null;
    },
    ingestRun: (input) => ingestRun(prisma, conn.sql, input),
    fingerprintOf: (hardware) => hardwareFingerprint(hardware),
    createRunner: (name, options) => createRunner(prisma, name, options),
    setPublicLabel: (name, label) => setPublicLabel(prisma, name, label),
    revokeRunner: (name) => revokeRunner(prisma, name),
    listRunners: () => listRunners(prisma),
    authenticateRunner: (token, kind) => authenticateRunner(prisma, token, kind),
    openFleet: (options) => createFleet(conn, options),
    coverage: (scenario) => fleetCoverage(conn.sql, scenario),
    listRuns: (q) => listRuns(prisma, q),
    getRun: (id) => getRun(prisma, id),
    getRuns: (ids) => getRuns(prisma, conn.sql, ids),
    listHardware: (q) => listHardware(prisma, q),
    getHardware: (fingerprint) => getHardware(prisma, fingerprint),
    listScenarios: () => listScenarios(prisma),
    compare: (q) => compareVariants(prisma, q, catalog),
    listFindings: (q) => listFindings(prisma, q, catalog),
    findSimilarHardware: (fingerprint, q) => findSimilarHardware(prisma, fingerprint, q),
    findSimilarHardwareMany: (fingerprints, q) => findSimilarHardwareMany(prisma, fingerprints, q),
    findSimilarBySpec: (q) => findSimilarBySpec(prisma, q),
    importPublished: (scenariosDir) => importPublished({ prisma, sql: conn.sql }, scenariosDir),
    answers: (q) => answerScenarioQuery(prisma, catalog, q),
  };
  registerInternals(db, { prisma, scripts: conn.scripts });
  return db;
}
