import type { APIRoute, GetStaticPaths } from 'astro';
import { siteData } from '../../../lib/load.ts';
import { toCsv } from '../../../lib/views.ts';

export const getStaticPaths: GetStaticPaths = async () =>
  (await siteData()).runs.map((r) => ({ params: { id: r.id } }));

export const GET: APIRoute = async ({ params }) => {
  const run = (await siteData()).runDetail.get(String(params.id));
  const body = toCsv(
    ['variant', 'repetition', 'metric', 'unit', 'value'],
    (run?.samples ?? []).map((s) => [s.variant, s.repetition, s.metric, s.unit, s.value]),
  );
  return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8' } });
};
