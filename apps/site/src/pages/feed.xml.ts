/** Atom feed (RFC 4287) of measured findings, newest first. */
import { classLabel, groupName } from '@tunelab/answers';
import type { APIRoute } from 'astro';
import { escapeXml as esc } from '../lib/format.ts';
import { siteData } from '../lib/load.ts';
import { groupAnchor } from '../lib/views.ts';

const upper = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const GET: APIRoute = async () => {
  const data = await siteData();
  const site = data.config.siteUrl.replace(/\/+$/, '');
  const groups = new Map(data.scenarios.flatMap((s) => s.classGroups).map((g) => [g.key, g]));
  const docs = new Map(data.scenarios.map((s) => [s.key, s.folder?.doc]));
  // The group as the answers name it (class, server, sweep point, scale): the same pair on two
  // servers or sizes is two entries that say which, never two verdicts under one class.
  const nameOf = (f: (typeof data.findings)[number]) => {
    const g = groups.get(f.group);
    const doc = docs.get(f.scenario.key);
    return g && doc ? groupName({ doc, published: null }, g) : classLabel(f.hardwareClass);
  };
  const updated = data.findings[0]?.newestRunAt ?? data.generatedAt;
  const entries = data.findings.map((f) => {
    const g = groups.get(f.group);
    const link = `${site}/scenarios/${f.scenario.key}/${g ? `#${groupAnchor(g)}` : ''}`;
    const id = `tag:tunelab,2026:finding/${encodeURIComponent(f.group)}/${encodeURIComponent(f.baseline)}/${encodeURIComponent(f.candidate)}/${f.newestRunAt}`;
    return `  <entry>
    <id>${esc(id)}</id>
    <title>${esc(`${f.scenario.key} on ${nameOf(f)}: ${f.sentence}${f.leftOut ? ` (${f.leftOut.label})` : ''}`)}</title>
    <updated>${f.newestRunAt}</updated>
    <link rel="alternate" type="text/html" href="${esc(link)}"/>
    <summary>${esc(`${f.sentence}. ${f.leftOut ? `${upper(f.leftOut.label)}: ${f.leftOut.why}. ` : ''}Hardware: ${nameOf(f)}${f.fingerprint ? ` (${f.fingerprint.slice(0, 12)})` : ''}; ${f.runs.length} runs; metric ${f.metric}.`)}</summary>
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
${entries.join('\n')}
</feed>
`;
  return new Response(body, { headers: { 'content-type': 'application/atom+xml; charset=utf-8' } });
};
