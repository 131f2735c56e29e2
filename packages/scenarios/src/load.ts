import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import {
  findPlaceholders,
  formatScenarioIssue,
  validateScenarioDocument,
  type ScenarioDocument,
  type ScenarioIssue,
  type Step,
} from '@tunelab/contracts';

import { checkArticleConditions } from './article-conditions.ts';
import { checkConditions, publishedConditions } from './conditions.ts';
import { hashScenarioFolder } from './hash.ts';
import { parsePublished, publishedFigures, readPublishedBytes, type PublishedData } from './published.ts';

/** The repository's `scenarios/` folder (packages/scenarios/src → ../../../scenarios). */
export const DEFAULT_SCENARIOS_DIR = fileURLToPath(new URL('../../../scenarios/', import.meta.url));

export type LoadedScenario = {
  dir: string;
  key: string;
  /** sha256 over the sorted relative paths and bytes of every file in the folder. */
  version: string;
  doc: ScenarioDocument;
  /** Contents of the `.sql` files referenced by steps, by file name. */
  sqlFiles: Map<string, string>;
  /** The article's figures (`published.json`) and their version, when the folder has them. */
  published: PublishedData | null;
};

export class ScenarioError extends Error {
  constructor(readonly issues: ScenarioIssue[]) {
    super(issues.map(formatScenarioIssue).join('\n'));
    this.name = 'ScenarioError';
  }
}

function stepsOf(doc: ScenarioDocument): { steps: readonly Step[]; base: string }[] {
  return [
    { steps: doc.fixture, base: 'fixture' },
    ...doc.variants.map((v, i) => ({ steps: v.steps, base: `variants[${i}].steps` })),
  ];
}

/** Loads and validates `dir/scenario.yaml` and everything it references; throws ScenarioError. */
export async function loadScenario(dir: string): Promise<LoadedScenario> {
  const folder = path.basename(path.resolve(dir));
  const yamlFile = `${folder}/scenario.yaml`;
  let text: string;
  try {
    text = await readFile(path.join(dir, 'scenario.yaml'), 'utf8');
  } catch {
    throw new ScenarioError([
      { file: yamlFile, path: '(file)', message: 'missing: every scenario folder needs a scenario.yaml' },
    ]);
  }
  const yaml = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (yaml.errors.length) {
    throw new ScenarioError(
      yaml.errors.map((e) => ({
        file: yamlFile,
        path: `line ${e.linePos?.[0]?.line ?? '?'}`,
        message: `invalid YAML: ${e.message.split('\n')[0]}`,
      })),
    );
  }
  const result = validateScenarioDocument(yaml.toJS(), yamlFile);
  if (!result.ok) throw new ScenarioError(result.issues);
  const doc = result.scenario;
  const issues: ScenarioIssue[] = [];
  if (doc.key !== folder)
    issues.push({ file: yamlFile, path: 'key', message: `expected the folder name "${folder}", found "${doc.key}"` });

  const sqlFiles = new Map<string, string>();
  const declared = Object.keys(doc.params);
  const visit = async (steps: readonly Step[], base: string) => {
    for (const [j, s] of steps.entries()) {
      if (s.action === 'timed') await visit(s.steps, `${base}[${j}].steps`);
      if (s.action !== 'sql' || s.file === undefined) continue;
      let sql = sqlFiles.get(s.file);
      if (sql === undefined) {
        try {
          sql = await readFile(path.join(dir, s.file), 'utf8');
        } catch {
          issues.push({
            file: yamlFile,
            path: `${base}[${j}].file`,
            message: `expected an existing file ${folder}/${s.file}`,
          });
          continue;
        }
        sqlFiles.set(s.file, sql);
        for (const [n, line] of sql.split('\n').entries()) {
          for (const name of findPlaceholders(line)) {
            if (base === 'fixture' && name === doc.sweep?.param) {
              issues.push({
                file: `${folder}/${s.file}`,
                path: `line ${n + 1}`,
                message: `the fixture is built once for every sweep point and cannot use the swept parameter {{${name}}}`,
              });
            }
            if (!declared.includes(name)) {
              issues.push({
                file: `${folder}/${s.file}`,
                path: `line ${n + 1}`,
                message: `unknown parameter {{${name}}}; expected one of: ${declared.join(', ') || '(none declared)'}`,
              });
            }
          }
        }
      }
    }
  };
  for (const { steps, base } of stepsOf(doc)) await visit(steps, base);

  let published: PublishedData | null = null;
  const publishedBytes = await readPublishedBytes(dir);
  if (publishedBytes) {
    const parsed = parsePublished(publishedBytes, `${folder}/published.json`);
    if (parsed.ok) published = parsed.published;
    else issues.push(...parsed.issues);
  }
  const conditions = publishedConditions(published?.file);
  if (conditions) issues.push(...checkConditions(conditions, doc, `${folder}/published.json`));
  if (doc.article_conditions)
    issues.push(...checkArticleConditions(doc.article_conditions, published?.file ?? null, yamlFile, doc.params));
  // published.json claims name a metric and two variants of the scenario.
  (published?.file.claims ?? []).forEach((c, i) => {
    const path = `claims[${i}]`;
    const file = `${folder}/published.json`;
    if (!doc.metrics.some((m) => m.key === c.metric))
      issues.push({
        file,
        path: `${path}.metric`,
        message: `unknown metric "${c.metric}"; expected one of: ${doc.metrics.map((m) => m.key).join(', ')}`,
      });
    for (const side of ['baseline', 'candidate'] as const)
      if (!doc.variants.some((v) => v.key === c[side]))
        issues.push({
          file,
          path: `${path}.${side}`,
          message: `unknown variant "${c[side]}"; expected one of: ${doc.variants.map((v) => v.key).join(', ')}`,
        });
  });
  // report.ratios[].published names a map of variant → number in published.json.
  (doc.report.ratios ?? []).forEach((r, i) => {
    if (r.published === undefined) return;
    const figures = publishedFigures(published)[r.published];
    if (!figures)
      issues.push({
        file: yamlFile,
        path: `report.ratios[${i}].published`,
        message: `published.json has no map of variant → number named "${r.published}"`,
      });
  });
  if (!(await stat(path.join(dir, 'README.md')).catch(() => null))) {
    issues.push({
      file: `${folder}/README.md`,
      path: '(file)',
      message: 'missing: describe the question, the variants and what the article found',
    });
  }
  if (issues.length) throw new ScenarioError(issues);
  return { dir, key: doc.key, version: await hashScenarioFolder(dir), doc, sqlFiles, published };
}

/** Every folder with a scenario.yaml under root, sorted by key. */
export async function listScenarioDirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const dirs: string[] = [];
  for (const e of entries) {
    if (e.isDirectory() && (await stat(path.join(root, e.name, 'scenario.yaml')).catch(() => null)))
      dirs.push(path.join(root, e.name));
  }
  return dirs.sort();
}
