/**
 * One submission with a duration of 1.8e308 s, or a start date in year 1 or 10000, used
 * to make `site:build` crash for everyone. The contract refuses such values at the API; a run read
 * back obeys the same contract (a reset deleted the read-back exceptions for rows that no
 * released API stored: reset development data instead). So: valid but hostile text (spreadsheet
 * formulas) builds, with every CSV cell neutralised; a row written around the contract stops the
 * build with one sentence naming the run and the field, not a stack trace.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestResultsDb } from './fresh-db.ts';
import { buildSite } from './build.ts';
import { SAMPLE, sampleRun, seedDemo } from './seed.ts';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tunelab-site-poisoned-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const MAX = Number.MAX_VALUE;

describe('site build over hostile values in the results database', () => {
  it('builds, and the healthy machine keeps its verdict', async () => {
    const dataDir = join(work, 'db');
    const db = await openTestResultsDb(dataDir);
    const poisoned: string[] = [];
    try {
      await seedDemo(db);
      const machine = { cores: 4, memoryGb: 16, disk: 'hdd' as const, cpuModel: 'Poisoned CPU' };
      const edits: [string, (s: ReturnType<typeof sampleRun>) => void][] = [
        // Valid input that a spreadsheet would evaluate when it opens a CSV download.
        [
          'formulas',
          (s) => {
            s.hardware.cpuModel = '=HYPERLINK("http://example.invalid/x","click")';
            s.hardware.os = '@SUM(A1)';
            s.hardware.kernel = '+1+1';
            s.database.version = '-2+3 PostgreSQL 15.19';
          },
        ],
      ];
      for (const [i, [name, edit]] of edits.entries()) {
        const submission = sampleRun(machine, i);
        edit(submission);
        const r = await db.ingestRun({
          submission,
          document: submission,
          idempotencyKey: `poisoned-${name}`,
          runnerId: null,
        });
        poisoned.push(r.run.id);
      }
    } finally {
      await db.close();
    }
    const out = join(work, 'dist');
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    expect(build.code, build.output.slice(-3000)).toBe(0);
    const scenario = await readFile(join(out, `scenarios/${SAMPLE.scenario.key}/index.html`), 'utf8');
    expect(scenario).toMatch(/2 cores \/ 24 GB \/ SSD/);
    // The poisoned class has its own table; the healthy class still has its verdict.
    expect(scenario).toContain('4 cores / 16 GB / HDD');
    // Its entry names the class, then what tells it from the poisoned group (e.g. the scale), and
    // links its page, where its verdict is.
    const entry = /<li id="g-[^"]+" class="measured-entry"[^>]*>\s*<a href="([^"]+)"[^>]*>2 cores \/ 24 GB \/ SSD/.exec(
      scenario,
    );
    expect(entry).not.toBeNull();
    const page = await readFile(join(out, entry![1]!, 'index.html'), 'utf8');
    expect(page).toMatch(/<h1>2 cores \/ 24 GB \/ SSD/);
    const healthy = page.slice(page.indexOf('class="measured-group"'));
    expect(healthy.slice(0, healthy.indexOf('</section>'))).toMatch(
      /class="verdict [a-z-]+"><span class="kind">Verdict<\/span>1-2 (is|and)/,
    );
    for (const id of poisoned) expect(existsSync(join(out, `runs/${id}/index.html`)), id).toBe(true);
    // No CSV cell starts with a formula character (OWASP CSV injection); the text is kept behind a '.
    const csvFiles = (await readdir(out, { recursive: true })).filter((f) => f.endsWith('.csv'));
    expect(csvFiles.length).toBeGreaterThan(2);
    let neutralised = 0;
    for (const f of csvFiles) {
      const body = await readFile(join(out, f), 'utf8');
      expect(body, f).not.toMatch(/(^|,|\r\n)"?[=+@\t]/);
      expect(body, f).not.toMatch(/(^|,|\r\n)"?-[^0-9]/);
      neutralised += body.split(`'=HYPERLINK`).length - 1;
    }
    expect(neutralised).toBeGreaterThan(0);
  });

  it('stops with a sentence naming the run and the field when a stored value breaks the contract', async () => {
    const dataDir = join(work, 'db');
    const db = await openTestResultsDb(dataDir);
    let id: string;
    try {
      const submission = sampleRun({ cores: 4, memoryGb: 16, disk: 'hdd', cpuModel: 'Poisoned CPU' }, 9);
      submission.samples.forEach((x) => {
        if (x.metric === 'duration') x.value = x.repetition % 2 ? MAX : -MAX;
      });
      id = (await db.ingestRun({ submission, document: submission, idempotencyKey: 'poisoned-max', runnerId: null }))
        .run.id;
    } finally {
      await db.close();
    }
    const build = await buildSite(join(work, 'dist-poisoned'), { TUNELAB_DATA_DIR: dataDir });
    expect(build.code).not.toBe(0);
    expect(build.output).toMatch(new RegExp(`run ${id} .*failed validation: samples\\.\\d+\\.value: must be between`));
  });
});
