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

/**
 * The pages one link below the scenario pages (a measured group's, the versions, the article's
 * runs, the other charts, the method, the classes), per kind: how many and their gzipped bytes
 * (median and largest). They are read when a reader opens them, not with the scenario page.
 */
export async function subPageWeights(dir: string): Promise<{ kind: string; gzip: number[] }[]> {
  const byKind = new Map<string, number[]>();
  for (const e of await readdir(join(dir, 'scenarios'), { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name !== 'index.html') continue;
    const rel = join(e.parentPath, e.name)
      .slice(join(dir, 'scenarios').length + 1)
      .split('/');
    if (rel.length < 3) continue;
    const gzip = gzipSync(await readFile(join(e.parentPath, e.name)), { level: 9 }).length;
    byKind.set(rel[1]!, [...(byKind.get(rel[1]!) ?? []), gzip]);
  }
  return [...byKind.entries()]
    .map(([kind, gzip]) => ({ kind, gzip: gzip.sort((a, b) => a - b) }))
    .sort((a, b) => a.kind.localeCompare(b.kind));
}

const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;

/** The sub-pages as a table: kind | pages | median gzipped | largest gzipped. */
export function printSubPages(label: string, kinds: readonly { kind: string; gzip: number[] }[]): void {
  console.log(`\n${label}\npages below /scenarios/<key>/ | pages | gzipped, median | gzipped, largest`);
  console.log('--- | ---: | ---: | ---:');
  for (const k of kinds)
    console.log(
      `${k.kind}/ | ${k.gzip.length} | ${kb(k.gzip[Math.floor(k.gzip.length / 2)] ?? 0)} | ${kb(k.gzip.at(-1) ?? 0)}`,
    );
}

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
