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
 * - Files whose figures are single values rather than repeated runs are skipped with a reason.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { RunSubmission, parseServerVersion, type RunSubmissionInput } from '@tunelab/contracts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { SqlRunner } from './open.ts';
import { ingestRun } from './ingest.ts';
import { hardwareFingerprint } from './hashing.ts';

const GIB = 1024 ** 3;
const UNKNOWN_DATE = '1970-01-01T00:00:00.000Z';
export const PUBLISHED_RUNNER_VERSION = '0.0.0+published';
export const UNSPECIFIED_HARDWARE_CLASS = 'unspecified (published)';

const runs = z.record(z.string(), z.array(z.number()).min(1));
const PublishedMachine = z.object({
  id: z.string().min(1).max(100),
  label: z.string().max(300).optional(),
  cpu_cores: z.number().int().min(1),
  memory_gb: z.number().positive(),
  disk: z.string(),
  data_scale: z.number().optional(),
  runs_s: runs.optional(),
  runs_ms: runs.optional(),
  published_avg: z.record(z.string(), z.string()).optional(),
});
const PublishedFile = z.object({
  source: z.object({ title: z.string(), publisher: z.string().optional(), kind: z.string().optional() }).optional(),
  scenario: z.string().min(1).max(100),
  setup: z.object({ server_settings: z.record(z.string(), z.string()).optional(), server_version: z.string().optional() }).loose().optional(),
  variants: z.record(z.string(), z.string()).optional(),
  comparisons: z.array(z.tuple([z.string(), z.string()])).optional(),
  metric: z.object({ name: z.string(), unit: z.string() }).optional(),
  hardware: z.array(PublishedMachine).optional(),
  runs_s: runs.optional(),
  runs_ms: runs.optional(),
});
type PublishedFile = z.infer<typeof PublishedFile>;
type PublishedMachine = z.infer<typeof PublishedMachine>;

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

const STORAGE: Record<string, 'ssd' | 'hdd' | 'nvme'> = { ssd: 'ssd', hdd: 'hdd', nvme: 'nvme' };

/** The version of a published.json: sha256 of its bytes. */
export const publishedVersion = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Runs in seconds; `runs_ms` converted. */
function runsInSeconds(r: { runs_s?: Record<string, number[]> | undefined; runs_ms?: Record<string, number[]> | undefined }) {
  if (r.runs_s) return r.runs_s;
  if (r.runs_ms) return Object.fromEntries(Object.entries(r.runs_ms).map(([k, v]) => [k, v.map((x) => x / 1000)]));
  return null;
}

function serverVersion(file: PublishedFile): { version: string; major: number; minor: number } {
  // depesz's VACUUM FULL INPLACE ran on an 8.5 development build (see published.json variants).
  const stated = file.setup?.server_version ?? Object.values(file.variants ?? {}).map((t) => /server (\d+\.\d+[-\w]*)/.exec(t)?.[1]).find(Boolean);
  const parsed = stated ? parseServerVersion(stated) : null;
  return stated && parsed ? { version: stated, ...parsed } : { version: 'unspecified (published)', major: 0, minor: 0 };
}

/** Builds the submissions one published.json stands for; pure, for tests and the importer. */
export function publishedSubmissions(bytes: Buffer | string): { version: string; file: PublishedFile; runs: { machine: string; submission: RunSubmissionInput }[] } {
  const file = PublishedFile.parse(JSON.parse(String(bytes)));
  const version = publishedVersion(bytes);
  const metric = file.metric?.name ?? 'duration';
  const db = serverVersion(file);
  const machines: (PublishedMachine | { id: 'article'; unspecified: true; runs: Record<string, number[]> })[] = [];
  for (const m of file.hardware ?? []) machines.push(m);
  const top = runsInSeconds(file);
  if (top) machines.push({ id: 'article', unspecified: true, runs: top });

  const out = machines.flatMap((m) => {
    const values = 'unspecified' in m ? m.runs : runsInSeconds(m);
    if (!values) return [];
    const hardware =
      'unspecified' in m
        ? {
            cpuModel: `unspecified (published: ${file.source?.publisher ?? file.scenario}, hardware not described)`,
            physicalCores: 1,
            logicalCpus: 1,
            memoryBytes: GIB,
            storage: { kind: 'unknown' as const, model: null },
            filesystem: null,
            os: 'unspecified',
            kernel: 'unspecified',
            virtualization: null,
          }
        : {
            cpuModel: `unspecified (published: ${m.id})`,
            physicalCores: m.cpu_cores,
            logicalCpus: m.cpu_cores,
            memoryBytes: Math.round(m.memory_gb * GIB),
            storage: { kind: STORAGE[m.disk.toLowerCase()] ?? ('unknown' as const), model: null },
            filesystem: null,
            os: 'unspecified',
            kernel: 'unspecified',
            virtualization: null,
          };
    const params: Record<string, string | number> = { 'published.machine': m.id };
    if (file.source?.title) params['published.title'] = file.source.title;
    if (!('unspecified' in m)) {
      if (m.label) params['published.label'] = m.label;
      if (m.data_scale !== undefined) params['published.data_scale'] = m.data_scale;
      for (const [variant, avg] of Object.entries(m.published_avg ?? {})) params[`published.avg.${variant}`] = avg;
    }
    const submission: RunSubmissionInput = {
      scenario: { key: file.scenario, version },
      params,
      hardware,
      database: { engine: 'postgresql', ...db, settings: file.setup?.server_settings ?? {} },
      runnerVersion: PUBLISHED_RUNNER_VERSION,
      startedAt: UNKNOWN_DATE,
      finishedAt: UNKNOWN_DATE,
      samples: Object.entries(values).flatMap(([variant, xs]) =>
        xs.map((value, i) => ({ variant, repetition: i + 1, metric, unit: 's', value })),
      ),
      notes: [{ kind: 'published', text: `Figures published by ${file.source?.publisher ?? 'an article'}: ${file.source?.title ?? file.scenario}` }],
    };
    return [{ machine: m.id, submission }];
  });
  return { version, file, runs: out };
}

/**
 * Imports every `<scenariosDir>/<key>/published.json`. Idempotent: a second import replays
 * the stored runs. A published.json that changed since it was imported is refused
 * (IdempotencyConflictError from ingest, wrapped in PublishedImportError naming the file).
 */
export async function importPublished(db: { prisma: PrismaClient; sql: SqlRunner }, scenariosDir: string): Promise<PublishedImportResult> {
  const prisma = db.prisma;
  const result: PublishedImportResult = { imported: [], skipped: [] };
  const entries = (await readdir(scenariosDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  for (const key of entries) {
    const path = join(scenariosDir, key, 'published.json');
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      continue;
    }
    let built: ReturnType<typeof publishedSubmissions>;
    try {
      built = publishedSubmissions(bytes);
    } catch (err) {
      result.skipped.push({ scenario: key, reason: `${path} is not in a supported shape: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}` });
      continue;
    }
    if (built.file.scenario !== key) throw new PublishedImportError(`${path} says scenario "${built.file.scenario}" but lives in folder "${key}"`);
    if (built.runs.length === 0) {
      result.skipped.push({ scenario: key, reason: 'the article published single figures, not repeated runs (no runs_s / runs_ms)' });
      continue;
    }
    for (const { machine, submission } of built.runs) {
      const parsed = RunSubmission.safeParse(submission);
      if (!parsed.success) throw new PublishedImportError(`${path} (${machine}): ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
      const idempotencyKey = `published:${key}:${machine}`;
      let ingested;
      try {
        ingested = await ingestRun(prisma, db.sql, { submission: parsed.data, document: submission, idempotencyKey, runnerId: null, source: 'published' });
      } catch (err) {
        if (err instanceof Error && 'code' in err && err.code === 'idempotency-conflict') {
          throw new PublishedImportError(`${path} changed since it was imported as ${idempotencyKey}; published figures are immutable once imported`);
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
      result.imported.push({ scenario: key, machine, idempotencyKey, outcome: ingested.outcome, runId: ingested.run.id, samples: ingested.run.samples });
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
