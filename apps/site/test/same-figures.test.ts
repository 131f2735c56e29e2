/**
 * One pair, one story on every page: the real API (`@tunelab/api/testing`'s startApi, on a
 * PostgreSQL database of its own) and the real `astro build` over the same database, read in
 * Chromium. The database holds every real run of tests/fixtures/real-runs (the answers-first
 * fixture), the two emulated like-article runs, and what makes pages part ways: a second machine
 * in the synthetic 8-core class (a class pools machines), a noisy run beside clean ones (the site
 * leaves noisy runs out of the verdict), and runs of a second scenario version (two groups of one
 * class and server). For every scenario and every pair GET /v1/answers?noisy=exclude answers:
 * - the scenario page's card, the home page's line, the hardware pages and the feed give the same
 *   advice, the same means in the same unit (one text, equal to the API's means), and the answer's
 *   verdict sentence (its direction word, % difference and interval) word for word;
 * - no two groups of a scenario go by one name on the hardware pages or in the feed (a second
 *   scenario version is named);
 * - a badge says the agreement the answers engine gives that claim: never "reproduces the article"
 *   on an undecided or emulated pair the engine does not say reproduces;
 * - "newest data" is when the runs were measured (their finish), never when they were imported.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '@tunelab/browser';
import { pairClaims } from '@tunelab/answers';
import { csvCell, RunSubmission, type RunSummary, type ScenarioAnswers } from '@tunelab/contracts';
import { startApi } from '@tunelab/api/testing';
import { ingestDocument } from '@tunelab/results-db/testing';
import type { ResultsDb } from '@tunelab/results-db';
import { FIXTURE_MACHINE, seedAnswersFixture } from './answers-fixture.ts';
import { buildSite } from './build.ts';
import { parseCsv } from './csv.ts';
import { NOISY } from './noisy-run.ts';
import { REPO_ROOT, SCENARIOS_DIR, sampleRun } from './seed.ts';
import { serveStatic } from './static-server.ts';

const EMULATED = ['vacuum-index-cleanup-like-article-1GB.json', 'innodb-compression-insert-like-article-16MB.json'];

/** A run of the synthetic 8-core SSD class on another machine, server `major`, at `rows`. */
function classmate(id: string, major: number, rows: number, run: number) {
  const s = sampleRun({ ...FIXTURE_MACHINE, id, cpuModel: `AMD EPYC 7543 #${id}` }, run, undefined, {
    params: { rows },
  });
  return {
    ...s,
    database: { ...s.database, major, minor: 1, version: `PostgreSQL ${major}.1 on x86_64-pc-linux-gnu` },
  };
}

async function seed(db: ResultsDb): Promise<void> {
  await seedAnswersFixture(db);
  for (const f of EMULATED) {
    const doc = JSON.parse(readFileSync(join(REPO_ROOT, 'tests/fixtures', f), 'utf8')) as { submission: unknown };
    await ingestDocument(db, RunSubmission.parse(doc.submission), `same-figures-${f}`);
  }
  // A second machine in the class the synthetic runs measured on PostgreSQL 17 at 400,000 rows.
  await ingestDocument(db, RunSubmission.parse(classmate('second', 17, 400_000, 1)), 'same-figures-second');
  // A noisy run beside the clean one on PostgreSQL 15 at 200,000 rows, its variants swapped.
  const noisy = classmate('noisy', 15, 200_000, 2);
  await ingestDocument(
    db,
    RunSubmission.parse({
      ...noisy,
      noise: NOISY,
      samples: noisy.samples.map((x) => ({
        ...x,
        variant: x.variant === '1-1' ? '1-2' : x.variant === '1-2' ? '1-1' : x.variant,
      })),
    }),
    'same-figures-noisy',
  );
  // Two runs of another scenario version on PostgreSQL 14 at 200,000 rows.
  for (const run of [3, 4]) {
    const s = classmate('old-version', 14, 200_000, run);
    await ingestDocument(
      db,
      RunSubmission.parse({ ...s, scenario: { ...s.scenario, version: 'e'.repeat(64) } }),
      `same-figures-version-${run}`,
    );
  }
}

const work = await mkdtemp(join(tmpdir(), 'tl-same-figures-'));
let api: Awaited<ReturnType<typeof startApi>>;
let site: Awaited<ReturnType<typeof serveStatic>>;
let out: string;
let browser: Browser;
// One page throughout: Chromium here runs as a single process, and closing a page can end it.
let page: Page;
/** GET /v1/answers?noisy=exclude (the site's policy) per scenario key. */
const answers = new Map<string, ScenarioAnswers>();
const runs: RunSummary[] = [];

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`${api.url}${path}`);
  expect(res.status, `GET ${path}: ${res.status}`).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  api = await startApi({ fleet: false }, 'tl_h2_same', { scenariosDir: SCENARIOS_DIR });
  await seed(api.db);
  out = join(work, 'dist');
  const built = await buildSite(out, { DATABASE_URL: api.databaseUrl });
  expect(built.code, built.output).toBe(0);
  const scenarios = await getJson<{ items: { key: string }[] }>('/v1/scenarios');
  for (const { key } of scenarios.items) {
    const a = await fetch(`${api.url}/v1/answers?scenario=${key}&noisy=exclude`);
    if (a.status === 200) answers.set(key, (await a.json()) as ScenarioAnswers);
  }
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const p: { items: RunSummary[]; nextCursor: string | null } = await getJson(
      `/v1/runs?source=all&limit=500${cursor ? `&cursor=${cursor}` : ''}`,
    );
    runs.push(...p.items);
    cursor = p.nextCursor;
  }
  site = await serveStatic(out);
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  await page.setViewportSize({ width: 1366, height: 900 });
}, 900_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await api?.close();
  await rm(work, { recursive: true, force: true });
});

type Group = ScenarioAnswers['groups'][number];
type Pair = Group['pairs'][number];
/** Every group the API answers, counted and left out, by key. */
const apiGroups = () => {
  const byKey = new Map<string, { scenario: ScenarioAnswers; group: Group }>();
  for (const a of answers.values())
    for (const g of [...a.groups, ...a.leftOut]) byKey.set(g.group.key, { scenario: a, group: g });
  return byKey;
};
const pairOf = (g: Group, baseline: string, candidate: string): Pair | undefined =>
  g.pairs.find((p) => p.baseline === baseline && p.candidate === candidate);
const pairKey = (group: string, baseline: string, candidate: string) => `${group} ${baseline} → ${candidate}`;

/** A value as printed ("0.3423 s", "7,202 ms", "0:03:46", "34,989 rows/s") in the unit `unit`; null if it cannot be. */
function inUnit(text: string, printedUnit: string | undefined, unit: string): { value: number; step: number } | null {
  const digits = text.replace(/,/g, '').replace('−', '-');
  if (/^\d+:\d\d:\d\d(\.\d+)?$/.test(digits)) {
    if (unit !== 's') return null;
    const [h, m, s] = digits.split(':').map(Number) as [number, number, number];
    const decimals = digits.split('.')[1]?.length ?? 0;
    return { value: h * 3600 + m * 60 + s, step: 10 ** -decimals };
  }
  const value = Number(digits);
  if (!Number.isFinite(value)) return null;
  const decimals = digits.split('.')[1]?.length ?? 0;
  const seconds: Record<string, number> = { µs: 1e-6, ms: 1e-3, s: 1, min: 60, h: 3600 };
  const factor =
    printedUnit === unit
      ? 1
      : unit === 's' || unit === 'ms'
        ? printedUnit !== undefined && seconds[printedUnit] !== undefined
          ? seconds[printedUnit] / seconds[unit]!
          : null
        : null;
  return factor === null ? null : { value: value * factor, step: 10 ** -decimals * factor };
}

/** "0.3423 s for full-rewrite vs 0.5664 s for cluster": a pair's means as a page prints them. */
const MEANS = /(−?[\d,.:]+)(?: ([^\s(),;]+))? for (\S+?) vs (−?[\d,.:]+)(?: ([^\s(),;]+))? for (\S+?)(?=[\s(),;.]|$)/;

/** Whether `text` gives the pair's means of the API group in its unit (to the printed digits); why not, if not. */
function meansDisagree(text: string, g: Group, p: Pair): string | null {
  const m = MEANS.exec(text);
  if (!m) return `no means in "${text}"`;
  const [, bText, bUnit, bName, cText, cUnit, cName] = m;
  if (bName !== p.baseline || cName !== p.candidate) return `means of ${bName} vs ${cName} in "${text}"`;
  for (const [t, u, v] of [
    [bText!, bUnit, p.baseline],
    [cText!, cUnit, p.candidate],
  ] as const) {
    const mean = g.group.variants.find((x) => x.variant === v)?.mean;
    const got = inUnit(t, u, g.group.unit);
    if (mean === undefined || got === null) return `"${t} ${u ?? ''}" is not a mean in ${g.group.unit}: "${text}"`;
    if (Math.abs(got.value - mean) > got.step / 2 + Math.abs(mean) * 1e-9)
      return `${v}: "${t} ${u ?? ''}" where the API's mean is ${mean} ${g.group.unit}`;
  }
  return null;
}

/** The verdict sentence the API gives a pair, as the pages end it. */
const sentenceOf = (p: Pair) => p.measured?.verdict.sentence ?? null;

async function htmlPages(dir: string): Promise<string[]> {
  return (await readdir(join(out, dir), { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => `/${dir}/${e.name}/`);
}

type CardPair = {
  group: string;
  baseline: string;
  candidate: string;
  advice: string;
  figures: string;
  sentence: string;
  claims: { about: string; agreement: string; badge: string }[];
  emulated: boolean;
};

/** Every card's pairs on the scenario pages, by group and pair. */
async function cards(): Promise<Map<string, CardPair>> {
  const found = new Map<string, CardPair>();
  for (const path of await htmlPages('scenarios')) {
    await page.goto(`${site.url}${path}`);
    const list = await page.locator('article.answer-card li.answer-pair').evaluateAll((els) =>
      els.map((li) => {
        const card = li.closest('article')!;
        const text = (e: Element | null | undefined) => (e?.textContent ?? '').replace(/\s+/g, ' ').trim();
        return {
          group: card.getAttribute('data-group') ?? '',
          baseline: li.getAttribute('data-baseline') ?? '',
          candidate: li.getAttribute('data-candidate') ?? '',
          advice: text(li.querySelector('.advice.claim[data-about="verdict"]')),
          figures: text(li.querySelector('.figures')).replace(/^— /, ''),
          sentence: text(li.querySelector('p.sentence')),
          claims: Array.from(li.querySelectorAll('.advice.claim')).map((c) => ({
            about: c.getAttribute('data-about') ?? '',
            agreement: c.getAttribute('data-agreement') ?? '',
            badge: c.querySelector('.badge')?.className.replace('badge', '').trim() ?? '',
          })),
          emulated: (card.getAttribute('data-class') ?? '').includes('emulated'),
        };
      }),
    );
    for (const c of list) found.set(pairKey(c.group, c.baseline, c.candidate), c);
  }
  return found;
}

describe('one pair, one story on every page', () => {
  it('the scenario page’s cards give every pair the API answers: its advice, its means in its unit, its sentence', async () => {
    const byKey = apiGroups();
    const seen = await cards();
    const wrong: string[] = [];
    let pairs = 0;
    const scenarios = new Set<string>();
    for (const [key, { group: g }] of byKey)
      for (const p of g.pairs) {
        if (!p.measured) continue;
        pairs++;
        scenarios.add(g.group.scenario.key);
        const c = seen.get(pairKey(key, p.baseline, p.candidate));
        if (!c) {
          wrong.push(`${pairKey(key, p.baseline, p.candidate)}: no card`);
          continue;
        }
        if (!c.advice.includes(p.advice)) wrong.push(`${key}: advice "${c.advice}" is not the API's "${p.advice}"`);
        if (c.sentence !== `${sentenceOf(p)}.`)
          wrong.push(`${key}: "${c.sentence}" is not the API's "${sentenceOf(p)}"`);
        const means = meansDisagree(c.figures, g, p);
        if (means) wrong.push(`${key} ${p.candidate}: ${means}`);
      }
    expect(wrong).toEqual([]);
    expect(pairs).toBeGreaterThan(30);
    // Every scenario the fixture measured: durations in s and ms, rows/s and NOPM.
    expect([...scenarios].sort()).toEqual([
      'fillfactor-hot-updates',
      'innodb-compression-insert',
      'recovery-init-sync',
      'vacuum-full-rewrite',
      'vacuum-index-cleanup',
    ]);
  });

  it('the home page’s lines give their pair’s advice, means (the card’s text) and ratio as the API does', async () => {
    const byKey = apiGroups();
    const seen = await cards();
    await page.goto(`${site.url}/`);
    const lines = await page.locator('li.answer-line[data-group]').evaluateAll((els) =>
      els.map((li) => ({
        group: li.getAttribute('data-group') ?? '',
        baseline: li.getAttribute('data-baseline') ?? '',
        candidate: li.getAttribute('data-candidate') ?? '',
        text: (li.querySelector('.line-answer')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
        where: (li.querySelector('.line-where')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
      })),
    );
    expect(lines.length).toBeGreaterThanOrEqual(5);
    // A group whose name another group of another scenario version shares is named with its version.
    const versioned = (g: Group) =>
      [...byKey.values()].some(
        (o) =>
          o.group.name === g.name &&
          Boolean(o.group.leftOut) === Boolean(g.leftOut) &&
          o.group.group.scenario.version !== g.group.scenario.version,
      );
    let named = 0;
    const wrong: string[] = [];
    for (const l of lines) {
      const g = byKey.get(l.group)?.group;
      const p = g && pairOf(g, l.baseline, l.candidate);
      if (!g || !p) {
        wrong.push(`${pairKey(l.group, l.baseline, l.candidate)}: not a pair the API answers`);
        continue;
      }
      if (!l.text.startsWith(p.advice)) wrong.push(`${l.group}: "${l.text}" does not open with "${p.advice}"`);
      if (versioned(g)) {
        named++;
        if (!l.where.includes('scenario version')) wrong.push(`${l.group}: "${l.where}" names no scenario version`);
      }
      const card = seen.get(pairKey(l.group, l.baseline, l.candidate));
      const means = MEANS.exec(l.text)?.[0];
      if (card && means !== card.figures) wrong.push(`${l.group}: home "${means}", its card "${card.figures}"`);
      const why = meansDisagree(l.text, g, p);
      if (why) wrong.push(`${l.group}: ${why}`);
      const b = g.group.variants.find((v) => v.variant === p.baseline)?.mean;
      const c = g.group.variants.find((v) => v.variant === p.candidate)?.mean;
      const ratio = /\(×([\d.e+-]+)\)/.exec(l.text)?.[1];
      if (ratio && b && c !== undefined && Number(ratio) !== Number((c / b).toPrecision(2)))
        wrong.push(`${l.group}: ×${ratio} where the API's means give ×${(c / b).toPrecision(2)}`);
    }
    expect(wrong).toEqual([]);
    // The fixture's strongest vacuum-index-cleanup answer is of the second scenario version.
    expect(named).toBeGreaterThan(0);
  });

  it('the hardware pages give each pair the answer its group has on the scenario page, named apart', async () => {
    const byKey = apiGroups();
    const seen = await cards();
    const wrong: string[] = [];
    const shown = new Set<string>();
    const named = new Map<string, Set<string>>();
    for (const path of await htmlPages('hardware')) {
      await page.goto(`${site.url}${path}`);
      const lines = await page.locator('p.verdict[data-baseline]').evaluateAll((els) =>
        els.map((e) => ({
          group: e.getAttribute('data-group'),
          scenario: (e.querySelector('.kind')?.textContent ?? '').trim(),
          name: (e.querySelector('.group-name')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
          baseline: e.getAttribute('data-baseline') ?? '',
          candidate: e.getAttribute('data-candidate') ?? '',
          text: (e.textContent ?? '').replace(/\s+/g, ' ').trim(),
        })),
      );
      for (const l of lines) {
        const where = `${path} ${l.scenario} on ${l.name} ${l.baseline} → ${l.candidate}`;
        // The group the line names: its key, or (a page that gives none) the API's groups of that name.
        const candidates = l.group
          ? [byKey.get(l.group)].filter((x) => x !== undefined)
          : [...byKey.values()].filter((x) => x.scenario.scenario.key === l.scenario && x.group.name === l.name);
        if (candidates.length !== 1) {
          wrong.push(`${where}: names ${candidates.length} of the API's groups`);
          continue;
        }
        const g = candidates[0]!.group;
        const p = pairOf(g, l.baseline, l.candidate);
        if (!p?.measured) {
          wrong.push(`${where}: a pair the API does not answer`);
          continue;
        }
        shown.add(pairKey(g.group.key, p.baseline, p.candidate));
        const names = named.get(`${l.scenario} ${l.name}`) ?? new Set();
        named.set(`${l.scenario} ${l.name}`, names.add(g.group.key));
        if (!l.text.includes(sentenceOf(p)!)) wrong.push(`${where}: "${l.text}" lacks the API's "${sentenceOf(p)}"`);
        const card = seen.get(pairKey(g.group.key, p.baseline, p.candidate));
        const means = MEANS.exec(l.text)?.[0];
        if (card?.figures && means !== card.figures)
          wrong.push(`${where}: means "${means}", its card "${card.figures}"`);
      }
    }
    for (const [name, keys] of named) if (keys.size > 1) wrong.push(`${name}: one name for ${keys.size} groups`);
    // Every measured pair of the API is on the page of a machine whose runs it holds.
    for (const [key, { group: g }] of byKey)
      for (const p of g.pairs)
        if (p.measured && !shown.has(pairKey(key, p.baseline, p.candidate)))
          wrong.push(`${pairKey(key, p.baseline, p.candidate)}: on no hardware page`);
    expect(wrong).toEqual([]);
    expect(shown.size).toBeGreaterThan(30);
  });

  it('the feed gives each pair the API’s sentence and the card’s means, one name per group', async () => {
    const byKey = apiGroups();
    const seen = await cards();
    const xml = await readFile(join(out, 'feed.xml'), 'utf8');
    await page.goto(`${site.url}/`);
    const entries = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'application/xml');
      return Array.from(doc.querySelectorAll('entry')).map((e) => ({
        id: e.querySelector('id')?.textContent ?? '',
        title: e.querySelector('title')?.textContent ?? '',
        summary: e.querySelector('summary')?.textContent ?? '',
      }));
    }, xml);
    const wrong: string[] = [];
    const shown = new Set<string>();
    const named = new Map<string, Set<string>>();
    // The entries of answers (the feed carries release events too, under ids of their own).
    for (const e of entries.filter((x) => x.id.startsWith('tag:tunelab,2026:finding/'))) {
      const [group, baseline, candidate] = /^tag:tunelab,2026:finding\/([^/]*)\/([^/]*)\/([^/]*)\//
        .exec(e.id)!
        .slice(1)
        .map(decodeURIComponent) as [string, string, string];
      const g = byKey.get(group)?.group;
      const p = g && pairOf(g, baseline, candidate);
      if (!g || !p?.measured) {
        wrong.push(`${pairKey(group, baseline, candidate)}: not a pair the API answers`);
        continue;
      }
      shown.add(pairKey(group, baseline, candidate));
      const name = e.title.slice(0, e.title.indexOf(': '));
      named.set(name, (named.get(name) ?? new Set()).add(group));
      if (!e.title.includes(sentenceOf(p)!)) wrong.push(`${group}: "${e.title}" lacks the API's "${sentenceOf(p)}"`);
      const card = seen.get(pairKey(group, baseline, candidate));
      if (card?.figures && !e.summary.includes(card.figures))
        wrong.push(`${group}: "${e.summary}" lacks the card's means "${card.figures}"`);
    }
    for (const [name, keys] of named) if (keys.size > 1) wrong.push(`"${name}": one name for ${keys.size} groups`);
    for (const [key, { group: g }] of byKey)
      for (const p of g.pairs)
        if (p.measured && !shown.has(pairKey(key, p.baseline, p.candidate)))
          wrong.push(`${pairKey(key, p.baseline, p.candidate)}: not in the feed`);
    expect(wrong).toEqual([]);
  });
});

describe('downloads', () => {
  it('verdicts.csv gives every measured pair as the API answers it: figures, verdict, agreement, reasons, left out', async () => {
    const [head, ...rows] = parseCsv(await readFile(join(out, 'downloads/verdicts.csv'), 'utf8'));
    const col = (row: string[], name: string) => row[head!.indexOf(name)] ?? '';
    const measured = rows.filter((r) => col(r, 'source') === 'measured');
    const byPair = new Map(measured.map((r) => [pairKey(col(r, 'group'), col(r, 'baseline'), col(r, 'candidate')), r]));
    const wrong: string[] = [];
    let pairs = 0;
    for (const [key, { group: g }] of apiGroups())
      for (const p of g.pairs) {
        const m = p.measured;
        if (!m) continue;
        pairs++;
        const row = byPair.get(pairKey(key, p.baseline, p.candidate));
        if (!row) {
          wrong.push(`${pairKey(key, p.baseline, p.candidate)}: no row`);
          continue;
        }
        const want: Record<string, string> = {
          // Numbers as the contracts' CSV writes them (12 significant digits).
          improvement: csvCell(m.improvement),
          ci95_low: csvCell(m.ci95?.low),
          ci95_high: csvCell(m.ci95?.high),
          verdict: m.verdict.kind,
          sentence: m.verdict.sentence,
          agreement: p.agreement,
          reasons: p.reasons.join('; '),
          advice: p.advice,
          left_out: g.leftOut ? `${g.leftOut.label}: ${g.leftOut.why}` : '',
        };
        for (const [c, v] of Object.entries(want))
          if (col(row, c) !== v)
            wrong.push(`${pairKey(key, p.baseline, p.candidate)} ${c}: "${col(row, c)}", the API "${v}"`);
      }
    expect(wrong).toEqual([]);
    expect(measured.length).toBe(pairs);
  });
});

describe('badges', () => {
  it('every badge on the cards, the home page and the hardware pages is the agreement the answers engine gives its claim', async () => {
    const byKey = apiGroups();
    const claimOf = (group: string, baseline: string, candidate: string, about: string) => {
      const found = byKey.get(group);
      const p = found && pairOf(found.group, baseline, candidate);
      return p && pairClaims(p, found.scenario.metric.label, found.group.ratios).find((c) => c.about === about);
    };
    const wrong: string[] = [];
    let emulated = 0;
    let badges = 0;
    for (const c of (await cards()).values()) {
      if (c.emulated) emulated++;
      for (const claim of c.claims) {
        badges++;
        const want = claimOf(c.group, c.baseline, c.candidate, claim.about)?.agreement;
        if (claim.badge !== want || claim.agreement !== want)
          wrong.push(
            `card ${pairKey(c.group, c.baseline, c.candidate)} (${claim.about}): "${claim.badge}" where the API says ${want}`,
          );
      }
    }
    await page.goto(`${site.url}/`);
    const home = await page.locator('li.answer-line[data-group]').evaluateAll((els) =>
      els.map((li) => ({
        group: li.getAttribute('data-group') ?? '',
        baseline: li.getAttribute('data-baseline') ?? '',
        candidate: li.getAttribute('data-candidate') ?? '',
        badge: li.querySelector('.line-where .badge')?.className.replace('badge', '').trim() ?? '',
      })),
    );
    for (const l of home) {
      badges++;
      const want = claimOf(l.group, l.baseline, l.candidate, 'verdict')?.agreement;
      if (l.badge !== want)
        wrong.push(`home ${pairKey(l.group, l.baseline, l.candidate)}: "${l.badge}" where the API says ${want}`);
    }
    for (const path of await htmlPages('hardware')) {
      await page.goto(`${site.url}${path}`);
      const lines = await page.locator('p.verdict[data-group] .badge').evaluateAll((els) =>
        els.map((b) => {
          const line = b.closest('p.verdict')!;
          return {
            group: line.getAttribute('data-group') ?? '',
            baseline: line.getAttribute('data-baseline') ?? '',
            candidate: line.getAttribute('data-candidate') ?? '',
            badge: b.className.replace('badge', '').trim(),
          };
        }),
      );
      for (const l of lines) {
        badges++;
        const want = claimOf(l.group, l.baseline, l.candidate, 'verdict')?.agreement;
        if (l.badge !== want)
          wrong.push(`${path} ${pairKey(l.group, l.baseline, l.candidate)}: "${l.badge}" where the API says ${want}`);
      }
    }
    expect(wrong).toEqual([]);
    // The emulated runs' cards are among them.
    expect(emulated).toBeGreaterThan(0);
    expect(badges).toBeGreaterThan(40);
  });

  it('an undecided or emulated pair carries "reproduces the article" only where the engine says so', async () => {
    const byKey = apiGroups();
    const wrong: string[] = [];
    for (const c of (await cards()).values()) {
      const found = byKey.get(c.group);
      const p = found && pairOf(found.group, c.baseline, c.candidate);
      if (!p) continue;
      const undecided = !(p.measured?.verdict.significant ?? false);
      for (const claim of c.claims)
        if (
          claim.badge === 'reproduces' &&
          (undecided || c.emulated) &&
          claim.about === 'verdict' &&
          p.agreement !== 'reproduces'
        )
          wrong.push(pairKey(c.group, c.baseline, c.candidate));
    }
    expect(wrong).toEqual([]);
  });
});

describe('newest data', () => {
  it('is when the runs were measured, not when they were imported; the article’s import is not measured data', async () => {
    const measured = runs.filter((r) => r.source === 'measured');
    const newest = (rs: readonly RunSummary[], at: (r: RunSummary) => string) =>
      rs
        .map(at)
        .reduce((a, b) => (b > a ? b : a), '')
        .slice(0, 10);
    const finished = newest(measured, (r) => r.finishedAt);
    // Imported today, measured days before: the two dates differ, so the test can tell them apart.
    expect(newest(measured, (r) => r.receivedAt)).not.toBe(finished);
    await page.goto(`${site.url}/`);
    await expect(page.locator('.lede').textContent()).resolves.toContain(`newest measured ${finished}`);
    for (const [key] of answers) {
      const mine = measured.filter((r) => r.scenario.key === key);
      if (mine.length === 0) continue;
      await page.goto(`${site.url}/scenarios/${key}/`);
      const text = (await page.locator('main').textContent()) ?? '';
      expect(text, key).toContain(`newest data ${newest(mine, (r) => r.finishedAt)}`);
    }
    // A machine's page lists its runs by when they were measured.
    const byId = new Map(runs.map((r) => [r.id, r]));
    let links = 0;
    for (const path of await htmlPages('hardware')) {
      await page.goto(`${site.url}${path}`);
      const listed = await page
        .locator('table.machine-scenarios a[href^="/runs/"]')
        .evaluateAll((els) =>
          els.map((a) => ({ id: a.getAttribute('href')!.split('/')[2]!, text: a.textContent ?? '' })),
        );
      for (const l of listed) {
        links++;
        const started = byId.get(l.id)!.startedAt;
        expect(l.text, `${path} ${l.id}`).toBe(`${started.slice(0, 10)} ${started.slice(11, 16)} UTC`);
      }
    }
    expect(links).toBeGreaterThan(10);
  });
});
