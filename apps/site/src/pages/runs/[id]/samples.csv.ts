import type { APIRoute, GetStaticPaths } from 'astro';
import { siteData } from '../../../lib/load.ts';
import { runSamplesCsv } from '../../../lib/run-files.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const data = await siteData();
  // Pages of runs an earlier build wrote are kept as they are (scripts/build.ts); the data layer
  // has written this build's when it knows the output directory (run-files.ts).
  if (data.runFilesWritten) return [];
  return data.runs.filter((r) => !data.builtRuns.has(r.id)).map((r) => ({ params: { id: r.id } }));
};

export const GET: APIRoute = async ({ params }) =>
  new Response(runSamplesCsv((await siteData()).runDetail.get(String(params.id))), {
    headers: { 'content-type': 'text/csv; charset=utf-8' },
  });
