/**
 * Imports the figures an article published (`scenarios/<key>/published.json`) as runs whose
 * source is `published`, so a report can put "published" next to "measured here".
 *
 * Conventions (README "Published results"):
 * - One run per scenario × machine the article describes; idempotency key
 *   `published:<scenario>:<machine id>` (`…:article` when the article names no machine).
 *   Re-importing the same file stores nothing; a changed file is refused for that key.
 * - Scenario version = sha256 of the published.json bytes. Measured versions are hashes of the
 *   scenario folder, so published and measured runs never share a version and never pool.
 * - Hardware is what the article says ("8 cores, 32 GB RAM, SSD"): cores, memory and disk kind
 *   as given, cpuModel "unspecified (published: server-1)", os/kernel "unspecified". An article
 *   that describes no machine gets storage "unknown" and placeholder sizes (1 core, 1 GiB), and
 *   its hardware class is "unspecified (published)". hardware_profiles.source = 'published'.
 * - Durations are stored in seconds (`runs_ms` is divided by 1000), like the scenarios' timed metrics.
 * - The article's declared comparison pairs are recorded on the scenario version.
 * - A `sweep` table (figures per point of a swept parameter) becomes one run of the article whose
 *   samples carry their point, in the unit the file states.
 * - Files whose figures are single values rather than repeated runs or a sweep are skipped with a reason.
 */
import path from 'node:path';
import { RunSubmission } from '@tunelab/contracts';
import { publishedSubmissions } from '@tunelab/answers';
import { listScenarioDirs, parsePublished, readPublishedBytes, ScenarioError } from '@tunelab/scenarios';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { SqlRunner } from './open.ts';
import { ingestRun } from './ingest.ts';
import { hardwareFingerprint } from './hashing.ts';
import type { DbContext, Queries } from './context.ts';

export { publishedSubmissions };
export const UNSPECIFIED_HARDWARE_CLASS = 'unspecified (published)';

export type PublishedImportItem = {
  scenario: string;
  machine: string;
  idempotencyKey: string;
  outcome: 'created' | 'replayed';
  runId: string;
  samples: number;
};
export type PublishedImportResult = {
  imported: PublishedImportItem[];
  skipped: { scenario: string; reason: string }[];
};

export class PublishedImportError extends Error {}

/**
 * Imports every `<scenariosDir>/<key>/published.json`. Idempotent: a second import replays
 * the stored runs. A published.json that changed since it was imported is refused
 * (IdempotencyConflictError from ingest, wrapped in PublishedImportError naming the file).
 */
export async function importPublished(
  db: { prisma: PrismaClient; sql: SqlRunner },
  scenariosDir: string,
): Promise<PublishedImportResult> {
  const prisma = db.prisma;
  const result: PublishedImportResult = { imported: [], skipped: [] };
  for (const dir of await listScenarioDirs(scenariosDir)) {
    const key = path.basename(dir);
    const file = path.join(dir, 'published.json');
    const bytes = await readPublishedBytes(dir);
    if (!bytes) continue;
    const parsed = parsePublished(bytes, `${key}/published.json`);
    if (!parsed.ok) {
      result.skipped.push({
        scenario: key,
        reason: `${file} is not in a supported shape: ${new ScenarioError(parsed.issues).message.slice(0, 300)}`,
      });
      continue;
    }
    const built = { ...parsed.published, runs: publishedSubmissions(parsed.published.file, parsed.published.version) };
    if (built.file.scenario !== key)
      throw new PublishedImportError(`${file} says scenario "${built.file.scenario}" but lives in folder "${key}"`);
    if (built.runs.length === 0) {
      result.skipped.push({
        scenario: key,
        reason:
          'the article published single figures, not repeated runs (no runs_s / runs_ms) or a sweep table (no sweep)',
      });
      continue;
    }
    for (const { machine, submission } of built.runs) {
      const parsed = RunSubmission.safeParse(submission);
      if (!parsed.success)
        throw new PublishedImportError(
          `${file} (${machine}): ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
        );
      const idempotencyKey = `published:${key}:${machine}`;
      let ingested;
      try {
        ingested = await ingestRun(prisma, db.sql, {
          submission: parsed.data,
          document: submission,
          idempotencyKey,
          runnerId: null,
          source: 'published',
        });
      } catch (err) {
        if (err instanceof Error && 'code' in err && err.code === 'idempotency-conflict') {
          throw new PublishedImportError(
            `${file} changed since it was imported as ${idempotencyKey}; published figures are immutable once imported`,
          );
        }
        throw err;
      }
      if (machine === 'article' && parsed.data.hardware.storage.kind === 'unknown') {
        // The class "1 cores / 1 GB / unknown disk" would describe placeholders, not a machine.
        await prisma.hardwareProfile.updateMany({
          where: { fingerprint: hardwareFingerprint(parsed.data.hardware), source: 'published' },
          data: { hardwareClass: UNSPECIFIED_HARDWARE_CLASS },
        });
      }
      result.imported.push({
        scenario: key,
        machine,
        idempotencyKey,
        outcome: ingested.outcome,
        runId: ingested.run.id,
        samples: ingested.run.samples,
      });
    }
    const comparisons = (built.file.comparisons ?? []).map(([baseline, candidate]) => ({ baseline, candidate }));
    if (comparisons.length > 0) {
      await prisma.$executeRaw`UPDATE scenario_versions v SET comparisons = ${JSON.stringify(comparisons)}::jsonb
        FROM scenarios s WHERE s.id = v.scenario_id AND s.key = ${key} AND v.version_hash = ${built.version}
          AND v.comparisons IS DISTINCT FROM ${JSON.stringify(comparisons)}::jsonb`;
    }
  }
  return result;
}

/** The articles' published results as a `ResultsDb` method (see context.ts). */
export const publishedQueries = {
  importPublished: (db: DbContext, scenariosDir: string) => importPublished(db, scenariosDir),
} satisfies Queries;
