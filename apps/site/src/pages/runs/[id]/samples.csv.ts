import type { APIRoute, GetStaticPaths } from 'astro';
import { runFilePaths, siteData } from '../../../lib/load.ts';
import { runSamplesCsv } from '../../../lib/run-files.ts';

export const getStaticPaths: GetStaticPaths = runFilePaths;

export const GET: APIRoute = async ({ params }) =>
  new Response(runSamplesCsv((await siteData()).runDetail.get(String(params.id))), {
    headers: { 'content-type': 'text/csv; charset=utf-8' },
  });
