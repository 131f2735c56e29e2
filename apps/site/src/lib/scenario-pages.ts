/**
 * Which pages a scenario has beside its own: the sub-pages that carry what its page leaves out
 * (charts of other metrics, every hardware class, question and method, the article's runs, the
 * pairs across server versions) and one page per measured group. The routes' getStaticPaths and
 * the sitemap read the same answer, so a page is listed exactly when it is built.
 */
import { CLASSES_NAMED_UP_TO } from '@tunelab/answers';
import type { ScenarioView, SiteData } from './load.ts';
import { chartsByPlace, declaredCharts } from './report-charts.ts';
import { versionFiguresElsewhere } from './side-by-side.ts';
import { measuredTables, publishedTables } from './views.ts';

export type ScenarioSubPage = 'charts' | 'classes' | 'method' | 'published' | 'versions';

/** The scenario's sub-pages (`/scenarios/<key>/<sub>/`), in a fixed order. */
export function scenarioSubPages(sc: ScenarioView, data: SiteData): ScenarioSubPage[] {
  const versions = sc.answers?.versions.comparisons ?? [];
  const has: Record<ScenarioSubPage, boolean> = {
    charts: chartsByPlace(sc, declaredCharts(sc, data)).elsewhere.length > 0,
    classes: sc.answers?.classes.comparisons.some((c) => c.rows.length > CLASSES_NAMED_UP_TO) ?? false,
    method: true,
    published: Boolean(sc.folder?.published) && publishedTables(sc).length > 0,
    versions: versions.some((c) => versionFiguresElsewhere(c, versions)),
  };
  return (Object.keys(has) as ScenarioSubPage[]).filter((k) => has[k]);
}

/** getStaticPaths of a scenario sub-page: the scenarios that have it. */
export const subPagePaths = (data: SiteData, sub: ScenarioSubPage) =>
  data.scenarios
    .filter((sc) => scenarioSubPages(sc, data).includes(sub))
    .map((sc) => ({ params: { key: sc.key }, props: { key: sc.key } }));

/** Every page of the scenario: its own, its sub-pages and its groups' pages (site paths). */
export function scenarioPagePaths(sc: ScenarioView, data: SiteData): string[] {
  const base = `/scenarios/${sc.key}/`;
  return [
    base,
    ...scenarioSubPages(sc, data).map((sub) => `${base}${sub}/`),
    ...measuredTables(sc, data).map((t) => `${base}groups/${t.id}/`),
  ];
}
