/**
 * The scenario folders (`scenarios/<key>/`) as the site shows them, read through
 * `@tunelab/scenarios` (the one reader, shared with the runner and the published importer):
 * README.md (question and method), scenario.yaml and the article's published.json.
 */
import { marked } from 'marked';
import {
  listScenarioDirs,
  loadScenario,
  publishedFigures,
  publishedMachineRuns,
  readScenarioReadme,
  ScenarioError,
  type PublishedData,
} from '@tunelab/scenarios';
import type { ScenarioDocument } from '@tunelab/contracts';
import type { DurationFormat } from './format.ts';
import { SiteDataError } from './source.ts';

export type PublishedMachineTable = {
  id: string;
  label: string;
  dataScale: number | null;
  /** Per variant, the article's repetitions in seconds and its own AVG text when it printed one. */
  variants: { variant: string; values: number[]; avgText: string | null }[];
};

export type PublishedArticle = {
  version: string;
  title: string;
  publisher: string | null;
  format: DurationFormat;
  variantText: Record<string, string>;
  comparisons: [string, string][];
  machines: PublishedMachineTable[];
  /** "1-2 faster than 1-1" → { server-1: "37%" }: the percentages the article itself printed. */
  articlePercent: Map<string, Map<string, string>>;
  /** Conclusions the article stated in words ("2-1 vs 2-2": "almost no difference"). */
  notes: { label: string; text: string }[];
  settings: Record<string, string>;
  /** The title in the article's own language, its translation when the file gives one, the language tag. */
  titleOriginal: string;
  titleTranslation: string | null;
  lang: string;
  url: string | null;
  /** Publication date (YYYY-MM-DD) when the file states one; null = not stated by the article. */
  date: string | null;
};

export type ScenarioFolder = {
  key: string;
  doc: ScenarioDocument;
  readmeHtml: string | null;
  published: PublishedArticle | null;
  /** Why there is no table of the article's runs, and where its figures are instead (a sentence). */
  publishedSkipped: string | null;
  /** The version the article's imported figures are stored under (published.json's hash): not one of the scenario's. */
  publishedVersion: string | null;
  /** The article's single figures by published.json key (variant → number), for report.ratios. */
  figures: Record<string, Record<string, number>>;
};

/** BCP 47 tag from the script of the text (Hangul, kana, Han), else English. */
export function languageOf(text: string): string {
  if (/[\uAC00-\uD7AF]/.test(text)) return 'ko';
  if (/[\u3040-\u30FF]/.test(text)) return 'ja';
  if (/[\u4E00-\u9FFF]/.test(text)) return 'zh';
  return 'en';
}

/** "원제 (English translation)" → the original and its translation. */
export function splitTitle(title: string): { original: string; translation: string | null } {
  const m = /^(.*\S)\s+\(([\x20-\x7E]+)\)$/.exec(title);
  if (m && languageOf(m[1] ?? '') !== 'en') return { original: m[1] ?? title, translation: m[2] ?? null };
  return { original: title, translation: null };
}

function describePublished({ file, version }: PublishedData): PublishedArticle {
  const { original, translation } = splitTitle(file.source.title);
  const stated = (k: string) => (typeof file.source[k] === 'string' ? String(file.source[k]) : null);
  const date = stated('date') ?? /\b(\d{4}-\d{2}-\d{2})\b/.exec(file.source.publisher)?.[1] ?? null;
  const usesHms = (file.hardware ?? []).some((h) =>
    Object.values(h.published_avg ?? {}).some((t) => /^\d+:\d{2}:\d{2}$/.test(t)),
  );
  const usesMs = file.runs_ms !== undefined || (file.hardware ?? []).some((h) => h.runs_ms !== undefined);
  const machines = publishedMachineRuns(file).map(({ id, machine, runsSeconds }) => ({
    id,
    label: machine?.label ?? (machine === null ? 'the article’s machine (not described)' : id),
    dataScale: machine?.data_scale ?? null,
    variants: Object.entries(runsSeconds).map(([variant, values]) => ({
      variant,
      values,
      avgText: machine?.published_avg?.[variant] ?? null,
    })),
  }));
  const articlePercent = new Map<string, Map<string, string>>();
  const notes: { label: string; text: string }[] = [];
  for (const [label, value] of Object.entries(file.published_conclusions ?? {})) {
    const m = /^(\S+) faster than (\S+)$/.exec(label);
    if (m && value && typeof value === 'object') {
      const per = new Map<string, string>();
      for (const [machine, text] of Object.entries(value))
        if (typeof text === 'string') per.set(machine, text.replace(/^about\s+/i, ''));
      articlePercent.set(`${m[2]}→${m[1]}`, per);
    } else if (typeof value === 'string') {
      notes.push({ label, text: value });
    } else if (value && typeof value === 'object') {
      notes.push({
        label,
        text: Object.entries(value)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join(', '),
      });
    }
  }
  return {
    version,
    title: file.source.title,
    publisher: file.source.publisher,
    format: usesHms ? 'hms' : usesMs ? 'ms' : 's',
    variantText: file.variants ?? {},
    comparisons: file.comparisons ?? [],
    machines,
    articlePercent,
    notes,
    settings: file.setup?.server_settings ?? {},
    titleOriginal: original,
    titleTranslation: translation,
    lang: stated('lang') ?? languageOf(original),
    url: file.source.url ?? null,
    date,
  };
}

export async function readScenarioFolders(dir: string): Promise<ScenarioFolder[]> {
  const out: ScenarioFolder[] = [];
  for (const folder of await listScenarioDirs(dir)) {
    let scenario;
    try {
      scenario = await loadScenario(folder);
    } catch (err) {
      if (err instanceof ScenarioError) throw new SiteDataError(`${folder} is not a valid scenario:\n${err.message}`);
      throw err;
    }
    const readme = await readScenarioReadme(folder);
    let readmeHtml: string | null = null;
    if (readme !== null) {
      // The folder name heading repeats the page title; the page prints its own.
      readmeHtml = await marked.parse(readme.replace(/^#\s+[^\n]*\n/, ''), { gfm: true });
      // Wide tables scroll on a phone instead of widening the page.
      let n = 0;
      readmeHtml = readmeHtml
        .replace(
          /<table>/g,
          () => `<div class="table-scroll" tabindex="0" role="region" aria-label="Table ${++n} of the method"><table>`,
        )
        .replace(/<\/table>/g, '</table></div>')
        .replace(/<pre>/g, '<pre tabindex="0">');
    }
    let published = scenario.published ? describePublished(scenario.published) : null;
    let publishedSkipped: string | null = null;
    if (published && published.machines.length === 0) {
      published = null;
      // Its single figures are still the article's findings: the page shows them beside the answers,
      // in the charts and fits, so this says where they are, not that nothing was reproduced.
      const sweep = scenario.published?.file.sweep;
      publishedSkipped = sweep
        ? `The article published one figure per ${sweep.param} and variant, not repeated runs: its figures are beside the answers and in the charts and fits above, not a table of runs`
        : 'The article published single figures, not repeated runs: they are beside the answers above, not a table of runs';
    }
    out.push({
      key: scenario.key,
      doc: scenario.doc,
      readmeHtml,
      published,
      publishedSkipped,
      publishedVersion: scenario.published?.version ?? null,
      figures: publishedFigures(scenario.published),
    });
  }
  return out;
}
