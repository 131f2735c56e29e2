import type { APIRoute, GetStaticPaths } from 'astro';
import { siteData } from '../../../lib/load.ts';
import { toCsv } from '../../../lib/views.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const data = await siteData();
  // Pages of runs an earlier build wrote are kept as they are (scripts/build.ts).
  return data.runs.filter((r) => !data.builtRuns.has(r.id)).map((r) => ({ params: { id: r.id } }));
};

export const GET: APIRoute = async ({ params }) => {
  const run = (await siteData()).runDetail.get(String(params.id));
  const body = toCsv(
    ['variant', 'repetition', 'metric', 'unit', 'value'],
    (run?.samples ?? []).map((s) => [s.variant, s.repetition, s.metric, s.unit, s.value]),
  );
  return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8' } });
};
