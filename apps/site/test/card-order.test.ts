/**
 * A scenario page opens with its answer: where one class is measured on two server versions and
 * only the newer one decides, the decided card comes first, not the older major's undecided one
 * (cards sat oldest major first, so a page could open with "undecided" above a decided answer).
 * Over a real results database (PGlite, the real ingest and answers), no build: the page's order
 * is `scenarioAnswers`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSubmission } from '@tunelab/contracts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { cellWord, scenarioAnswers } from '../src/lib/answer.ts';
import { readSiteConfig } from '../src/lib/env.ts';
import { loadSiteData, type SiteData } from '../src/lib/load.ts';
import { openTestResultsDb } from './fresh-db.ts';
import { sampleRun } from './seed.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-card-order-'));
const machine = { cores: 4, memoryGb: 16, disk: 'ssd' } as const;
let data: SiteData;

beforeAll(async () => {
  const dataDir = join(work, 'db');
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    // PostgreSQL 14: two runs that disagree (one with the variants swapped): undecided.
    // PostgreSQL 18: four runs that agree: decided.
    const runs: [number, boolean][] = [
      [14, false],
      [14, true],
      [18, false],
      [18, false],
      [18, false],
      [18, false],
    ];
    for (const [i, [major, swapped]] of runs.entries()) {
      const s = sampleRun(machine, i, undefined, swapped ? { swap: ['1-1', '1-2'] } : {});
      const submission = RunSubmission.parse({
        ...s,
        database: { ...s.database, major, minor: 1, version: `PostgreSQL ${major}.1 on x86_64-pc-linux-gnu` },
      });
      await ingestDocument(db, submission, `card-order-${i}`);
    }
  } finally {
    await db.close();
  }
  data = await loadSiteData(readSiteConfig({ TUNELAB_DATA_DIR: dataDir }));
});
afterAll(() => rm(work, { recursive: true, force: true }));

describe('the answer cards of a scenario page', () => {
  it('put the decided server version of a class before its undecided one', () => {
    const sc = data.scenarios.find((s) => s.key === 'vacuum-index-cleanup')!;
    const cards = scenarioAnswers(sc).map((a) => ({
      major: a.group.engine.major,
      words: a.pairs.filter((p) => p.baseline === '1-1').map((p) => cellWord(p).word),
    }));
    // The fixture is what the test is about: 14 undecided, 18 decided.
    expect(cards).toHaveLength(2);
    expect(cards.find((c) => c.major === 14)!.words).not.toContain('better');
    expect(cards.find((c) => c.major === 18)!.words.some((w) => w === 'better' || w === 'worse')).toBe(true);
    expect(cards[0]!.major).toBe(18);
  });
});
