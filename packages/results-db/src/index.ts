import type { RunSubmission } from '@tunelab/contracts';
import { openConnection, type OpenOptions } from './open.ts';
import { ingestRun, type IngestInput } from './ingest.ts';
import { withWritePriority } from './pglite-thread.ts';
import { runnerQueries } from './runners.ts';
import { fleetQueries } from './fleet.ts';
import { runQueries } from './queries.ts';
import { runDetailQueries } from './run-details.ts';
import { hardwareFingerprint } from './hashing.ts';
import { comparisonQueries } from './comparisons.ts';
import { similarHardwareQueries } from './similar-hardware.ts';
import { publishedQueries } from './published.ts';
import { registerInternals } from './internals.ts';
import { answerQueries } from './answers.ts';
import { keptAnswerQueries } from './kept-answers.ts';
import { releaseEventQueries } from './releases-events.ts';
import { comparisonInputQueries } from './comparison-inputs.ts';
import { scenarioCatalog } from './scenario-catalog.ts';
import { schemaQueries, type MigrationResult } from './migrate.ts';
import { queueHealthQueries } from './queue-health.ts';
import { bindQueries, type DbContext, type Methods, type Queries } from './context.ts';

export { DEFAULT_DATA_DIR, DEFAULT_DB_TIMEOUTS, type DatabaseTimeouts, type OpenOptions } from './open.ts';
export { applyMigrations, readMigrations, type MigrationResult } from './migrate.ts';
export { IdempotencyConflictError, isDatabaseUnavailable, RunnerRevokedError } from './errors.ts';
export { ScaleQueryError } from '@tunelab/answers';
export { LikeMineQueryError } from './answers.ts';
export {
  KEPT_ANSWERS_QUEUE,
  type KeptAnswer,
  type KeptAnswersOptions,
  type KeptAnswersWorker,
} from './kept-answers.ts';
export { ReleaseQueryError } from '@tunelab/answers';
export { DatabaseOwnedError, readOwner, type OwnerRecord } from './owner.ts';
export { RunnerNameError, type RunnerIdentity, type TokenKind } from './runners.ts';
export {
  FLEET_SCHEMA,
  JobConflictError,
  JobRequestError,
  type AgentIdentity,
  type Fleet,
  type FleetOptions,
  type JobViewer,
  type RunSlot,
} from './fleet.ts';
export { CursorError } from './queries.ts';
export type { QueueTables } from './queue-health.ts';
export { hardwareFingerprint, settingsHash, requestHash } from './hashing.ts';
export { sha256Hex } from '@tunelab/scenarios';
export { storedIdempotencyKey, type IngestInput, type IngestResult } from './ingest.ts';
export { compareVariants, findingsOf, listFindings, findSimilarHardware } from './comparisons.ts';
export { mergeInputs, packInputs, unpackInputs, type ComparisonInputs } from './comparison-inputs.ts';
export {
  importPublished,
  publishedSubmissions,
  PublishedImportError,
  type PublishedImportResult,
} from './published.ts';

// Ingest's entries; they belong at the end of ingest.ts (as `ingestQueries`) like the other domains'.
const ingestQueries = {
  // A runner's ingest goes ahead of queued reads on an embedded database (pglite-thread.ts).
  ingestRun: (db: DbContext, input: IngestInput) => withWritePriority(() => ingestRun(db.prisma, db.sql, input)),
  fingerprintOf: (_db: DbContext, hardware: RunSubmission['hardware']) => hardwareFingerprint(hardware),
} satisfies Queries;

/** Every domain module's queries: the `ResultsDb` methods are these, bound to the open database. */
const QUERIES = {
  ...schemaQueries,
  ...queueHealthQueries,
  ...ingestQueries,
  ...runnerQueries,
  ...fleetQueries,
  ...runQueries,
  ...runDetailQueries,
  ...comparisonQueries,
  ...similarHardwareQueries,
  ...publishedQueries,
  ...answerQueries,
  ...keptAnswerQueries,
  ...releaseEventQueries,
  ...comparisonInputQueries,
};

/**
 * The results database as the apps see it: named reads and writes, never the Prisma client or
 * the driver (tests reach those through `@tunelab/results-db/testing`).
 */
export type ResultsDb = Methods<typeof QUERIES> & {
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
  const context: DbContext = {
    prisma: conn.prisma,
    sql: conn.sql,
    conn,
    catalog: scenarioCatalog(options.scenariosDir),
  };
  const db: ResultsDb = {
    ...bindQueries(QUERIES, context),
    kind: conn.kind,
    description: conn.description,
    migrate: conn.migrate,
    close: conn.close,
    advertise: async (url) => conn.ownership?.advertise(url),
  };
  registerInternals(db, { prisma: conn.prisma, scripts: conn.scripts });
  return db;
}
