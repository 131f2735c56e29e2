/** The report site's data layer; pages live in src/pages and are built by `astro build`. */
export { loadSiteData, siteData, type SiteData, type ScenarioView } from './lib/load.ts';
export { readSiteConfig, findRepoRoot, type SiteConfig } from './lib/env.ts';
export { SiteDataError } from './lib/source.ts';
