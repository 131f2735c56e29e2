/**
 * In Chromium over its fixture (every scenario's real run, vacuum-index-cleanup on
 * PostgreSQL 14, 15 and 17, one 8-core SSD class on 14, 15 and 17 at two scales; the real
 * `astro build`): the home page's first screen holds an answer sentence at 1366 and 390 px and
 * its matrix every measured server version; the versions table does not scroll at 1366 px; the
 * "hardware like mine" picker gives, for three machines, the class, distance and likeness GET
 * /v1/similar gives over the same database; axe-core finds no violation in the light and dark
 * colour schemes on every page type.
 */
import { createRequire } from 'node:module';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { PairComparison, ScenarioAnswers, SimilarBySpec } from '@tunelab/contracts';
import { formatP } from '@tunelab/answers';
import { buildApp } from '@tunelab/api';
import { openTestResultsDb } from './fresh-db.ts';
import { seedAnswersFixture } from './answers-fixture.ts';
import { openBuiltSite } from './open-site.ts';

const work = await mkdtemp(join(tmpdir(), 'tl-answers-first-'));
const dataDir = join(work, 'db');
let out: string;
let site: Awaited<ReturnType<typeof openBuiltSite>> | undefined;
let server: { url: string };
// One page throughout: Chromium here runs as a single process, and closing a page can end it.
let page: Page;

beforeAll(async () => {
  const db = await openTestResultsDb(dataDir);
  try {
    await seedAnswersFixture(db);
  } finally {
    await db.close();
  }
  out = join(work, 'dist');
  site = await openBuiltSite(out, dataDir);
  server = { url: site.url };
  page = site.page;
});
afterAll(async () => {
  await site?.close();
  await rm(work, { recursive: true, force: true });
});

describe('the home page answers on its first screen', () => {
  for (const [width, height] of [
    [1366, 900],
    [390, 844],
  ] as const)
    it(`holds an answer sentence within the first screen at ${width} px`, async () => {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${server.url}/`);
      const first = page.locator('.answer-line').first();
      const box = (await first.locator('.line-answer').boundingBox())!;
      expect(box.y + box.height, `the first answer ends at ${box.y + box.height}`).toBeLessThanOrEqual(height);
      // A sentence that answers: the advice with both means, the class and the server.
      await expect(first.locator('.line-answer').textContent()).resolves.toMatch(/prefer .+: .+ for .+ vs .+ for /);
      await expect(first.locator('.line-where').textContent()).resolves.toMatch(/^On .+, (PostgreSQL|MariaDB) \d+/);
      // Nothing scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    });

  it('ranks the lines by the strength of the evidence, and drops no server version', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${server.url}/`);
    const lines = await page.locator('.answer-line').evaluateAll((els) =>
      els.map((e) => ({
        strong: e.querySelector('.line-answer strong') !== null,
        p: Number(/p (?:= )?([<\d.]+)/.exec(e.textContent ?? '')?.[1]?.replace('<', '') ?? 1),
      })),
    );
    expect(lines.length).toBe(5);
    // Significant (bold) lines first, then by p.
    const firstWeak = lines.findIndex((l) => !l.strong);
    expect(lines.slice(firstWeak === -1 ? lines.length : firstWeak).every((l) => !l.strong)).toBe(true);
    const strong = lines.filter((l) => l.strong).map((l) => l.p);
    expect(strong).toEqual([...strong].sort((a, b) => a - b));
    // Every server version measured has its column; vacuum-index-cleanup has a row per class and scale.
    const columns = await page.locator('table.matrix-table thead th').allTextContents();
    // The MariaDB run is 10.11.19: its major is 10.11 (contracts' majorOfParts), never "MariaDB 10".
    expect(columns).toEqual(['Class · scale', 'PostgreSQL 14', 'PostgreSQL 15', 'PostgreSQL 17', 'MariaDB 10.11']);
    await expect(page.locator('.lede').textContent()).resolves.toContain('PostgreSQL 14, 15 and 17; MariaDB 10.11');
    const vic = page.locator('tbody#m-vacuum-index-cleanup tr[data-class]');
    expect(await vic.count()).toBe(4);
    await expect(vic.locator('td a').count()).resolves.toBe(2 + 1 + 3 + 3);
    // The lede does not say "many machines" beside "2 machines".
    await expect(page.locator('.lede').textContent()).resolves.not.toContain('many machines');
  });
});

describe('the scenario page answers first', () => {
  // A card's best verdict: a difference, then an equivalence, then undecided or unstable, then none.
  const RANK: Record<string, number> = { better: 0, worse: 0, equivalent: 1, unstable: 2, undecided: 2 };
  it('opens with its strongest answer, and each class with its own strongest', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    for (const key of ['vacuum-index-cleanup', 'vacuum-full-rewrite', 'recovery-init-sync']) {
      await page.goto(`${server.url}/scenarios/${key}/`);
      const cards = await page.locator('.answer-cards > article.answer-card').evaluateAll(
        (els, rank) =>
          els.map((e) => ({
            cls: e.getAttribute('data-class')!,
            rank: Math.min(
              3,
              ...Array.from(e.querySelectorAll('[data-verdict]')).map(
                (x) => rank[x.getAttribute('data-verdict')!] ?? 3,
              ),
            ),
          })),
        RANK,
      );
      expect(cards.length, key).toBeGreaterThan(0);
      expect(cards[0]!.rank, `${key}: the first card`).toBe(Math.min(...cards.map((c) => c.rank)));
      for (const cls of new Set(cards.map((c) => c.cls))) {
        const mine = cards.filter((c) => c.cls === cls);
        expect(mine[0]!.rank, `${key}, ${cls}: its first card`).toBe(Math.min(...mine.map((c) => c.rank)));
      }
    }
  });

  it('draws one release line open when no pair changed across releases, folds the others, and says the same note once', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
    const section = page.locator('#release-line');
    const all = await section.locator('figure').count();
    expect(all).toBeGreaterThan(2);
    await expect(section.locator(':scope > figure').count()).resolves.toBe(1);
    await expect(section.locator('details.more > figure').count()).resolves.toBe(all - 1);
    await expect(section.locator('details.more > summary').textContent()).resolves.toBe(
      `${all - 1} more release lines, with no change reported`,
    );
    const notes = await section.locator('p.note').allTextContents();
    expect(notes).toHaveLength(1);
    // Said above every line, it names the class its "this class" means (or says it holds on each).
    expect(notes[0]).toMatch(
      /^On (\d+ cores \/ \d+ GB \/ \w+|each of the \d+ classes): no change between adjacent releases is reported: /,
    );
  });
});

describe('server majors', () => {
  it('names MariaDB 10.11 by its release line on every page that names a server', async () => {
    for (const path of ['/', '/scenarios/innodb-compression-insert/', '/coverage/']) {
      await page.goto(`${server.url}${path}`);
      const text = await page.evaluate(() => document.body.innerText);
      expect(text, path).toContain('MariaDB 10.11');
      expect(text, path).not.toMatch(/MariaDB 10(?![.\d])/);
    }
  });
});

describe('the p beside a verdict', () => {
  it('is the p the verdict was decided by, as GET /v1/answers gives it (Bonferroni-adjusted when several decisions)', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    const db = await openTestResultsDb(dataDir);
    const app = await buildApp({ resultsDb: db, migrate: false, fleet: false, readRateLimitPerMinute: 100_000 });
    // The site answers with noisy runs left out (its default).
    const answersOf = async (scenario: string) => {
      const res = await app.inject({ method: 'GET', url: `/v1/answers?scenario=${scenario}&noisy=exclude` });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<ScenarioAnswers>();
    };
    const decided = (m: PairComparison) =>
      m.adjusted && m.adjusted.family > 1
        ? `Bonferroni-adjusted p ${formatP(m.adjusted.p)} over ${m.adjusted.family} decisions`
        : `p ${formatP(m.adjusted!.p)}`;
    let adjustedLines = 0;
    let adjustedRows = 0;
    try {
      await page.goto(`${server.url}/`);
      const lines = await page.locator('.answer-line').evaluateAll((els) =>
        els.map((e) => ({
          scenario: e.getAttribute('data-scenario')!,
          group: e.getAttribute('data-group')!,
          baseline: e.getAttribute('data-baseline')!,
          candidate: e.getAttribute('data-candidate')!,
          evidence: e.querySelector('.line-answer .meta')?.textContent ?? '',
        })),
      );
      for (const l of lines) {
        const a = (await answersOf(l.scenario)).groups.find((g) => g.group.key === l.group)!;
        const m = a.pairs.find((p) => p.baseline === l.baseline && p.candidate === l.candidate)!.measured!;
        if (!m.welch) continue;
        expect(l.evidence, l.scenario).toContain(decided(m));
        if (m.adjusted && m.adjusted.family > 1) {
          adjustedLines++;
          // Not the raw p beside a verdict the adjusted one decided.
          expect(l.evidence.replace(decided(m), '')).not.toContain(`p ${formatP(m.welch.p)}`);
        }
      }
      // The versions tables (on the scenario's versions page, every pair in full): each row's verdict
      // with the p its group's answer decided it by.
      const vic = (await answersOf('vacuum-index-cleanup')).groups;
      await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/versions/`);
      const rows = await page.locator('section.version-pair').evaluateAll((sections) =>
        sections.flatMap((s) =>
          Array.from(s.querySelectorAll('table.version-table:not(.variant-across) tbody tr')).map((tr) => ({
            group: tr.getAttribute('data-group')!,
            baseline: s.getAttribute('data-baseline')!,
            candidate: s.getAttribute('data-candidate')!,
            verdict: tr.querySelector('td[data-label="Verdict"]')?.textContent ?? '',
          })),
        ),
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        const m = vic
          .find((g) => g.group.key === r.group)!
          .pairs.find((p) => p.baseline === r.baseline && p.candidate === r.candidate)!.measured!;
        if (!m.welch) continue;
        expect(r.verdict).toContain(decided(m));
        if (m.adjusted && m.adjusted.family > 1) adjustedRows++;
      }
    } finally {
      await app.close();
      await db.close();
    }
    // The fixture's answers make several tests per group: the test saw adjusted p-values on both pages.
    expect(adjustedLines).toBeGreaterThan(0);
    expect(adjustedRows).toBeGreaterThan(0);
  });
});

describe('the scenario page per server version', () => {
  it('links each pair the version does not change to its versions page, whose tables do not scroll at 1366 px, in version order, with how the versions were measured', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
    // Where the version does not change the answer (its summary says so), its figures are a link
    // to the pair on the scenario's versions page.
    const linked = await page.locator('section.version-pair:has(.version-figures a)').evaluateAll((els) =>
      els.map((e) => ({
        summary: e.querySelector('.version-summary')?.textContent ?? '',
        href: e.querySelector('.version-figures a')?.getAttribute('href') ?? '',
        id: e.getAttribute('aria-labelledby'),
      })),
    );
    expect(linked.length).toBeGreaterThan(0);
    for (const l of linked) {
      expect(l.summary).toMatch(/^No evidence that the version changes the answer/);
      expect(l.href).toBe(`/scenarios/vacuum-index-cleanup/versions/#${l.id}`);
    }
    await expect(page.locator('section.versions table').count()).resolves.toBe(0);
    // There every pair in full, in the same order.
    await page.locator('section.version-pair .version-figures a').first().click();
    await page.waitForURL('**/scenarios/vacuum-index-cleanup/versions/#*');
    await expect(
      page.locator('section.version-pair').evaluateAll((els) => els.map((e) => e.getAttribute('aria-labelledby'))),
    ).resolves.toEqual(linked.map((l) => l.id));
    const regions = page.locator('section.versions .table-scroll');
    expect(await regions.count()).toBeGreaterThan(0);
    const widths = await regions.evaluateAll((els) => els.map((e) => [e.scrollWidth, e.clientWidth]));
    for (const [scroll, client] of widths) expect(scroll).toBeLessThanOrEqual(client!);
    for (const table of await page.locator('section.versions table.version-table:not(.variant-across)').all()) {
      const majors = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.major)));
      expect(majors).toEqual([...majors].sort((a, b) => a - b));
    }
    await expect(page.locator('section.versions .version-how').first().textContent()).resolves.toMatch(
      /^Each version was measured in its own runs, not side by side: PostgreSQL 14 \d{4}-\d\d-\d\d/,
    );
    // The same variant across versions: a row per variant, a verdict for the newest vs the oldest major.
    const across = page.locator('table.variant-across').first();
    await expect(across.locator('thead th').last().textContent()).resolves.toBe('PostgreSQL 17 vs PostgreSQL 14');
    expect(await across.locator('tbody tr').count()).toBe(2);
    // At 390 px each table is one card per row: nothing scrolls sideways either.
    await page.setViewportSize({ width: 390, height: 844 });
    const narrow = await regions.evaluateAll((els) => els.map((e) => [e.scrollWidth, e.clientWidth]));
    for (const [scroll, client] of narrow) expect(scroll).toBeLessThanOrEqual(client!);
  });
});

describe('hardware like mine', () => {
  // Three machines: the article's server (8 cores, 32 GB, SSD: the fixture's SSD class), one
  // unlike any (a 64-core NVMe box), and the real runs' 2-core VM (storage unknown).
  const MACHINES = [
    { cores: 8, memory: 32, storage: 'ssd' },
    { cores: 64, memory: 512, storage: 'nvme' },
    { cores: 2, memory: 23, storage: 'unknown' },
  ];

  it('picks the class GET /v1/similar ranks first, at the same distance and likeness, on a scenario page and at home', async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    const db = await openTestResultsDb(dataDir);
    const app = await buildApp({ resultsDb: db, migrate: false, fleet: false, readRateLimitPerMinute: 100_000 });
    try {
      for (const m of MACHINES)
        for (const [path, scenario] of [
          ['/scenarios/vacuum-index-cleanup/', 'vacuum-index-cleanup'],
          ['/', null],
        ] as const) {
          const q = new URLSearchParams({
            cores: String(m.cores),
            memoryGb: String(m.memory),
            storage: m.storage,
            source: 'measured',
            ...(scenario ? { scenario } : {}),
          });
          const res = await app.inject({ method: 'GET', url: `/v1/similar?${q}` });
          expect(res.statusCode, res.body).toBe(200);
          const api = res.json<SimilarBySpec>();
          await page.goto(`${server.url}${path}?cores=${m.cores}&memory=${m.memory}&storage=${m.storage}`);
          const result = page.locator('.picker-result');
          await expect(result.getAttribute('data-class')).resolves.toBe(api.items[0]!.class);
          await expect(result.getAttribute('data-distance')).resolves.toBe(String(api.items[0]!.distance));
          await expect(result.getAttribute('data-like')).resolves.toBe(String(api.like));
          // The picked class is the one put first and named in the sentence.
          await expect(page.locator('[data-picker-target] .picked').first().getAttribute('data-class')).resolves.toBe(
            api.items[0]!.class,
          );
          await expect(result.textContent()).resolves.toContain(api.items[0]!.class);
          await expect(result.textContent()).resolves.toMatch(
            api.like ? /^Nearest measured class/ : /^No measured class is like/,
          );
        }
    } finally {
      await app.close();
      await db.close();
    }
  });

  it('has no silent storage default: without one it asks', async () => {
    await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/?cores=8&memory=32`);
    await expect(page.locator('form.picker select[name="storage"]').inputValue()).resolves.toBe('');
    await expect(page.locator('.picker-result').textContent()).resolves.toMatch(/^Say which storage/);
    expect(await page.locator('[data-picker-target] .picked').count()).toBe(0);
  });
});

describe('accessibility', () => {
  for (const scheme of ['light', 'dark'] as const)
    for (const [width, height] of [
      [1366, 900],
      [390, 844],
    ] as const)
      it(
        `axe-core finds no violation on every page type, ${scheme}, at ${width} px`,
        { timeout: 300_000 },
        async () => {
          const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
          const run = (await readdir(join(out, 'runs')))[0]!;
          const hardware = (await readdir(join(out, 'hardware'), { withFileTypes: true })).find((e) =>
            e.isDirectory(),
          )!.name;
          const group = (await readdir(join(out, 'scenarios/vacuum-index-cleanup/groups')))[0]!;
          const pages = [
            '/',
            '/scenarios/vacuum-index-cleanup/',
            `/scenarios/vacuum-index-cleanup/groups/${group}/`,
            '/scenarios/vacuum-index-cleanup/versions/',
            '/scenarios/vacuum-index-cleanup/published/',
            '/scenarios/fillfactor-hot-updates/charts/',
            '/scenarios/recovery-init-sync/',
            '/coverage/',
            '/hardware/',
            `/hardware/${hardware}/`,
            `/runs/${run}/`,
            '/downloads/',
            '/404.html',
          ];
          const violations: string[] = [];
          await page.setViewportSize({ width, height });
          await page.emulateMedia({ colorScheme: scheme });
          for (const path of pages) {
            await page.goto(`${server.url}${path}`);
            await page.addScriptTag({ content: axeSource });
            const found = await page.evaluate(async () => {
              if (!window.axe) return ['axe-core did not load'];
              const r = await window.axe.run(document, { resultTypes: ['violations'] });
              return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
            });
            violations.push(...found.map((f) => `${path}: ${f}`));
          }
          expect(violations).toEqual([]);
        },
      );
});
