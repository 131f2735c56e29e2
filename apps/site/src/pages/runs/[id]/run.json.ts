import type { APIRoute, GetStaticPaths } from 'astro';
import { siteData } from '../../../lib/load.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const data = await siteData();
  // Pages of runs an earlier build wrote are kept as they are (scripts/build.ts).
  return data.runs.filter((r) => !data.builtRuns.has(r.id)).map((r) => ({ params: { id: r.id } }));
};

export const GET: APIRoute = async ({ params }) => {
  const run = (await siteData()).runDetail.get(String(params.id));
  return new Response(`${JSON.stringify(run, null, 2)}\n`, {
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
};
