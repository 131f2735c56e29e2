/**
 * The site and the API give the same answers. Real runs of all five scenarios (the
 * default scale, made with `tunelab run … --out` on the development machine) and the published
 * figures go into a fresh PostgreSQL database behind a real API; the site is built from the
 * database directly (DATABASE_URL), and for every scenario page, every group and every declared
 * pair the page's agreement equals what GET /v1/answers says.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi } from '@tunelab/api/testing';
import type { ScenarioAnswers } from '@tunelab/contracts';
import { buildSite, ROOT as REPO_ROOT } from './support.ts';

const SCENARIOS = join(REPO_ROOT, 'scenarios');
const KEYS = [
  'fillfactor-hot-updates',
  'innodb-compression-insert',
  'recovery-init-sync',
  'vacuum-full-rewrite',
  'vacuum-index-cleanup',
];

/** group key → `baseline>candidate` → agreement, from a built scenario page's answer cards. */
function pageAgreements(html: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const cards = html.split('<article class="answer-card"').slice(1);
  for (const card of cards) {
    const key = /data-group="([^"]+)"/.exec(card)?.[1];
    if (!key) continue;
    const pairs = new Map<string, string>();
    for (const m of card.matchAll(/data-baseline="([^"]+)" data-candidate="([^"]+)" data-agreement="([^"]+)"/g))
      pairs.set(`${m[1]}>${m[2]}`, m[3]!);
    out.set(key.replace(/&#38;|&amp;/g, '&'), pairs);
  }
  return out;
}

describe('every scenario page gives the same agreement as GET /v1/answers', () => {
  let work: string;
  let url: string;
  let databaseUrl: string;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'tl-answers-site-'));
    const runs = [];
    for (const key of KEYS) {
      const file = JSON.parse(await readFile(join(REPO_ROOT, 'tests/fixtures/real-runs', `${key}.json`), 'utf8')) as {
        submission: unknown;
      };
      runs.push({ key, body: file.submission });
    }
    const api = await startApi({}, 'tl_answers_site', { scenariosDir: SCENARIOS, runs });
    url = api.url;
    databaseUrl = api.databaseUrl;
    cleanup = api.close;
  }, 120_000);
  afterAll(async () => {
    await cleanup?.();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it(
    'builds the site from the database and compares every class and pair with the API',
    { timeout: 600_000 },
    async () => {
      const out = join(work, 'dist');
      const build = await buildSite(out, { DATABASE_URL: databaseUrl });
      expect(build.code, build.out.slice(-3000)).toBe(0);
      let compared = 0;
      for (const key of KEYS) {
        const res = await fetch(`${url}/v1/answers?scenario=${key}`);
        expect(res.status).toBe(200);
        const api = (await res.json()) as ScenarioAnswers;
        expect(api.groups.length, `${key} has measured groups`).toBeGreaterThan(0);
        const page = pageAgreements(await readFile(join(out, 'scenarios', key, 'index.html'), 'utf8'));
        expect([...page.keys()].sort()).toEqual(api.groups.map((g) => g.group.key).sort());
        for (const g of api.groups) {
          const pairs = page.get(g.group.key)!;
          for (const p of g.pairs) {
            expect(
              pairs.get(`${p.baseline}>${p.candidate}`),
              `${key} ${g.group.key} ${p.baseline}>${p.candidate}`,
            ).toBe(p.agreement);
            compared++;
          }
        }
      }
      expect(compared).toBeGreaterThan(10);
      // The ratio line atop the fillfactor page says what the ratio claims' badges say: the sizes
      // fall inside the article's intervals, but one warehouse for five seconds is not comparable.
      const ff = (await (await fetch(`${url}/v1/answers?scenario=fillfactor-hot-updates`)).json()) as ScenarioAnswers;
      const ratioPairs = ff.groups[0]!.pairs.filter((p) => p.article?.kind === 'ratio');
      expect(ratioPairs.map((p) => p.agreement)).toEqual(['not-comparable', 'not-comparable', 'not-comparable']);
      const page = await readFile(join(out, 'scenarios', 'fillfactor-hot-updates', 'index.html'), 'utf8');
      const line = /<p class="answer-ratio"[^>]*>([\s\S]*?)<\/p>/.exec(page)?.[1]?.replace(/<[^>]+>/g, '') ?? '';
      expect(line).toContain('— not comparable for 3 of 3');
      expect(line).not.toContain('reproduces');
    },
  );
});
