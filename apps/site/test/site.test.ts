/**
 * The built site end to end: results database → astro build → static server → Chromium.
 * Screenshots of every page visited go to apps/site/test-output/screenshots/.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { judgeNoise } from '@tunelab/contracts';
import { createRequire } from 'node:module';
import { openTestResultsDb } from './fresh-db.ts';
import { buildSite, SITE_DIR } from './build.ts';
import { SAMPLE, sampleRun, seedDemo } from './seed.ts';
import { serveStatic } from './static-server.ts';
import { NOISY } from './noisy-run.ts';
import { ingestDocument, prismaOf } from '@tunelab/results-db/testing';

const SCREENSHOTS = join(SITE_DIR, 'test-output/screenshots');

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tunelab-site-'));
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function freshDb(name: string, fill: 'seed' | 'empty'): Promise<string> {
  const dir = join(work, name);
  if (fill === 'seed') {
    // Seeded once per file, copied for each test that wants the seeded data (the seeded site and the malformed spec).
    await cp(await seeded(), dir, { recursive: true });
    return dir;
  }
  const db = await openTestResultsDb(dir);
  try {
    await db.migrate();
  } finally {
    await db.close();
  }
  return dir;
}

let seededDir: Promise<string> | undefined;
function seeded(): Promise<string> {
  seededDir ??= (async () => {
    const dir = join(work, 'seeded-once');
    const db = await openTestResultsDb(dir);
    try {
      await seedDemo(db);
    } finally {
      await db.close();
    }
    return dir;
  })();
  return seededDir;
}

/** The answer block: first on the page, one card per class, agreement computed from the data. */
async function checkAnswerBlock(page: Page) {
  const answer = page.locator('section.answer');
  // Within the first screen at 1366 × 900.
  expect((await answer.locator('.answer-card').first().boundingBox())!.y).toBeLessThan(900);
  const cards = answer.locator('.answer-card');
  expect(await cards.count()).toBe(4);
  const pair = (cls: string, baseline: string) =>
    cards.filter({ hasText: cls }).locator(`li.answer-pair[data-baseline="${baseline}"]`);
  // At the article's scale and settings, on the article's hardware: the same direction reproduces it…
  await expect(pair('8 cores / 32 GB / SSD', '1-1').getAttribute('data-agreement')).resolves.toBe('reproduces');
  // …swapped values contradict it…
  await expect(pair('4 cores / 16 GB / SSD', '1-1').getAttribute('data-agreement')).resolves.toBe('contradicts');
  await expect(pair('4 cores / 16 GB / SSD', '1-1').textContent()).resolves.toContain('prefer 1-1');
  // …and a 200,000-row run with default settings is not comparable, with the reasons from the data.
  await expect(pair('2 cores / 24 GB / SSD', '1-1').getAttribute('data-agreement')).resolves.toBe('not-comparable');
  const reasons = await cards.filter({ hasText: '2 cores / 24 GB / SSD' }).locator('.reasons li').allTextContents();
  expect(reasons).toEqual([
    'scale: rows 200,000 here vs 29,999,999 in the article (1/150)',
    'hardware: 2 cores / 24 GB here vs 8 cores / 32 GB in the article',
    expect.stringMatching(
      /^settings: maintenance_work_mem 64MB \(default\) here vs 1638MB in the article; max_parallel_maintenance_workers 2 \(default\) here vs 4 in the article; shared_buffers 128MB here vs 8192MB in the article;/,
    ),
  ]);
  // Only significant differences are bold.
  await expect(pair('2 cores / 24 GB / SSD', '2-1').locator('strong').count()).resolves.toBe(0);
  await expect(pair('2 cores / 24 GB / SSD', '1-1').locator('strong').count()).resolves.toBe(1);
}

/**
 * Every badge is about the line it sits on: its text is the agreement that line carries, and a
 * line that says "not enough data yet" never wears an agreement with the article.
 */
async function expectBadgesFollowTheirSentences(p: Page) {
  const lines = await p.locator('[data-agreement]:has(> .badge)').evaluateAll((els) =>
    els.map((e) => ({
      agreement: e.getAttribute('data-agreement'),
      badge: e.querySelector('.badge')?.className ?? '',
      text: e.textContent ?? '',
    })),
  );
  expect(lines.length).toBeGreaterThan(0);
  for (const l of lines) {
    expect(l.badge.split(' '), l.text).toContain(l.agreement);
    if (/not enough data yet/.test(l.text)) expect(l.agreement, l.text).toBe('insufficient-data');
  }
}

/**
 * Layout at one width, every <details> opened: no table hides a column in a scroll box or runs off
 * the screen; at 390 px every cell of a stacked table that has a value shows its column name.
 */
async function tableLayoutProblems(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    document.querySelectorAll('details').forEach((d) => d.setAttribute('open', ''));
    const problems: string[] = [];
    const vw = document.documentElement.clientWidth;
    for (const box of Array.from(document.querySelectorAll<HTMLElement>('.table-scroll'))) {
      if (box.scrollWidth > box.clientWidth + 1)
        problems.push(`${box.getAttribute('aria-label')}: scrolls ${box.scrollWidth - box.clientWidth} px sideways`);
    }
    for (const td of Array.from(document.querySelectorAll<HTMLElement>('table td'))) {
      const r = td.getBoundingClientRect();
      const label = td.closest('table')?.querySelector('caption')?.textContent ?? td.closest('table')?.className;
      if (r.width > 0 && r.right > vw + 1) problems.push(`${label}: a cell ends at ${Math.round(r.right)} px`);
      // Stacked tables name each value; a table that is not stacked (a README's) must fit as it is (above).
      if (vw < 600 && td.closest('table.stack') && r.width > 0 && (td.textContent ?? '').trim() !== '') {
        const before = getComputedStyle(td, '::before').content;
        const name = td.getAttribute('data-label');
        if (!name || !before.includes(name)) problems.push(`${label}: a cell without its column name`);
      }
    }
    return [...new Set(problems)];
  });
}

/** A screenshot of `section` in view at desktop and phone width (the page ends at desktop width). */
async function shootAtBothWidths(p: Page, section: Locator, name: string) {
  for (const [width, height, suffix] of [
    [1366, 900, 'desktop'],
    [390, 844, 'phone'],
  ] as const) {
    await p.setViewportSize({ width, height });
    await section.scrollIntoViewIfNeeded();
    await p.screenshot({ path: join(SCREENSHOTS, `${name}-${suffix}.png`) });
  }
  await p.setViewportSize({ width: 1366, height: 900 });
}

describe('site built from a results database with measured and published runs', () => {
  let out: string;
  let server: Awaited<ReturnType<typeof serveStatic>>;
  let browser: Browser;
  let page: Page;
  // Pages are opened once and kept: @sparticuz/chromium runs single-process, where closing a page
  // can take the browser down with it.
  let js: Page | undefined;
  let phonePage: Page | undefined;
  const jsPage = async () =>
    (js ??= await browser.newPage({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: true }));
  const noJsPhone = async () =>
    (phonePage ??= await browser.newPage({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false }));

  beforeAll(async () => {
    const dataDir = await freshDb('seeded', 'seed');
    out = join(work, 'dist-seeded');
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir, TUNELAB_SITE_URL: 'https://tunelab.example' });
    expect(build.code, build.output).toBe(0);
    expect(build.output).not.toContain('TUNELAB_SITE_URL is not set');
    server = await serveStatic(out);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: false });
    page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('home → scenario → hardware → run, without JavaScript', async () => {
    await page.goto(`${server.url}/`);
    await expect(page.locator('h1').textContent()).resolves.toContain('faster on hardware like yours');
    // The home page answers: one line per measured scenario, strongest evidence first, each with
    // its verdict, both means, the class, the server and the agreement with the article; the
    // scenario measured nowhere gets its article's own finding, said as such.
    const lines = page.locator('.answer-line:not(.article-line)');
    expect(await lines.count()).toBe(4);
    const articleLines = page.locator('.answer-line.article-line');
    expect(await articleLines.count()).toBe(1);
    await expect(articleLines.first().textContent()).resolves.toMatch(/the article found .+not yet measured here/is);
    await expect(lines.first().locator('.line-answer strong').textContent()).resolves.toMatch(/^prefer /);
    // The line's badge is its verdict's agreement: a line that says "not enough data yet" never
    // wears one with the article; a ratio the article published gets its own badge, named.
    for (const l of await lines.all()) {
      await expect(l.locator('.line-where').textContent()).resolves.toMatch(/^On .+, (PostgreSQL|MariaDB) \d+/);
      const agreement = await l.getAttribute('data-agreement');
      await expect(l.locator('.badge').first().getAttribute('class')).resolves.toBe(`badge ${agreement}`);
      if (/not enough data yet/.test((await l.locator('.line-answer').textContent()) ?? ''))
        expect(agreement).toBe('insufficient-data');
      const badges = await l.locator('.badge').count();
      if (badges === 2) await expect(l.locator('.line-where').textContent()).resolves.toMatch(/ · [^·]+: [^·]+$/);
      else expect(badges).toBe(1);
    }
    const fillfactor = lines.filter({ hasText: 'fillfactor' });
    await expect(fillfactor.getAttribute('data-agreement')).resolves.toBe('insufficient-data');
    await expect(fillfactor.locator('.badge').count()).resolves.toBe(2);
    // Then every class and scale per server version: the contradicting class's cell says 1-2 is worse.
    const vic = page.locator('tbody#m-vacuum-index-cleanup');
    await expect(
      vic.locator('tr', { hasText: '4 cores / 16 GB / SSD' }).locator('td', { hasText: '1-2' }).textContent(),
    ).resolves.toMatch(/1-2: worse ×[\d.]+/);
    expect(await vic.locator('tr[data-class]').count()).toBe(4);
    // A swept scenario's cell folds its points: at how many of them the verdict holds.
    await expect(page.locator('tbody#m-recovery-init-sync td:not(.unmeasured)').first().textContent()).resolves.toMatch(
      /better at 3 of 3 tables/,
    );
    await expect(page.locator('tbody#m-fillfactor-hot-updates td:not(.unmeasured)').allTextContents()).resolves.toEqual(
      [expect.stringMatching(/ff80: too few runs at 3 of 3 vus/)],
    );
    await page.screenshot({ path: join(SCREENSHOTS, '1-home.png'), fullPage: true });

    const card = vic.locator('tr.matrix-scenario');
    await card.locator('th a').click();
    await page.waitForURL('**/scenarios/vacuum-index-cleanup/');
    await checkAnswerBlock(page);
    // The article's table for server 1, in its own format: h:mm:ss averages and its "37%".
    const server1 = page.locator('table.published-table[data-machine="server-1"]');
    const headers = await server1.locator('thead th').allTextContents();
    expect(headers).toEqual(['Variant', 'Run 1', 'Run 2', 'Run 3', 'Run 4', 'Run 5', 'AVG', '% faster']);
    const row11 = await server1.locator('tbody tr', { hasText: '1-1' }).locator('td').allTextContents();
    const row12 = await server1.locator('tbody tr', { hasText: '1-2' }).locator('td').allTextContents();
    expect(row11).toEqual(['0:03:46', '0:03:42', '0:03:53', '0:03:44', '0:03:47', '0:03:46', '']);
    expect(row12.slice(5)).toEqual(['0:02:21', '37%']);
    await expect(page.locator('#published-server-1 .verdict').first().textContent()).resolves.toContain(
      '1-2 is 37.5% faster than 1-1',
    );
    // The question and method come from the scenario's README, on the scenario's method page, one link away.
    await page.locator('#question ~ p.more-link a', { hasText: 'README' }).click();
    await page.waitForURL('**/scenarios/vacuum-index-cleanup/method/');
    await expect(page.locator('article.readme').textContent()).resolves.toContain('INDEX_CLEANUP on');
    await expect(page.locator('#metrics ~ section table.metric-summary').count()).resolves.toBe(4);
    await page.goBack();
    // One entry per measured group on the scenario page, each linking to the group's page.
    const entries = page.locator('li.measured-entry');
    expect(await entries.count()).toBe(4);
    await expect(page.locator('section.measured-group').count()).resolves.toBe(0);
    const ssdEntry = entries.filter({ hasText: '2 cores / 24 GB / SSD' });
    await expect(ssdEntry.textContent()).resolves.toMatch(/— \d+ runs? on \d+ machines? · newest /);
    const ssdHref = (await ssdEntry.locator('a').getAttribute('href'))!;
    expect(ssdHref).toMatch(/^\/scenarios\/vacuum-index-cleanup\/groups\/g-measured-2-cores-24-gb-ssd-[^/]+\/$/);
    // Charts: build-time SVG with a text alternative.
    // (The groups' box plots are on their pages, the article's on its page.)
    const charts = page.locator('figure.chart');
    expect(await charts.count()).toBeGreaterThanOrEqual(2);
    await expect(charts.first().locator('.chart-one[role="img"]').getAttribute('aria-label')).resolves.toBeTruthy();
    await expect(charts.first().locator('.chart-one svg title').textContent()).resolves.toBeTruthy();
    await expect(page.locator('#differences + figure .chart-one svg title').textContent()).resolves.toContain(
      '1-2 vs 1-1',
    );
    // Settings that differ: the article's server vs the measured machines.
    // Only the scenario's relevant settings, compared normalised (the article's 8192MB = 8GB here).
    // Folded below the essentials, one click away.
    await expect(page.locator('#settings-section').getAttribute('open')).resolves.toBeNull();
    await page.locator('#settings-section > summary').click();
    const settingsTable = page.locator('#settings-section table.settings-table');
    await expect(settingsTable.locator('tbody th').allTextContents()).resolves.toEqual([
      'maintenance_work_mem',
      'max_parallel_maintenance_workers',
      'shared_buffers',
      'max_wal_size',
      'synchronous_commit',
      'wal_compression',
      'autovacuum',
    ]);
    await expect(settingsTable.locator('tr.differs', { hasText: 'shared_buffers' }).count()).resolves.toBe(1);
    await expect(
      settingsTable.locator('tbody tr', { hasText: 'wal_compression' }).getAttribute('class'),
    ).resolves.toBeNull();
    await page.screenshot({ path: join(SCREENSHOTS, '2-scenario.png'), fullPage: true });

    // The group's page: its table per variant with n, CI and a verdict sentence, its chart and its runs.
    await ssdEntry.locator('a').click();
    await page.waitForURL(`**${ssdHref}`);
    await expect(page.locator('h1').textContent()).resolves.toMatch(/^2 cores \/ 24 GB \/ SSD/);
    const ssd = page.locator('section.measured-group');
    expect(await ssd.locator('table.measured-table thead th').allTextContents()).toEqual([
      'Variant',
      'Repetitions',
      'AVG',
      'n',
      '95% CI of the mean',
      '% faster',
    ]);
    expect(await ssd.locator('table.measured-table tbody tr').count()).toBe(4);
    await expect(ssd.locator('table.measured-table caption').textContent()).resolves.toMatch(
      /^duration of the timed block in \S+, 2 cores \/ 24 GB \/ SSD/,
    );
    await expect(ssd.locator('figure.chart .chart-one[role="img"]').getAttribute('aria-label')).resolves.toMatch(
      /^Box and strip plot of .* on 2 cores \/ 24 GB \/ SSD/,
    );
    // Its answer card is on its page too, and the group's verdict is its card's beside the others, one link away.
    await expect(page.locator('.answer-card .answer-class').textContent()).resolves.toContain('2 cores / 24 GB / SSD');
    await ssd.locator('a', { hasText: 'its answer beside the others' }).click();
    await page.waitForURL('**/scenarios/vacuum-index-cleanup/#answer-*');
    await expect(
      page.locator('.answer-card:target li.answer-pair[data-baseline="1-1"] p.sentence').textContent(),
    ).resolves.toMatch(/1-2 is [\d.]+% faster than 1-1 \([\d.]+% CI .*n = 6 \+ 6\)/);
    await page.goto(`${server.url}${ssdHref}`);
    await page.screenshot({ path: join(SCREENSHOTS, '2-group.png'), fullPage: true });
    await page.locator('section.measured-group p.runs a').first().click();
    await page.waitForURL('**/runs/*/');
    await page.goBack();
    await page.goto(`${server.url}/hardware/`);
    // Two machines share the class: a person tells them apart by the CPU column.
    await page
      .locator('tbody tr', { hasText: SAMPLE.hardware.cpuModel })
      .locator('a', { hasText: '2 cores / 24 GB / SSD' })
      .click();
    await page.waitForURL('**/hardware/*/');
    await expect(page.locator('dl.spec').textContent()).resolves.toContain(SAMPLE.hardware.cpuModel);
    await expect(page.locator('#scenarios + .table-scroll').textContent()).resolves.toContain('VACUUM INDEX_CLEANUP');
    const similar = await page.locator('table.similar tbody tr').allTextContents();
    expect(similar.length).toBeGreaterThanOrEqual(2);
    expect(similar[0]).toContain('2 cores / 24 GB / SSD');
    await page.screenshot({ path: join(SCREENSHOTS, '3-hardware.png'), fullPage: true });

    await page
      .locator('#scenarios + .table-scroll tr', { hasText: 'VACUUM INDEX_CLEANUP' })
      .locator('a[href^="/runs/"]')
      .first()
      .click();
    await page.waitForURL('**/runs/*/');
    const command = await page.locator('code.reproduce').textContent();
    expect(command).toMatch(/^tunelab run vacuum-index-cleanup --param rows=200000 --target \S+ --repetitions 3$/);
    // One row per variant × repetition of the sample (the fixture's build time included).
    // (Six metrics to a table: the first table has every row.)
    await expect(page.locator('table.samples').first().locator('tbody tr').count()).resolves.toBe(
      new Set(SAMPLE.samples.map((x) => `${x.variant}#${x.repetition}`)).size,
    );
    const sampleHeaders = await page.locator('table.samples thead th').allTextContents();
    expect(sampleHeaders.slice(0, 2)).toEqual(['Variant', 'Repetition']);
    // Metric labels, not keys.
    expect(sampleHeaders).toEqual(
      expect.arrayContaining([
        'duration of the timed block (s)',
        'table size after (MiB)',
        'WAL written during the timed block (MiB)',
      ]),
    );
    await expect(
      page.locator('#notes ~ details.notes details.note pre', { hasText: 'vacuuming' }).count(),
    ).resolves.toBeGreaterThan(0);
    await expect(page.locator('#environment + dl').textContent()).resolves.toContain(
      SAMPLE.database.version.split(' (')[0]!,
    );
    await page.screenshot({ path: join(SCREENSHOTS, '4-run.png'), fullPage: true });
  });

  it('reads well at 1366 and 390 px: the answer in the first screen, secondary material folded, no table hides a column', async () => {
    const phone = await noJsPhone();
    const scenarios = [
      'vacuum-index-cleanup',
      'fillfactor-hot-updates',
      'recovery-init-sync',
      'innodb-compression-insert',
      'vacuum-full-rewrite',
    ];
    const others = ['/', '/hardware/', '/downloads/', '/coverage/'];
    const problems: string[] = [];
    for (const [p, height] of [
      [page, 900],
      [phone, 844],
    ] as const) {
      const width = p.viewportSize()!.width;
      for (const key of scenarios) {
        await p.goto(`${server.url}/scenarios/${key}/`);
        const overflow = await p.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${key} @${width}`).toBeLessThanOrEqual(0);
        // The answer (a pair's advice with its badge) is in the first screen.
        // The answer: a pair's advice with its badge, or a declared ratio beside the article's.
        const answer = p.locator('section.answer').locator('.answer-pair, p.answer-ratio');
        if ((await answer.count()) > 0) {
          const first = await answer.first().boundingBox();
          expect(first!.y, `${key} @${width}`).toBeLessThan(height);
          // On a phone the "hardware like mine" form follows the first card instead of pushing it down.
          const picker = p.locator('form.picker');
          if (width < 600 && (await picker.count()) > 0)
            expect((await picker.boundingBox())!.y, `${key} @${width}`).toBeGreaterThan(
              (await p.locator('.answer-card').first().boundingBox())!.y,
            );
          await expectBadgesFollowTheirSentences(p);
        } else await expect(p.locator('section.answer .empty').count()).resolves.toBe(1);
        // The reference material is folded (the settings, the versions) or on the method page, linked.
        const folded = await p
          .locator('details.section')
          .evaluateAll((els) => els.map((e) => (e as HTMLDetailsElement).open));
        expect(folded.length, key).toBeGreaterThanOrEqual(2);
        expect(folded.every((open) => !open)).toBe(true);
        await expect(p.locator('#question ~ p.more-link a').first().getAttribute('href')).resolves.toBe(
          `/scenarios/${key}/method/`,
        );
        if (key === 'vacuum-index-cleanup' && width === 390)
          await p.screenshot({ path: join(SCREENSHOTS, '5-scenario-phone.png'), fullPage: false });
        problems.push(...(await tableLayoutProblems(p)).map((x) => `${key} @${width}: ${x}`));
        // Every column of the every-metric table (on the method page) holds a figure: a variant with none
        // of the declared metrics (the fixture's own timings) is left out, not shown as a column of dashes.
        await p.goto(`${server.url}/scenarios/${key}/method/`);
        problems.push(...(await tableLayoutProblems(p)).map((x) => `${key}/method @${width}: ${x}`));
        const emptyColumns = await p.locator('table.metric-summary').evaluateAll((tables) =>
          tables.flatMap((t) => {
            const rows = Array.from(t.querySelectorAll('tbody tr'));
            return Array.from(t.querySelectorAll('thead th'))
              .slice(1)
              .filter((_, i) => rows.every((r) => r.querySelectorAll('td')[i]?.textContent?.trim() === '—'))
              .map((h) => h.textContent?.trim());
          }),
        );
        expect(emptyColumns, `${key} @${width}`).toEqual([]);
      }
      for (const path of others) {
        await p.goto(`${server.url}${path}`);
        problems.push(...(await tableLayoutProblems(p)).map((x) => `${path} @${width}: ${x}`));
      }
    }
    expect(problems).toEqual([]);
    // The forest plot keeps its legend at phone width: "measured here" is drawn inside the picture.
    await phone.goto(`${server.url}/scenarios/vacuum-index-cleanup/`);
    const legend = await phone.locator('#differences + figure .chart-one svg').evaluate((svg) => {
      const box = svg.getBoundingClientRect();
      const t = Array.from(svg.querySelectorAll('text')).find((x) => x.textContent === 'measured here');
      const r = t?.getBoundingClientRect();
      return r
        ? r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1 && r.bottom <= box.bottom + 1
        : false;
    });
    expect(legend).toBe(true);
    // A throughput's spread is drawn from zero, and the caption says where a duration's axis starts.
    await page.goto(`${server.url}/scenarios/innodb-compression-insert/`);
    await page.locator('li.measured-entry a').first().click();
    await page.waitForURL('**/scenarios/innodb-compression-insert/groups/*/');
    await expect(page.locator('section.measured-group figcaption').first().textContent()).resolves.toContain(
      'The axis starts at zero.',
    );
  });

  it('hardware like mine: the form picks the nearest class, compares classes, and keeps the view in the URL', async () => {
    // Without JavaScript: the form and every class's answer are on the page.
    await page.goto(`${server.url}/scenarios/vacuum-index-cleanup/?cores=8&memory=30&storage=ssd`);
    await expect(page.locator('form.picker input[name="cores"]').count()).resolves.toBe(1);
    expect(await page.locator('.answer-card').count()).toBe(4);
    expect(await page.locator('.answer-card.picked').count()).toBe(0);
    // With JavaScript: a permalink opens with the nearest class first and picked.
    const p = await jsPage();
    await p.setViewportSize({ width: 1366, height: 900 });
    await p.goto(`${server.url}/scenarios/vacuum-index-cleanup/?cores=8&memory=30&storage=ssd`);
    await expect(p.locator('.answer-card').first().getAttribute('class')).resolves.toContain('picked');
    await expect(p.locator('.answer-card.picked .answer-class').textContent()).resolves.toContain(
      '8 cores / 32 GB / SSD',
    );
    await expect(p.locator('.picker-result').textContent()).resolves.toContain(
      'Nearest measured class to 8 cores / 30 GB / SSD: 8 cores / 32 GB / SSD',
    );
    // Same storage beats nearer size: 8 cores / 32 GB on NVMe picks the NVMe class.
    await p.fill('form.picker input[name="cores"]', '2');
    await p.fill('form.picker input[name="memory"]', '4');
    await p.selectOption('form.picker select[name="storage"]', 'nvme');
    await p.click('form.picker button');
    await expect(p.locator('.answer-card.picked .answer-class').textContent()).resolves.toContain(
      '8 cores / 32 GB / NVME',
    );
    expect(new URL(p.url()).search).toBe('?cores=2&memory=4&storage=nvme');
    // …but five doublings apart in cores and memory (2.5 on average) is not hardware like it, and the picker says so.
    await expect(p.locator('.picker-result').textContent()).resolves.toMatch(
      /^No measured class is like 2 cores \/ 4 GB \/ NVME: the nearest, 8 cores \/ 32 GB \/ NVME.*, is 2\.50 doublings away/,
    );
    // Two classes side by side, in the URL too.
    await p.locator('.answer-card', { hasText: '2 cores / 24 GB / SSD' }).locator('.compare-toggle input').check();
    await p.locator('.answer-card', { hasText: '4 cores / 16 GB / SSD' }).locator('.compare-toggle input').check();
    await expect(p.locator('.answer-cards.comparing .answer-card.compared').count()).resolves.toBe(2);
    const compared = await p
      .locator('.answer-card.compared')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().top));
    expect(Math.abs(compared[0]! - compared[1]!)).toBeLessThan(2);
    const url = p.url();
    expect(new URL(url).searchParams.get('compare')?.split(',')).toHaveLength(2);
    await p.goto(url);
    await expect(p.locator('.answer-card.compared').count()).resolves.toBe(2);
    await p.screenshot({ path: join(SCREENSHOTS, 'scenario-picker-1366.png'), fullPage: false });
  });

  it('draws the charts a scenario declares: metric per sweep point with the article beside it, a time series with its crossing', async () => {
    await page.goto(`${server.url}/scenarios/recovery-init-sync/`);
    // One answer per sweep point, each read against the article's nearest point.
    const cards = page.locator('.answer-card');
    await expect(cards.locator('.answer-class').allTextContents()).resolves.toEqual([
      '2 cores / 24 GB / SSD · PostgreSQL 15 · tables = 3,000',
      '2 cores / 24 GB / SSD · PostgreSQL 15 · tables = 10,000',
      '2 cores / 24 GB / SSD · PostgreSQL 15 · tables = 30,000',
    ]);
    await expect(cards.first().locator('.reasons').textContent()).resolves.toContain(
      'scale: tables 3,000 here vs 10,000 in the article (the nearest point it measured)',
    );
    // At 10,000 tables the article published a figure (fsync 2 s, syncfs 0 s on a one-second clock:
    // under 1 s): comparable, reproduced.
    await expect(cards.nth(1).locator('.reasons').count()).resolves.toBe(0);
    await expect(cards.nth(1).locator('li.answer-pair').getAttribute('data-agreement')).resolves.toBe('reproduces');
    await expect(cards.nth(1).textContent()).resolves.toMatch(
      /the article at tables = 10,000: syncfs faster than fsync .* fsync 2,000 ms, syncfs under 1,000 ms \(single figures, no spread\)/,
    );
    const sweep = page.locator('section.declared-chart').first();
    await expect(sweep.locator('.chart-one svg desc').textContent()).resolves.toMatch(
      /fsync: 3,000 → .*fsync \(published\): 10,000 → /,
    );
    await expect(sweep.locator('figcaption').textContent()).resolves.toContain(
      'Logarithmic axes; 4 values of 0 cannot be drawn on it',
    );
    await expect(sweep.locator('ul.point-verdicts li').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^tables = 3,000: syncfs is [\d.]+% faster than fsync/),
      expect.stringMatching(/^tables = 10,000: syncfs is [\d.]+% faster than fsync/),
      expect.stringMatching(/^tables = 30,000: syncfs is [\d.]+% faster than fsync/),
    ]);
    // report.fits: µs per file per variant, measured here and the article's against its table count.
    const fitHere = page.locator('#fits ~ section table.fit', { hasText: '2 cores / 24 GB / SSD' });
    const fsyncHere = Number(
      (await fitHere.locator('tbody tr', { hasText: 'fsync' }).first().locator('td').first().textContent())!.replace(
        /,/g,
        '',
      ),
    );
    expect(fsyncHere).toBeGreaterThan(150);
    expect(fsyncHere).toBeLessThan(190);
    await expect(fitHere.locator('thead').textContent()).resolves.toContain('µs per file');
    const fitArticle = page.locator('#fits ~ section', { hasText: 'the article' });
    await expect(
      fitArticle.locator('tbody tr', { hasText: 'fsync' }).first().locator('td').first().textContent(),
    ).resolves.toBe('171');
    await expect(fitArticle.locator('p.meta').textContent()).resolves.toContain('against its tables');
    await shootAtBothWidths(page, fitArticle, '6-fits');
    // report.ratios: the data size per fillfactor ÷ ff100 beside the article's 1.21 / 1.54 / 2.27.
    await page.goto(`${server.url}/scenarios/fillfactor-hot-updates/`);
    const ratios = page.locator('#ratios ~ section table.ratio').first();
    const cells = async (variant: string) =>
      ratios
        .locator('tbody tr', { has: page.locator('th', { hasText: new RegExp(`^${variant}\\b`) }) })
        .locator('td')
        .allTextContents();
    await expect(cells('ff100')).resolves.toEqual([
      expect.stringMatching(/^11[89]/),
      '1.00',
      'baseline',
      '1.00',
      'baseline',
    ]);
    const ff40 = await cells('ff40');
    expect(Number(ff40[1])).toBeCloseTo(2.25, 1);
    expect(ff40[3]).toBe('2.27');
    expect(ff40[4]).toBe('yes');
    await expect(page.locator('#ratios ~ section p.meta').first().textContent()).resolves.toContain(
      'widened by 2% for the rounding',
    );
    // The answer block says it first, before the per-point NOPM cards.
    await expect(page.locator('section.answer p.answer-ratio').textContent()).resolves.toMatch(
      /data size ÷ ff100: 2 cores \/ 24 GB \/ SSD[^:]*: ff80 1\.20, ff60 1\.54, ff40 2\.2\d \(article: ff80 1\.21, ff60 1\.54, ff40 2\.27\) — reproduces the article for 3 of 3/,
    );
    await shootAtBothWidths(page, ratios, '7-ratios');
    await page.goto(`${server.url}/scenarios/innodb-compression-insert/`);
    const series = page.locator('section.declared-chart').first();
    await expect(series.locator('figcaption').textContent()).resolves.toMatch(
      /compressed-kbs4 and uncompressed cross at rows inserted ≈ 5\d\d,\d{3} \(pin\)/,
    );
    await expect(series.locator('.chart-one svg title').textContent()).resolves.toBe(
      'Insert rate against rows inserted: 2 cores / 24 GB / SSD',
    );
  });

  it('draws charts as valid SVG whose text stays inside the drawing, at both widths', async () => {
    // The scenario page, a measured group's page and the article's runs: forest plots, box plots.
    const html = await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8');
    const group = /href="(\/scenarios\/vacuum-index-cleanup\/groups\/[^"]+\/)"/.exec(html)?.[1];
    expect(group).toBeDefined();
    const paths = ['/scenarios/vacuum-index-cleanup/', group!, '/scenarios/vacuum-index-cleanup/published/'];
    for (const [width, kind] of [
      [1366, 'chart-one'],
      [390, 'chart-one'],
    ] as const) {
      const p = await jsPage();
      await p.setViewportSize({ width, height: 900 });
      const report = { count: 0, problems: [] as string[] };
      for (const path of paths) {
        await p.goto(`${server.url}${path}`);
        const one = await p.evaluate((cls) => {
          const problems: string[] = [];
          const all = Array.from(document.querySelectorAll(`figure.chart .${cls} svg`));
          all.forEach((svg, i) => {
            // Valid XML on its own (an attribute broken by quotes or a repeated attribute fails here).
            const doc = new DOMParser().parseFromString(svg.outerHTML, 'image/svg+xml');
            if (doc.querySelector('parsererror')) problems.push(`chart ${i}: not valid XML`);
            if ((svg.outerHTML.match(/viewBox=/g) ?? []).length !== 1) problems.push(`chart ${i}: viewBox count`);
            const box = svg.getBoundingClientRect();
            for (const t of Array.from(svg.querySelectorAll('text'))) {
              const r = t.getBoundingClientRect();
              if (r.width === 0) continue;
              if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
                problems.push(`chart ${i}: "${t.textContent}" outside the drawing`);
            }
          });
          return { count: all.length, problems };
        }, kind);
        report.count += one.count;
        report.problems.push(...one.problems.map((x) => `${path}: ${x}`));
      }
      expect(report.count).toBeGreaterThanOrEqual(8);
      expect(report.problems).toEqual([]);
    }
  });

  it('every page kind passes axe-core at 1366 and 390 px; screenshots of each', async () => {
    const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const html = await readFile(join(out, 'index.html'), 'utf8');
    expect(html).toContain('/hardware/');
    const group = /href="(\/scenarios\/vacuum-index-cleanup\/groups\/[^"]+\/)"/.exec(
      await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8'),
    )?.[1];
    expect(group).toBeDefined();
    const run = /href="(\/runs\/[0-9a-f-]+\/)"/.exec(await readFile(join(out, group!, 'index.html'), 'utf8'))?.[1];
    expect(run).toBeDefined();
    const machine = /href="(\/hardware\/[0-9a-f]{64}\/)"/.exec(
      await readFile(join(out, 'hardware/index.html'), 'utf8'),
    )?.[1];
    const pages: [string, string][] = [
      ['home', '/'],
      ['scenario', '/scenarios/vacuum-index-cleanup/'],
      ['group', group!],
      ['hardware-list', '/hardware/'],
      ['machine', machine ?? '/hardware/'],
      ['run', run!],
      ['downloads', '/downloads/'],
      // Swept, managed-cluster and time-series scenarios: fit, ratio and series tables and charts.
      ['scenario-sweep', '/scenarios/recovery-init-sync/'],
      ['scenario-ratios', '/scenarios/fillfactor-hot-updates/'],
      ['scenario-series', '/scenarios/innodb-compression-insert/'],
    ];
    const p = await jsPage();
    const violations: string[] = [];
    const audit = async (path: string, where: string) => {
      await p.goto(`${server.url}${path}`);
      await p.addScriptTag({ content: axeSource });
      const found = await p.evaluate(async () => {
        if (!window.axe) return ['axe-core did not load'];
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations.map(
          (v) =>
            `${v.id}: ${v.nodes
              .slice(0, 3)
              .map((n) => JSON.stringify(n.target))
              .join(' ')}`,
        );
      });
      violations.push(...found.map((f) => `${where}: ${f}`));
    };
    for (const width of [1366, 390]) {
      await p.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      for (const [name, path] of pages) {
        await audit(path, `${name} @${width}`);
        await p.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true, timeout: 60_000 });
      }
    }
    // The dark colour scheme (prefers-color-scheme) has its own palette: its contrast is checked too.
    await p.setViewportSize({ width: 1366, height: 900 });
    await p.emulateMedia({ colorScheme: 'dark' });
    for (const [name, path] of pages) {
      await audit(path, `${name} @1366 dark`);
      if (name === 'scenario')
        await p.screenshot({ path: join(SCREENSHOTS, `${name}-1366-dark.png`), timeout: 60_000 });
    }
    await p.emulateMedia({ colorScheme: 'light' });
    expect(violations).toEqual([]);
    // 30 audits and 20 full-page screenshots: an upper bound for a loaded machine, not a timing.
  }, 400_000);

  it('has a 404 page, a sitemap, meta descriptions, the article title in its language, and no build-machine paths', async () => {
    expect(existsSync(join(out, '404.html'))).toBe(true);
    const sitemap = await readFile(join(out, 'sitemap.xml'), 'utf8');
    expect(sitemap).toContain('<loc>https://tunelab.example/scenarios/vacuum-index-cleanup/</loc>');
    // Listed exactly when built: every HTML page but 404, and nothing else.
    const listed = [...sitemap.matchAll(/<loc>https:\/\/tunelab\.example(\/[^<]*)<\/loc>/g)].map((m) => m[1]!).sort();
    const built = (await readdir(out, { recursive: true }))
      .filter((f) => f === 'index.html' || f.endsWith('/index.html'))
      .map((f) => `/${f.slice(0, -'index.html'.length)}`)
      .sort();
    expect(listed).toEqual(built);
    expect(listed.some((p) => /^\/scenarios\/[^/]+\/groups\/[^/]+\/$/.test(p))).toBe(true);
    const scenario = await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8');
    expect(scenario).toMatch(/<em lang="ko">\[OpenSQL\] VACUUM의/);
    expect(scenario).toMatch(/<meta name="description" content="[^"]+"/);
    for (const f of ['index.html', 'hardware/index.html', '404.html', 'scenarios/vacuum-full-rewrite/index.html']) {
      const html = await readFile(join(out, f), 'utf8');
      expect(html, f).toMatch(/<meta name="description" content="[^"]{20,}"/);
      expect(html, f).not.toContain(work);
      expect(html, f).not.toContain(SITE_DIR);
    }
    await page.goto(`${server.url}/hardware/`);
    // Placeholders of an undescribed article machine are said as such, never as "1 cores / 1 GB".
    await expect(page.locator('table').textContent()).resolves.not.toMatch(/1 cores \/ 1 GB/);
    await expect(page.locator('table').textContent()).resolves.toContain('the article’s machine');
  });

  it('publishes the data behind the tables and an Atom feed of findings', async () => {
    const csv = await readFile(join(out, 'downloads/scenarios/vacuum-index-cleanup/published.csv'), 'utf8');
    expect(csv.split('\r\n')[0]).toBe('machine,label,variant,repetition,seconds,avg_as_printed,pct_faster');
    expect(csv).toContain('server-1,"8 cores, 32 GB RAM, SSD",1-2,1,143,0:02:21,37%');
    const json = JSON.parse(await readFile(join(out, 'downloads/comparisons.json'), 'utf8')) as unknown[];
    expect(json.length).toBeGreaterThanOrEqual(5);
    for (const f of ['verdicts.csv', 'variant-summaries.csv', 'samples.csv', 'runs.json', 'hardware.csv'])
      expect(existsSync(join(out, 'downloads', f)), f).toBe(true);
    const feed = await readFile(join(out, 'feed.xml'), 'utf8');
    expect(feed).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
    expect(feed).toContain('<entry>');
    // The group as the answers name it: class, server and scale.
    expect(feed).toMatch(
      /<title>vacuum-index-cleanup on 2 cores \/ 24 GB \/ SSD · PostgreSQL \d+[^:]*: 1-2 is [\d.]+% faster than 1-1/,
    );
  });
});

describe('site build edge cases', () => {
  it('an empty results database gives a sensible site', async () => {
    const dataDir = await freshDb('empty', 'empty');
    const out = join(work, 'dist-empty');
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    expect(build.code, build.output).toBe(0);
    expect(build.output).toContain('warning: TUNELAB_SITE_URL is not set');
    const home = await readFile(join(out, 'index.html'), 'utf8');
    expect(home).toContain('0 measured runs on 0 machines');
    expect(home).toContain('Not measured yet');
    const scenario = await readFile(join(out, 'scenarios/vacuum-index-cleanup/index.html'), 'utf8');
    // The article's table still comes from the scenario folder; statistics wait for the import.
    expect(scenario).toContain('0:03:46');
    expect(scenario).toContain('No measured runs of this scenario yet');
    expect(existsSync(join(out, 'feed.xml'))).toBe(true);
  });

  it('a scenario whose only measured run was flagged noisy says so, not "not measured yet"', async () => {
    const dataDir = await freshDb('noisy-only', 'empty');
    const db = await openTestResultsDb(dataDir);
    try {
      const run = sampleRun({ cores: 2, memoryGb: 8, disk: 'ssd' }, 1);
      run.noise = NOISY;
      expect(judgeNoise(NOISY).noisy).toBe(true);
      expect((await ingestDocument(db, run, 'site-noisy-only')).run.id).toBeTruthy();
    } finally {
      await db.close();
    }
    const out = join(work, 'dist-noisy-only');
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    expect(build.code, build.output).toBe(0);
    const page = await readFile(join(out, `scenarios/${SAMPLE.scenario.key}/index.html`), 'utf8');
    expect(page).toMatch(/No answer yet:\s+the one measured run was flagged noisy/);
    expect(page).not.toContain('Not measured yet');
  });

  it('a stored hardware spec that fails validation stops the build with a clear message', async () => {
    const dataDir = await freshDb('malformed', 'seed');
    const db = await openTestResultsDb(dataDir);
    let fingerprint: string;
    try {
      const [row] = await prismaOf(db).$queryRaw<{ fingerprint: string }[]>`
        UPDATE hardware_profiles SET spec = jsonb_set(spec, '{physicalCores}', '"many"')
        WHERE fingerprint = (SELECT fingerprint FROM hardware_profiles WHERE source = 'measured' ORDER BY fingerprint LIMIT 1)
        RETURNING fingerprint`;
      fingerprint = row!.fingerprint;
    } finally {
      await db.close();
    }
    const out = join(work, 'dist-malformed');
    const build = await buildSite(out, { TUNELAB_DATA_DIR: dataDir });
    expect(build.code).not.toBe(0);
    expect(build.output).toContain('TuneLab site build stopped');
    expect(build.output).toMatch(
      new RegExp(
        `(hardware profile ${fingerprint}|run [0-9a-f-]{36}) from embedded PGlite in .* failed validation: .*physicalCores`,
      ),
    );
    expect(existsSync(join(out, 'index.html'))).toBe(false);
  });

  it('a missing results database stops the build instead of publishing an empty site', async () => {
    const build = await buildSite(join(work, 'dist-missing'), { TUNELAB_DATA_DIR: join(work, 'does-not-exist') });
    expect(build.code).not.toBe(0);
    expect(build.output).toContain(`no results database at ${join(work, 'does-not-exist')}`);
  });
});
