/**
 * The scenario folders (`scenarios/<key>/`): README.md (question and method), scenario.yaml
 * (validated with the contracts' ScenarioDocument) and the article's published.json, read with
 * results-db's `publishedSubmissions` — the same reading the importer stores.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { marked } from 'marked';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ScenarioDocument, RunSubmission } from '@tunelab/contracts';
import { publishedSubmissions } from '@tunelab/results-db';
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
};

export type ScenarioFolder = {
  key: string;
  doc: ScenarioDocument;
  readmeHtml: string | null;
  published: PublishedArticle | null;
  publishedSkipped: string | null;
};

const Conclusions = z.record(z.string(), z.unknown());
const RawPublished = z.looseObject({
  hardware: z.array(z.looseObject({ id: z.string(), published_avg: z.record(z.string(), z.string()).optional() })).optional(),
  runs_ms: z.unknown().optional(),
  published_conclusions: Conclusions.optional(),
});

function readPublished(bytes: Buffer, path: string): PublishedArticle {
  const built = publishedSubmissions(bytes);
  const raw = RawPublished.parse(JSON.parse(String(bytes)));
  const usesHms = (raw.hardware ?? []).some((h) => Object.values(h.published_avg ?? {}).some((t) => /^\d+:\d{2}:\d{2}$/.test(t)));
  const usesMs = raw.runs_ms !== undefined || JSON.stringify(raw.hardware ?? []).includes('"runs_ms"');
  const machines = built.runs.map(({ machine, submission }) => {
    const s = RunSubmission.safeParse(submission);
    if (!s.success) throw new SiteDataError(`${path} (${machine}) does not make a valid run: ${s.error.issues[0]?.message ?? ''}`);
    const p = s.data.params;
    const byVariant = new Map<string, number[]>();
    for (const x of s.data.samples) {
      const list = byVariant.get(x.variant) ?? [];
      list[x.repetition - 1] = x.value;
      byVariant.set(x.variant, list);
    }
    const label = typeof p['published.label'] === 'string' ? p['published.label'] : machine === 'article' ? 'the article’s machine (not described)' : machine;
    return {
      id: machine,
      label,
      dataScale: typeof p['published.data_scale'] === 'number' ? p['published.data_scale'] : null,
      variants: [...byVariant.entries()].map(([variant, values]) => {
        const avg = p[`published.avg.${variant}`];
        return { variant, values, avgText: typeof avg === 'string' ? avg : null };
      }),
    };
  });
  const articlePercent = new Map<string, Map<string, string>>();
  const notes: { label: string; text: string }[] = [];
  for (const [label, value] of Object.entries(raw.published_conclusions ?? {})) {
    const m = /^(\S+) faster than (\S+)$/.exec(label);
    if (m && value && typeof value === 'object') {
      const per = new Map<string, string>();
      for (const [machine, text] of Object.entries(value)) if (typeof text === 'string') per.set(machine, text.replace(/^about\s+/i, ''));
      articlePercent.set(`${m[2]}→${m[1]}`, per);
    } else if (typeof value === 'string') {
      notes.push({ label, text: value });
    } else if (value && typeof value === 'object') {
      notes.push({ label, text: Object.entries(value).map(([k, v]) => `${k}: ${String(v)}`).join(', ') });
    }
  }
  return {
    version: built.version,
    title: built.file.source?.title ?? built.file.scenario,
    publisher: built.file.source?.publisher ?? null,
    format: usesHms ? 'hms' : usesMs ? 'ms' : 's',
    variantText: built.file.variants ?? {},
    comparisons: built.file.comparisons ?? [],
    machines,
    articlePercent,
    notes,
    settings: built.file.setup?.server_settings ?? {},
  };
}

export async function readScenarioFolders(dir: string): Promise<ScenarioFolder[]> {
  if (!existsSync(dir)) return [];
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const out: ScenarioFolder[] = [];
  for (const key of entries) {
    const yamlPath = join(dir, key, 'scenario.yaml');
    if (!existsSync(yamlPath)) continue;
    let doc: ScenarioDocument;
    try {
      doc = ScenarioDocument.parse(parseYaml(await readFile(yamlPath, 'utf8')));
    } catch (err) {
      const detail = err instanceof z.ZodError ? err.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : err instanceof Error ? err.message : String(err);
      throw new SiteDataError(`${yamlPath} is not a valid scenario: ${detail}`);
    }
    if (doc.key !== key) throw new SiteDataError(`${yamlPath} says key "${doc.key}" but lives in folder "${key}"`);
    const readmePath = join(dir, key, 'README.md');
    let readmeHtml: string | null = null;
    if (existsSync(readmePath)) {
      // The folder name heading repeats the page title; the page prints its own.
      const md = (await readFile(readmePath, 'utf8')).replace(/^#\s+\S+\s*\n/, '');
      readmeHtml = await marked.parse(md, { gfm: true });
      // Wide tables scroll on a phone instead of widening the page.
      readmeHtml = readmeHtml.replace(/<table>/g, '<div class="table-scroll"><table>').replace(/<\/table>/g, '</table></div>');
    }
    const publishedPath = join(dir, key, 'published.json');
    let published: PublishedArticle | null = null;
    let publishedSkipped: string | null = null;
    if (existsSync(publishedPath)) {
      try {
        published = readPublished(await readFile(publishedPath), publishedPath);
        if (published.machines.length === 0) {
          published = null;
          publishedSkipped = 'the article published single figures, not repeated runs';
        }
      } catch (err) {
        if (err instanceof SiteDataError) throw err;
        // Same rule as the importer: a published.json in a shape we do not read is skipped, with a reason.
        publishedSkipped = `published.json is not in a supported shape (${err instanceof Error ? err.message.slice(0, 200) : String(err)})`;
      }
    }
    out.push({ key, doc, readmeHtml, published, publishedSkipped });
  }
  return out;
}
