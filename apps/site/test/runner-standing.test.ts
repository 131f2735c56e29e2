/**
 * A class weighs runners, not runs, and the page says so: two runners (tokens) with one machine
 * each of one hardware class, one whose runs find 1-2 faster than 1-1 and one whose runs (variants
 * swapped) find it slower. The real `astro build` over that results database; in Chromium, the
 * class's card on the scenario page gives no advice on that pair and says why in the runners' own
 * sentence (as answers computed it), says of the other pair that both runners give its verdict, and
 * counts the runners under the card. A class of one runner says nothing about runners.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AnswersQuery } from '@tunelab/contracts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { openTestResultsDb } from './fresh-db.ts';
import { sampleRun, type MachineSpec } from './seed.ts';
import { openBuiltSite } from './open-site.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-runner-standing-'));
const dataDir = join(work, 'db');
let site: Awaited<ReturnType<typeof openBuiltSite>> | undefined;
let page: Page;
let url = '';
let contested = '';
let agreed = '';

// Two machines of one class (4 cores, 16 GiB, SSD), one per runner; a third class with one runner.
const honest: MachineSpec = { cores: 4, memoryGb: 16, disk: 'ssd', id: 'honest' };
const other: MachineSpec = { cores: 4, memoryGb: 16, disk: 'ssd', id: 'other' };
const alone: MachineSpec = { cores: 8, memoryGb: 32, disk: 'nvme', id: 'alone' };

beforeAll(async () => {
  const db = await openTestResultsDb(dataDir);
  try {
    const a = await db.createRunner('runner-a');
    const b = await db.createRunner('runner-b');
    for (let i = 0; i < 4; i++) {
      await ingestDocument(db, sampleRun(honest, i), `a-${i}`, a.id);
      await ingestDocument(db, sampleRun(other, 10 + i, undefined, { swap: ['1-1', '1-2'] }), `b-${i}`, b.id);
      await ingestDocument(db, sampleRun(alone, 20 + i), `c-${i}`, a.id);
    }
    const answers = await db.answers(AnswersQuery.parse({ scenario: 'vacuum-index-cleanup' }));
    const pairs = answers?.groups.find((g) => g.group.hardware.physicalCores === 4)?.pairs ?? [];
    const pair = (b: string, c: string) => pairs.find((p) => p.baseline === b && p.candidate === c)?.runners;
    expect(pair('1-1', '1-2')?.standing).toBe('contested');
    expect(pair('2-1', '2-2')?.standing).toBe('agreed');
    contested = pair('1-1', '1-2')!.sentence;
    agreed = pair('2-1', '2-2')!.sentence;
  } finally {
    await db.close();
  }
  site = await openBuiltSite(join(work, 'dist'), dataDir);
  page = site.page;
  url = site.url;
});
afterAll(async () => {
  await site?.close();
  await rm(work, { recursive: true, force: true });
});

describe("the scenario page says how a class's runners answer", () => {
  it('a contested pair gives no advice and says why; an agreed pair says which runners give its verdict', async () => {
    await page.goto(`${url}/scenarios/vacuum-index-cleanup/`);
    const card = page.locator('article.answer-card[data-cores="4"]').first();
    const pair = (b: string, c: string) => card.locator(`li.answer-pair[data-baseline="${b}"][data-candidate="${c}"]`);
    // The contested pair: its advice names no way, in the runners' own words (once, not again below it).
    const advice = await pair('1-1', '1-2').locator('p.advice').first().innerText();
    expect(advice).toContain(`no advice from this class: ${contested}`);
    expect(await pair('1-1', '1-2').locator('p.runners').count()).toBe(0);
    expect((await pair('1-1', '1-2').innerText()).split(contested).length - 1).toBe(1);
    // The other pair: both runners' own runs give the class's verdict, and the card says so.
    const runners = pair('2-1', '2-2').locator('p.runners');
    expect(await runners.getAttribute('data-standing')).toBe('agreed');
    expect((await runners.innerText()).trim()).toBe(`${agreed}.`);
    expect(await card.locator('p.measured-on').innerText()).toMatch(/^8 runs on 2 machines of 2 runners · newest /);
  });

  it('a class of one runner says nothing about runners', async () => {
    await page.goto(`${url}/scenarios/vacuum-index-cleanup/`);
    const card = page.locator('article.answer-card[data-cores="8"]').first();
    expect(await card.locator('p.runners').count()).toBe(0);
    expect(await card.locator('p.measured-on').innerText()).toMatch(/^4 runs on 1 machine · newest /);
  });
});
