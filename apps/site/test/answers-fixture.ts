/**
 * The answers-first fixture: a results database like the one the site was reviewed on — every
 * scenario's real run (tests/fixtures/real-runs, a 2-core VM), vacuum-index-cleanup on
 * PostgreSQL 14, 15 and 17 (real runs, one each at a different time), and one 8-core SSD class on
 * PostgreSQL 14, 15 and 17 at two scales (synthetic, like the sample) — plus the articles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunSubmission } from '@tunelab/contracts';
import type { ResultsDb } from '@tunelab/results-db';
import { ingestDocument } from '@tunelab/results-db/testing';
import { REPO_ROOT, SCENARIOS_DIR, sampleRun } from './seed.ts';

export const FIXTURE_MAJORS = [14, 15, 17];
export const FIXTURE_SCALES = [200_000, 400_000];
/** The synthetic class: the article's server size, on SSD. */
export const FIXTURE_MACHINE = { cores: 8, memoryGb: 32, disk: 'ssd', cpuModel: 'Intel Xeon Gold 6338' } as const;

const REAL = join(REPO_ROOT, 'tests/fixtures/real-runs');
const realRun = (file: string) =>
  RunSubmission.parse((JSON.parse(readFileSync(join(REAL, file), 'utf8')) as { submission: unknown }).submission);

export async function seedAnswersFixture(db: ResultsDb): Promise<void> {
  await db.migrate();
  await db.importPublished(SCENARIOS_DIR);
  const files = [
    ...readdirSync(REAL).filter((f) => f.endsWith('.json')),
    ...readdirSync(join(REAL, 'versions'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => `versions/${f}`),
  ].sort();
  for (const [i, f] of files.entries()) await ingestDocument(db, realRun(f), `answers-real-${i}`);
  let n = 0;
  for (const major of FIXTURE_MAJORS)
    for (const rows of FIXTURE_SCALES) {
      const s = sampleRun(FIXTURE_MACHINE, n, undefined, { params: { rows } });
      const submission = RunSubmission.parse({
        ...s,
        database: { ...s.database, major, minor: 1, version: `PostgreSQL ${major}.1 on x86_64-pc-linux-gnu` },
      });
      await ingestDocument(db, submission, `answers-synthetic-${n++}`);
    }
}
