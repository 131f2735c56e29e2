import type { APIRoute, GetStaticPaths } from 'astro';
import { siteData } from '../../../lib/load.ts';

export const getStaticPaths: GetStaticPaths = async () =>
  (await siteData()).runs.map((r) => ({ params: { id: r.id } }));

export const GET: APIRoute = async ({ params }) => {
  const run = (await siteData()).runDetail.get(String(params.id));
  return new Response(`${JSON.stringify(run, null, 2)}\n`, {
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
};
