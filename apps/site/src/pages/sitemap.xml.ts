/** sitemap.xml (https://www.sitemaps.org/protocol.html) of every HTML page, under TUNELAB_SITE_URL. */
import type { APIRoute } from 'astro';
import { escapeXml as esc } from '../lib/format.ts';
import { siteData } from '../lib/load.ts';
import { scenarioPagePaths } from '../lib/scenario-pages.ts';

export const GET: APIRoute = async () => {
  const data = await siteData();
  const site = data.config.siteUrl.replace(/\/+$/, '');
  const day = data.generatedAt.slice(0, 10);
  const paths = [
    '/',
    '/hardware/',
    '/downloads/',
    '/coverage/',
    ...data.scenarios.flatMap((s) => scenarioPagePaths(s, data)),
    ...data.hardware.map((h) => `/hardware/${h.fingerprint}/`),
    ...data.runs.map((r) => `/runs/${r.id}/`),
  ];
  const body = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${paths.map((p) => `  <url><loc>${esc(`${site}${p}`)}</loc><lastmod>${day}</lastmod></url>`).join('\n')}
</urlset>
`;
  return new Response(body, { headers: { 'content-type': 'application/xml; charset=utf-8' } });
};
