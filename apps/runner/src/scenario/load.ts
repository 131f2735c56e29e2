import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import {
  findPlaceholders,
  formatScenarioIssue,
  PublishedReference,
  validateScenarioDocument,
  type ScenarioDocument,
  type ScenarioIssue,
  type Step,
} from '@tunelab/contracts';

/** The repository's `scenarios/` folder (apps/runner/src/scenario → ../../../../scenarios). */
export const DEFAULT_SCENARIOS_DIR = fileURLToPath(new URL('../../../../scenarios/', import.meta.url));

export type LoadedScenario = {
  dir: string;
  key: string;
  /** sha256 over the sorted relative paths and bytes of every file in the folder. */
  version: string;
  doc: ScenarioDocument;
  /** Contents of the `.sql` files referenced by steps, by file name. */
  sqlFiles: Map<string, string>;
  published: PublishedReference | null;
};

export class ScenarioError extends Error {
  constructor(readonly issues: ScenarioIssue[]) {
    super(issues.map(formatScenarioIssue).join('\n'));
    this.name = 'ScenarioError';
  }
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(path.join(dir, entry.name), rel)));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/**
 * Scenario version: sha256 of the canonical folder contents — for each file in byte order of its
 * relative path: the path, a NUL, the byte length, a NUL, the bytes. Any edit, rename, added or
 * removed file gives a new version; file-system metadata never does.
 */
export async function hashScenarioFolder(dir: string): Promise<string> {
  const files = (await listFiles(dir)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const hash = createHash('sha256');
  for (const rel of files) {
    const bytes = await readFile(path.join(dir, rel));
    hash.update(rel).update('\0').update(String(bytes.length)).update('\0').update(bytes);
  }
  return hash.digest('hex');
}

function stepsOf(doc: ScenarioDocument): { steps: readonly Step[]; base: string }[] {
  return [{ steps: doc.fixture, base: 'fixture' }, ...doc.variants.map((v, i) => ({ steps: v.steps, base: `variants[${i}].steps` }))];
}

/** Loads and validates `dir/scenario.yaml` and everything it references; throws ScenarioError. */
export async function loadScenario(dir: string): Promise<LoadedScenario> {
  const folder = path.basename(path.resolve(dir));
  const yamlFile = `${folder}/scenario.yaml`;
  let text: string;
  try {
    text = await readFile(path.join(dir, 'scenario.yaml'), 'utf8');
  } catch {
    throw new ScenarioError([{ file: yamlFile, path: '(file)', message: 'missing: every scenario folder needs a scenario.yaml' }]);
  }
  const yaml = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (yaml.errors.length) {
    throw new ScenarioError(
      yaml.errors.map((e) => ({ file: yamlFile, path: `line ${e.linePos?.[0]?.line ?? '?'}`, message: `invalid YAML: ${e.message.split('\n')[0]}` })),
    );
  }
  const result = validateScenarioDocument(yaml.toJS(), yamlFile);
  if (!result.ok) throw new ScenarioError(result.issues);
  const doc = result.scenario;
  const issues: ScenarioIssue[] = [];
  if (doc.key !== folder) issues.push({ file: yamlFile, path: 'key', message: `expected the folder name "${folder}", found "${doc.key}"` });

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
          issues.push({ file: yamlFile, path: `${base}[${j}].file`, message: `expected an existing file ${folder}/${s.file}` });
          continue;
        }
        sqlFiles.set(s.file, sql);
        for (const [n, line] of sql.split('\n').entries()) {
          for (const name of findPlaceholders(line)) {
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

  let published: PublishedReference | null = null;
  const publishedPath = path.join(dir, 'published.json');
  if (await stat(publishedPath).catch(() => null)) {
    try {
      const parsed = PublishedReference.safeParse(JSON.parse(await readFile(publishedPath, 'utf8')));
      if (parsed.success) published = parsed.data;
      else
        for (const i of parsed.error.issues)
          issues.push({ file: `${folder}/published.json`, path: i.path.join('.') || '(root)', message: i.message });
    } catch (e) {
      issues.push({ file: `${folder}/published.json`, path: '(file)', message: `invalid JSON: ${(e as Error).message}` });
    }
  }
  if (!(await stat(path.join(dir, 'README.md')).catch(() => null))) {
    issues.push({ file: `${folder}/README.md`, path: '(file)', message: 'missing: describe the question, the variants and what the article found' });
  }
  if (issues.length) throw new ScenarioError(issues);
  return { dir, key: doc.key, version: await hashScenarioFolder(dir), doc, sqlFiles, published };
}

/** Every folder with a scenario.yaml under root, sorted by key. */
export async function listScenarioDirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const dirs: string[] = [];
  for (const e of entries) {
    if (e.isDirectory() && (await stat(path.join(root, e.name, 'scenario.yaml')).catch(() => null))) dirs.push(path.join(root, e.name));
  }
  return dirs.sort();
}
