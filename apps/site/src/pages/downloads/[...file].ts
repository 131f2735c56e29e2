import type { APIRoute, GetStaticPaths } from 'astro';
import { siteData } from '../../lib/load.ts';
import { downloadFiles } from '../../lib/downloads.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const data = await siteData();
  return downloadFiles(data)
    .filter((f) => f.body !== null)
    .map((f) => ({ params: { file: f.path }, props: { path: f.path } }));
};

export const GET: APIRoute = async ({ props }) => {
  const f = downloadFiles(await siteData()).find((x) => x.path === props.path);
  if (!f) return new Response('not found', { status: 404 });
  return new Response(f.body, { headers: { 'content-type': f.type } });
};
