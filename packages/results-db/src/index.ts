import type { RunSubmission } from '@tunelab/contracts';
import { openConnection, type OpenOptions } from './open.ts';
import { ingestRun, type IngestInput, type IngestResult } from './ingest.ts';
import { authenticateRunner, createRunner, listRunners, revokeRunner } from './runners.ts';
import { getHardware, getRun, listHardware, listRuns, listScenarios } from './queries.ts';
import { hardwareFingerprint } from './hashing.ts';
import { compareVariants, findSimilarHardware, listFindings } from './comparisons.ts';
import { importPublished, type PublishedImportResult } from './published.ts';
import { registerInternals } from './internals.ts';
import type { MigrationResult } from './migrate.ts';
import type { RunnerIdentity } from './runners.ts';

export { DEFAULT_DATA_DIR, DEFAULT_DB_TIMEOUTS, type DatabaseTimeouts, type OpenOptions } from './open.ts';
export { applyMigrations, readMigrations, type MigrationResult } from './migrate.ts';
export { IdempotencyConflictError, isDatabaseUnavailable } from './errors.ts';
export { RunnerNameError, type RunnerIdentity } from './runners.ts';
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
  /** Answers when the database does (readiness). */
  ping(): Promise<void>;
  /** Whether TuneLab's tables exist (the migrations were applied). */
  hasSchema(): Promise<boolean>;
  ingestRun(input: IngestInput): Promise<IngestResult>;
  fingerprintOf(hardware: RunSubmission['hardware']): string;
  createRunner(name: string): ReturnType<typeof createRunner>;
  revokeRunner(name: string): Promise<boolean>;
  listRunners(): ReturnType<typeof listRunners>;
  authenticateRunner(token: string): Promise<RunnerIdentity | null>;
  listRuns(q: Parameters<typeof listRuns>[1]): ReturnType<typeof listRuns>;
  getRun(id: string): ReturnType<typeof getRun>;
  listHardware(q: Parameters<typeof listHardware>[1]): ReturnType<typeof listHardware>;
  getHardware(fingerprint: string): ReturnType<typeof getHardware>;
  listScenarios(): ReturnType<typeof listScenarios>;
  compare(q: Parameters<typeof compareVariants>[1]): ReturnType<typeof compareVariants>;
  listFindings(q: Parameters<typeof listFindings>[1]): ReturnType<typeof listFindings>;
  findSimilarHardware(
    fingerprint: string,
    q: Parameters<typeof findSimilarHardware>[2],
  ): ReturnType<typeof findSimilarHardware>;
  importPublished(scenariosDir: string): Promise<PublishedImportResult>;
};

/**
 * Opens the results database: PostgreSQL when `url` is given (e.g. the app's DATABASE_URL),
 * otherwise an embedded PGlite database in `options.dataDir` (default `.tunelab/results`).
 * Whoever opens it closes it.
 */
export async function openResultsDb(url?: string, options: OpenOptions = {}): Promise<ResultsDb> {
  const conn = await openConnection(url, options);
  const { prisma } = conn;
  const db: ResultsDb = {
    kind: conn.kind,
    description: conn.description,
    migrate: conn.migrate,
    close: conn.close,
    async ping(): Promise<void> {
      await prisma.$queryRaw`SELECT 1`;
    },
    async hasSchema(): Promise<boolean> {
      const [row] = await prisma.$queryRaw<{ runs: string | null }[]>`SELECT to_regclass('public.runs')::text AS runs`;
      return row?.runs != null;
    },
    ingestRun: (input) => ingestRun(prisma, conn.sql, input),
    fingerprintOf: (hardware) => hardwareFingerprint(hardware),
    createRunner: (name) => createRunner(prisma, name),
    revokeRunner: (name) => revokeRunner(prisma, name),
    listRunners: () => listRunners(prisma),
    authenticateRunner: (token) => authenticateRunner(prisma, token),
    listRuns: (q) => listRuns(prisma, q),
    getRun: (id) => getRun(prisma, id),
    listHardware: (q) => listHardware(prisma, q),
    getHardware: (fingerprint) => getHardware(prisma, fingerprint),
    listScenarios: () => listScenarios(prisma),
    compare: (q) => compareVariants(prisma, q),
    listFindings: (q) => listFindings(prisma, q),
    findSimilarHardware: (fingerprint, q) => findSimilarHardware(prisma, fingerprint, q),
    importPublished: (scenariosDir) => importPublished({ prisma, sql: conn.sql }, scenariosDir),
  };
  registerInternals(db, { prisma, scripts: conn.scripts });
  return db;
}
