/**
 * Page weight: gzipped bytes of the home page and of each scenario page, and per
 * answered group (a hardware class under one set of conditions with an answer card on its
 * scenario page). The home page is divided by every answered group of the site, a scenario page
 * by its own. ClickBench's report holds 918 results in ~329 KB gzipped (~0.36 KB each); the aim
 * here is ≤ 2 KB gzipped per answered group.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export type PageWeight = { page: string; rawBytes: number; gzipBytes: number; groups: number };

const answeredGroups = (html: string) => (html.match(/<article class="answer-card"/g) ?? []).length;

/** The home page and every scenario page of a built site, with their weights and answered groups. */
export async function pageWeights(dir: string): Promise<PageWeight[]> {
  const read = async (page: string) => {
    const html = await readFile(join(dir, page, 'index.html'));
    return { page: `/${page}`, rawBytes: html.length, gzipBytes: gzipSync(html, { level: 9 }).length, html };
  };
  const scenarios = await Promise.all(
    (await readdir(join(dir, 'scenarios'), { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => read(`scenarios/${e.name}/`)),
  );
  const pages = scenarios.map(({ html, ...p }) => ({ ...p, groups: answeredGroups(html.toString()) }));
  const { html: _home, ...home } = await read('');
  return [
    { ...home, groups: pages.reduce((s, p) => s + p.groups, 0) },
    ...pages.sort((a, b) => a.page.localeCompare(b.page)),
  ];
}

const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;

/** The weights as a table: page | raw | gzipped | answered groups | gzipped per answered group. */
export function printWeights(label: string, weights: readonly PageWeight[]): void {
  console.log(`\n${label}\npage | raw | gzipped | answered groups | gzipped per answered group (aim ≤ 2 KB)`);
  console.log('--- | ---: | ---: | ---: | ---:');
  for (const w of weights)
    console.log(
      `${w.page} | ${kb(w.rawBytes)} | ${kb(w.gzipBytes)} | ${w.groups} | ${w.groups > 0 ? kb(w.gzipBytes / w.groups) : '—'}`,
    );
  const total = weights.reduce((s, w) => s + w.gzipBytes, 0);
  const groups = weights[0]?.groups ?? 0;
  console.log(
    `home + scenario pages: ${kb(total)} gzipped for ${groups} answered groups = ${groups > 0 ? kb(total / groups) : '—'} per answered group`,
  );
}
