import type { RunSubmission } from '@tunelab/contracts';
import { openConnection, type OpenOptions, DEFAULT_DATA_DIR } from './open.ts';
import { ingestRun, type IngestInput, type IngestResult } from './ingest.ts';
import { authenticateRunner, createRunner, listRunners, revokeRunner } from './runners.ts';
import { getHardware, getRun, listHardware, listRuns, listScenarios } from './queries.ts';
import { hardwareFingerprint } from './hashing.ts';
import { compareVariants, findSimilarHardware, listFindings } from './comparisons.ts';
import { importPublished } from './published.ts';

export { DEFAULT_DATA_DIR, type OpenOptions } from './open.ts';
export { applyMigrations, readMigrations, type MigrationResult } from './migrate.ts';
export { IdempotencyConflictError, isDatabaseUnavailable } from './errors.ts';
export { RunnerNameError, type RunnerIdentity } from './runners.ts';
export { CursorError } from './queries.ts';
export { hardwareFingerprint, settingsHash, requestHash } from './hashing.ts';
export type { IngestInput, IngestResult } from './ingest.ts';
export { compareVariants, findingsOf, listFindings, findSimilarHardware } from './comparisons.ts';
export { importPublished, publishedSubmissions, publishedVersion, PublishedImportError, type PublishedImportResult } from './published.ts';
export { createTestDatabase, TEST_PG_ADMIN_URL } from './testing.ts';

export type ResultsDb = Awaited<ReturnType<typeof openResultsDb>>;

/**
 * Opens the results database: PostgreSQL when `url` is given (e.g. the app's DATABASE_URL),
 * otherwise an embedded PGlite database in `options.dataDir` (default `.tunelab/results`).
 * Whoever opens it closes it.
 */
export async function openResultsDb(url?: string, options: OpenOptions = {}) {
  const conn = await openConnection(url, options);
  const { prisma } = conn;
  return {
    kind: conn.kind,
    description: conn.description,
    prisma,
    migrate: conn.migrate,
    scripts: conn.scripts,
    close: conn.close,
    async ping(): Promise<void> {
      await prisma.$queryRaw`SELECT 1`;
    },
    ingestRun: (input: IngestInput): Promise<IngestResult> => ingestRun(prisma, conn.sql, input),
    fingerprintOf: (hardware: RunSubmission['hardware']) => hardwareFingerprint(hardware),
    createRunner: (name: string) => createRunner(prisma, name),
    revokeRunner: (name: string) => revokeRunner(prisma, name),
    listRunners: () => listRunners(prisma),
    authenticateRunner: (token: string) => authenticateRunner(prisma, token),
    listRuns: (q: Parameters<typeof listRuns>[1]) => listRuns(prisma, q),
    getRun: (id: string) => getRun(prisma, id),
    listHardware: (q: Parameters<typeof listHardware>[1]) => listHardware(prisma, q),
    getHardware: (fingerprint: string) => getHardware(prisma, fingerprint),
    listScenarios: () => listScenarios(prisma),
    compare: (q: Parameters<typeof compareVariants>[1]) => compareVariants(prisma, q),
    listFindings: (q: Parameters<typeof listFindings>[1]) => listFindings(prisma, q),
    findSimilarHardware: (fingerprint: string, q: Parameters<typeof findSimilarHardware>[2]) => findSimilarHardware(prisma, fingerprint, q),
    importPublished: (scenariosDir: string) => importPublished({ prisma, sql: conn.sql }, scenariosDir),
  };
}
