import type { APIRoute, GetStaticPaths } from 'astro';
import { runFilePaths, siteData } from '../../../lib/load.ts';
import { runJson } from '../../../lib/run-files.ts';

export const getStaticPaths: GetStaticPaths = runFilePaths;

export const GET: APIRoute = async ({ params }) =>
  new Response(runJson((await siteData()).runDetail.get(String(params.id))), {
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
