/**
 * Atom feed (RFC 4287) of the measured answers, newest data first: one entry per group and pair of
 * every scenario's answers (@tunelab/answers, as GET /v1/answers and the scenario page give them),
 * with the card's advice, means and verdict sentence; a group left out of the verdict says so.
 */
import type { APIRoute } from 'astro';
import { releaseEventEntries } from '../lib/release-feed.ts';
import { AGREEMENT_TEXT, answerAnchor } from '../lib/answer.ts';
import { pairLines } from '../lib/answer-lines.ts';
import { escapeXml as esc } from '../lib/format.ts';
import { siteData } from '../lib/load.ts';

const upper = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** The feed's length: the newest entries, as the API's findings are limited. */
const ENTRIES = 200;

export const GET: APIRoute = async () => {
  const data = await siteData();
  const site = data.config.siteUrl.replace(/\/+$/, '');
  const lines = data.scenarios
    .flatMap((sc) => pairLines(sc))
    .sort(
      (x, y) =>
        y.answer.group.newestRunAt.localeCompare(x.answer.group.newestRunAt) ||
        x.answer.group.key.localeCompare(y.answer.group.key) ||
        x.pair.candidate.localeCompare(y.pair.candidate),
    )
    .slice(0, ENTRIES);
  const updated = lines[0]?.answer.group.newestRunAt ?? data.generatedAt;
  const entries = lines.map((l) => {
    const g = l.answer.group;
    const link = `${site}/scenarios/${l.scenario.key}/#answer-${answerAnchor(l.answer)}`;
    const id = `tag:tunelab,2026:finding/${encodeURIComponent(g.key)}/${encodeURIComponent(l.pair.baseline)}/${encodeURIComponent(l.pair.candidate)}/${g.newestRunAt}`;
    const summary = [
      `${upper(l.verdict.text)}${l.figures ? ` — ${l.figures}` : ''}.`,
      `${l.sentence}.`,
      `Against the article: ${AGREEMENT_TEXT[l.verdict.agreement]}.`,
      l.leftOut ? `${upper(l.leftOut.label)}: ${l.leftOut.why}.` : '',
      `${g.runCount} ${g.runCount === 1 ? 'run' : 'runs'} on ${g.hardware.profiles} ${g.hardware.profiles === 1 ? 'machine' : 'machines'}; metric ${g.metric}.`,
    ]
      .filter(Boolean)
      .join(' ');
    return `  <entry>
    <id>${esc(id)}</id>
    <title>${esc(`${l.scenario.key} on ${l.name}: ${l.sentence}${l.leftOut ? ` (${l.leftOut.label})` : ''}`)}</title>
    <updated>${g.newestRunAt}</updated>
    <link rel="alternate" type="text/html" href="${esc(link)}"/>
    <summary>${esc(summary)}</summary>
  </entry>`;
  });
  const body = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>TuneLab findings</title>
  <subtitle>Which way of doing a database chore is faster, per hardware class</subtitle>
  <id>${esc(`${site}/`)}</id>
  <link rel="self" type="application/atom+xml" href="${esc(`${site}/feed.xml`)}"/>
  <link rel="alternate" type="text/html" href="${esc(`${site}/`)}"/>
  <updated>${updated}</updated>
  <author><name>TuneLab</name></author>
${[...entries, ...releaseEventEntries(data.releaseEvents, site)].join('\n')}
</feed>
`;
  return new Response(body, { headers: { 'content-type': 'application/atom+xml; charset=utf-8' } });
};
