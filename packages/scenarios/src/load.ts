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

/** Reads, parses and validates `dir/scenario.yaml`; throws ScenarioError. */
async function readScenarioDocument(dir: string, yamlFile: string): Promise<ScenarioDocument> {
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
  return result.scenario;
}

/** What loading a scenario folder collects as it goes: the `.sql` files read and the issues found. */
type LoadState = {
  dir: string;
  folder: string;
  yamlFile: string;
  doc: ScenarioDocument;
  sqlFiles: Map<string, string>;
  issues: ScenarioIssue[];
};

/** A `.sql` file's placeholders that name no declared parameter, or the swept one in the fixture. */
function placeholderIssues(state: LoadState, file: string, sql: string, base: string): ScenarioIssue[] {
  const { doc, folder } = state;
  const declared = Object.keys(doc.params);
  const issues: ScenarioIssue[] = [];
  for (const [n, line] of sql.split('\n').entries()) {
    for (const name of findPlaceholders(line)) {
      if (base === 'fixture' && name === doc.sweep?.param) {
        issues.push({
          file: `${folder}/${file}`,
          path: `line ${n + 1}`,
          message: `the fixture is built once for every sweep point and cannot use the swept parameter {{${name}}}`,
        });
      }
      if (!declared.includes(name)) {
        issues.push({
          file: `${folder}/${file}`,
          path: `line ${n + 1}`,
          message: `unknown parameter {{${name}}}; expected one of: ${declared.join(', ') || '(none declared)'}`,
        });
      }
    }
  }
  return issues;
}

/** Reads each `.sql` file the steps reference (once), checking that it exists and its placeholders. */
async function readSqlFiles(state: LoadState, steps: readonly Step[], base: string): Promise<void> {
  for (const [j, s] of steps.entries()) {
    if (s.action === 'timed') await readSqlFiles(state, s.steps, `${base}[${j}].steps`);
    if (s.action !== 'sql' || s.file === undefined) continue;
    if (state.sqlFiles.has(s.file)) continue;
    let sql: string;
    try {
      sql = await readFile(path.join(state.dir, s.file), 'utf8');
    } catch {
      state.issues.push({
        file: state.yamlFile,
        path: `${base}[${j}].file`,
        message: `expected an existing file ${state.folder}/${s.file}`,
      });
      continue;
    }
    state.sqlFiles.set(s.file, sql);
    state.issues.push(...placeholderIssues(state, s.file, sql, base));
  }
}

/** The folder's `published.json`, when it has one that parses; its issues otherwise. */
async function readPublished(state: LoadState): Promise<PublishedData | null> {
  const publishedBytes = await readPublishedBytes(state.dir);
  if (!publishedBytes) return null;
  const parsed = parsePublished(publishedBytes, `${state.folder}/published.json`);
  if (parsed.ok) return parsed.published;
  state.issues.push(...parsed.issues);
  return null;
}

/** published.json claims name a metric and two variants of the scenario. */
function claimIssues(state: LoadState, published: PublishedData | null): ScenarioIssue[] {
  const { doc } = state;
  const issues: ScenarioIssue[] = [];
  (published?.file.claims ?? []).forEach((c, i) => {
    const path = `claims[${i}]`;
    const file = `${state.folder}/published.json`;
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
  return issues;
}

/** report.ratios[].published names a map of variant → number in published.json. */
function ratioIssues(state: LoadState, published: PublishedData | null): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  (state.doc.report.ratios ?? []).forEach((r, i) => {
    if (r.published === undefined) return;
    const figures = publishedFigures(published)[r.published];
    if (!figures)
      issues.push({
        file: state.yamlFile,
        path: `report.ratios[${i}].published`,
        message: `published.json has no map of variant → number named "${r.published}"`,
      });
  });
  return issues;
}

/** Checks the article's figures and conditions against the scenario. */
function publishedIssues(state: LoadState, published: PublishedData | null): ScenarioIssue[] {
  const { doc, folder, yamlFile } = state;
  const issues: ScenarioIssue[] = [];
  const conditions = publishedConditions(published?.file);
  if (conditions) issues.push(...checkConditions(conditions, doc, `${folder}/published.json`));
  if (doc.article_conditions)
    issues.push(...checkArticleConditions(doc.article_conditions, published?.file ?? null, yamlFile, doc.params));
  return [...issues, ...claimIssues(state, published), ...ratioIssues(state, published)];
}

/** Loads and validates `dir/scenario.yaml` and everything it references; throws ScenarioError. */
export async function loadScenario(dir: string): Promise<LoadedScenario> {
  const folder = path.basename(path.resolve(dir));
  const yamlFile = `${folder}/scenario.yaml`;
  const doc = await readScenarioDocument(dir, yamlFile);
  const state: LoadState = { dir, folder, yamlFile, doc, sqlFiles: new Map(), issues: [] };
  if (doc.key !== folder)
    state.issues.push({
      file: yamlFile,
      path: 'key',
      message: `expected the folder name "${folder}", found "${doc.key}"`,
    });
  for (const { steps, base } of stepsOf(doc)) await readSqlFiles(state, steps, base);
  const published = await readPublished(state);
  state.issues.push(...publishedIssues(state, published));
  if (!(await stat(path.join(dir, 'README.md')).catch(() => null))) {
    state.issues.push({
      file: `${folder}/README.md`,
      path: '(file)',
      message: 'missing: describe the question, the variants and what the article found',
    });
  }
  if (state.issues.length) throw new ScenarioError(state.issues);
  return { dir, key: doc.key, version: await hashScenarioFolder(dir), doc, sqlFiles: state.sqlFiles, published };
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
