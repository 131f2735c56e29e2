/** A built site served and open in Chromium, for the tests that read pages as a browser shows them. */
import { launchChromium } from '@tunelab/browser';
import { buildSite } from './build.ts';
import { serveStatic } from './static-server.ts';

/**
 * The site built into `outDir` from the results database in `dataDir`, served over HTTP and open
 * in Chromium (one page: Chromium here runs as a single process, and closing a page can end it).
 * A failed build throws with the build's output; `close()` ends the browser and the server.
 */
export async function openBuiltSite(outDir: string, dataDir: string) {
  const built = await buildSite(outDir, { TUNELAB_DATA_DIR: dataDir });
  if (built.code !== 0) throw new Error(`astro build exited ${built.code}:\n${built.output}`);
  const server = await serveStatic(outDir);
  const browser = await launchChromium();
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  return {
    url: server.url,
    page,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}
