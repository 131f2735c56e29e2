// Static report site; every page is rendered at build time from the results database.
import { defineConfig } from 'astro/config';

export default defineConfig({
  output: 'static',
  // No `site`: pages use no Astro.site; the feed and sitemap take TUNELAB_SITE_URL from src/lib/env.ts.
  trailingSlash: 'ignore',
  build: { format: 'directory', concurrency: 8 },
  devToolbar: { enabled: false },
  vite: {
    // Database drivers and the WASM PostgreSQL stay plain Node modules at build time.
    ssr: {
      external: [
        '@electric-sql/pglite',
        'pg',
        'pglite-prisma-adapter',
        '@prisma/client',
        '@prisma/adapter-pg',
        'echarts',
      ],
    },
  },
});
