/**
 * "Hardware like mine" by measured distance, in Chromium on a built site (the real
 * `astro build` from a temporary PGlite database): pasting the JSON `tunelab probe --json` printed
 * (tests/fixtures/probe-json.json) into the picker picks the class, distance, likeness and basis
 * POST /v1/similar answers for the same JSON over the same database — on a scenario page and at
 * home, with and without the probe's machine; the figures stay in the URL; a paste that is not a
 * probe gets a sentence naming what is wrong and picks nothing.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { ProbeReport, RunSubmission, type MeasuredHardware, type SimilarBySpec } from '@tunelab/contracts';
import { buildApp } from '@tunelab/api';
import type { ResultsDb } from '@tunelab/results-db';
import { openTestResultsDb } from './fresh-db.ts';
import { ingestDocument } from '@tunelab/results-db/testing';
import { buildSite } from './build.ts';
import { REPO_ROOT, sampleRun, type MachineSpec } from './seed.ts';
import { serveStatic } from './static-server.ts';

const PROBE_TEXT = readFileSync(join(REPO_ROOT, 'tests/fixtures/probe-json.json'), 'utf8');
const PROBE = ProbeReport.parse(JSON.parse(PROBE_TEXT));
const SCENARIO = 'vacuum-index-cleanup';
/** A static server's port in this helper's range. */
const PORT = 4731;

const work = await mkdtemp(join(tmpdir(), 'tl-similar-probe-'));
const dataDir = join(work, 'db');
let server: Awaited<ReturnType<typeof serveStatic>>;
let browser: Browser;
let page: Page;

/** PROBE's figures on a machine `scale` times as fast on every one. */
function probed(scale: number): MeasuredHardware {
  const { directory: _d, tier: _t, machine: _m, ...m } = PROBE;
  return {
    ...m,
    fsyncP50Us: m.fsyncP50Us! / scale,
    readIopsQd1: m.readIopsQd1! * scale,
    readIopsQd16: m.readIopsQd16! * scale,
    seqWriteMBps: m.seqWriteMBps! * scale,
    cpuScore: m.cpuScore! * scale,
  };
}

beforeAll(async () => {
  const db = await openTestResultsDb(dataDir);
  try {
    await db.migrate();
    const machines: [MachineSpec, (MeasuredHardware | null)[]][] = [
      // This VM's size probed like the fixture, twice (the class's figures are the medians).
      [{ cores: 2, memoryGb: 24, disk: 'unknown', cpuModel: 'Probed VM' }, [probed(1), probed(1.3)]],
      // Twice the cores, twice as fast on every figure.
      [{ cores: 4, memoryGb: 24, disk: 'unknown', cpuModel: 'Fast VM' }, [probed(2)]],
      // The same size, never probed: kernel says SSD.
      [{ cores: 2, memoryGb: 24, disk: 'ssd', cpuModel: 'Bare SSD' }, [null, null]],
      // An 8-core HDD box, never probed.
      [{ cores: 8, memoryGb: 32, disk: 'hdd', cpuModel: 'Bare HDD' }, [null]],
    ];
    let n = 0;
    for (const [machine, probes] of machines)
      for (const measured of probes) {
        const s = sampleRun(machine, n);
        const submission = RunSubmission.parse(measured ? { ...s, hardware: { ...s.hardware, measured } } : s);
        await ingestDocument(db, submission, `similar-probe-${n++}`);
      }
  } finally {
    await db.close();
  }
  const out = join(work, 'dist');
  const built = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
  expect(built.code, built.output).toBe(0);
  server = await serveStatic(out, PORT);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  page.setDefaultTimeout(20_000);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

/** POST /v1/similar over the built site's database (opened after the build, as its only owner). */
async function postSimilar(body: unknown, query: Record<string, string>): Promise<SimilarBySpec> {
  const db: ResultsDb = await openTestResultsDb(dataDir);
  const app = await buildApp({ resultsDb: db, migrate: false, fleet: false, readRateLimitPerMinute: 100_000 });
  try {
    const res = await app.inject({
      method: 'POST',
      url: `/v1/similar?${new URLSearchParams(query).toString()}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<SimilarBySpec>();
  } finally {
    await app.close();
    await db.close();
  }
}

/** Opens the picker's paste box, pastes `text` and asks. */
async function paste(text: string) {
  await page.click('form.picker .picker-probe summary');
  await page.fill('#picker-probe', text);
  await page.click('form.picker button[type="submit"]');
}

/** The picker's answer once it has one. */
async function picked() {
  const result = page.locator('.picker-result[data-class]');
  await result.waitFor();
  return {
    class: await result.getAttribute('data-class'),
    distance: Number(await result.getAttribute('data-distance')),
    like: (await result.getAttribute('data-like')) === 'true',
    basis: (await result.getAttribute('data-basis'))?.split(',') ?? [],
    text: (await result.textContent()) ?? '',
  };
}

describe('the picker ranks a pasted `tunelab probe --json` as POST /v1/similar does', () => {
  for (const [path, scenario] of [
    [`/scenarios/${SCENARIO}/`, SCENARIO],
    ['/', null],
  ] as const)
    it(`on ${path}: the same class, distance, likeness and basis, the figures in the URL`, async () => {
      const api = await postSimilar(PROBE, { source: 'measured', ...(scenario ? { scenario } : {}) });
      const first = api.items[0]!;
      // The fixture's figures rank the class probed like it first, on all six figures.
      expect(first.class).toMatch(/^2 cores \/ 24 GB \//);
      expect(first.basis).toEqual(['cores', 'memory', 'fsync', 'iops', 'mbps', 'cpu']);
      await page.goto(`${server.url}${path}`);
      await paste(PROBE_TEXT);
      const got = await picked();
      expect(got).toMatchObject({ class: first.class, distance: first.distance, like: api.like, basis: first.basis });
      expect(got.text).toMatch(
        api.like ? /^Nearest measured class to 2 cores \/ 24 GB \// : /^No measured class is like/,
      );
      await expect(page.locator('[data-picker-target] .picked').first().getAttribute('data-class')).resolves.toBe(
        first.class,
      );
      // The machine filled the form; the figures are in the URL under GET /v1/similar's names: a permalink.
      await expect(page.locator('form.picker input[name="cores"]').inputValue()).resolves.toBe('2');
      await expect(page.locator('form.picker input[name="memory"]').inputValue()).resolves.toBe('24');
      const url = new URL(page.url());
      expect(Number(url.searchParams.get('fsyncP50Us'))).toBe(PROBE.fsyncP50Us);
      expect(url.searchParams.get('cpuWorkload')).toBe(PROBE.cpuWorkload);
      // (A new page load: going to the same URL with its #fragment would only scroll.)
      const permalink = page.url();
      await page.goto('about:blank');
      await page.goto(permalink);
      expect(await picked()).toEqual(got);
      // Forgetting the figures forgets their tier too: the kernel could not tell this disk, so the picker asks.
      await page.click('form.picker .picker-probe summary');
      await page.click('form.picker .picker-forget');
      await page.waitForFunction(() => !location.search.includes('fsyncP50Us'));
      await expect
        .poll(() => page.locator('.picker-result').textContent(), { timeout: 20_000 })
        .toMatch(/^Say which storage/);
      expect(await page.locator('.picker-result').getAttribute('data-class')).toBeNull();
    });

  it('without the probe’s machine, takes the cores and memory typed in the form (as ?cores=&memoryGb=)', async () => {
    const { machine: _m, ...withoutMachine } = PROBE;
    const api = await postSimilar(withoutMachine, {
      source: 'measured',
      scenario: SCENARIO,
      cores: '8',
      memoryGb: '32',
    });
    await page.goto(`${server.url}/scenarios/${SCENARIO}/`);
    await page.fill('form.picker input[name="cores"]', '8');
    await page.fill('form.picker input[name="memory"]', '32');
    await paste(JSON.stringify(withoutMachine));
    expect(await picked()).toMatchObject({
      class: api.items[0]!.class,
      distance: api.items[0]!.distance,
      like: api.like,
      basis: api.items[0]!.basis,
    });
  });

  it('a paste that is not a probe gets a sentence naming what is wrong, and picks nothing', async () => {
    for (const [text, said] of [
      ['{"fsyncP50Us": ', /^The pasted text is not JSON/],
      [
        JSON.stringify({ ...PROBE, fsyncP50Us: -1 }),
        /^The pasted text is not tunelab probe --json output: fsyncP50Us: /,
      ],
      [JSON.stringify({ ...PROBE, bogus: 1 }), /^The pasted text is not tunelab probe --json output: .*bogus/],
    ] as const) {
      await page.goto(`${server.url}/scenarios/${SCENARIO}/`);
      await paste(text);
      const result = page.locator('.picker-result');
      await expect.poll(() => result.textContent(), { timeout: 20_000 }).toMatch(said);
      expect(await result.getAttribute('data-class')).toBeNull();
      expect(await page.locator('[data-picker-target] .picked').count()).toBe(0);
      expect(new URL(page.url()).search).toBe('');
    }
  });
});
