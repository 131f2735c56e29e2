/**
 * The READMEs tell the truth about what exists:
 * - every step action and metric source a scenario may use (the `Step` and `MetricDef` unions of
 *   contracts, which the runner's registries are typed against) has a row in `scenarios/README.md`;
 * - every repository path a README names in backticks (`apps/…`, `src/…`) or links to exists.
 * A path is looked up from the README's folder, then from each folder above it up to the root, so a
 * workspace README may name `src/cli.ts`. Placeholders and globs (`scenarios/<key>/`, `*.sql`) and
 * git-ignored outputs (`test-output/`, `dist/`, …) are not checked.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MetricDef, Step } from '@tunelab/contracts';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Folder names .gitignore lists (`dist/`, `test-output/`, …): outputs, never checked in. */
const IGNORED = new Set(
  readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.endsWith('/') && !l.includes('*'))
    .map((l) => l.slice(0, -1)),
);

function readmes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return IGNORED.has(e.name) || e.name.startsWith('.') ? [] : readmes(join(dir, e.name));
    return e.name === 'README.md' ? [join(dir, e.name)] : [];
  });
}

/** The text outside fenced code blocks (commands there hold arguments, not paths to check). */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** Where a backticked span names a repository path. */
const PATH_START = /^(apps|packages|scenarios|scripts|tests|tooling|prisma|src|bench|test|bin)\//;
/** Placeholders (`<key>`, `{{param}}`, `…`), globs and anything with spaces or a scheme are not one path. */
const NOT_A_PATH = /[<>{}*…$\s:]|\.\.\./;

function namedPaths(markdown: string): string[] {
  const text = prose(markdown);
  const backticked = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!).filter((p) => PATH_START.test(p));
  const linked = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split('#')[0]!)
    .filter((p) => p !== '' && !/^[a-z]+:/i.test(p));
  return [...new Set([...backticked, ...linked])].filter((p) => !NOT_A_PATH.test(p.replace(/^\.\.?\//, '')));
}

/** Does `path` exist from `dir` or one of the folders above it, up to the repository root? */
function existsFrom(dir: string, path: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(resolve(d, path))) return true;
    if (relative(ROOT, d) === '' || d === dirname(d)) return false;
  }
}

/** The literal values of `key` across a schema's union members (a member may itself be a union). */
type SchemaNode = { options?: readonly SchemaNode[]; shape?: Record<string, unknown> };
function literalsOf(schema: SchemaNode, key: string): string[] {
  if (schema.options) return schema.options.flatMap((o) => literalsOf(o, key));
  const field = schema.shape?.[key];
  const values = field && typeof field === 'object' && 'values' in field ? field.values : undefined;
  return values instanceof Set ? [...values].map(String) : [];
}

describe('READMEs', () => {
  const scenariosReadme = readFileSync(join(ROOT, 'scenarios/README.md'), 'utf8');
  /** The first cells of the table rows in the section under `heading`. */
  function tableKeys(heading: string): string[] {
    const section = scenariosReadme.split(/^## /m).find((s) => s.startsWith(heading));
    expect(section, `scenarios/README.md has a "## ${heading}" section`).toBeDefined();
    return [...section!.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((m) => m[1]!);
  }

  it('scenarios/README.md documents every step action', () => {
    const actions = [...new Set(literalsOf(Step, 'action'))];
    expect(actions.length).toBeGreaterThan(5);
    const documented = tableKeys('Steps');
    expect(actions.filter((a) => !documented.includes(a))).toEqual([]);
  });

  it('scenarios/README.md documents every metric source', () => {
    const sources = literalsOf(MetricDef, 'source');
    expect(sources.length).toBeGreaterThan(3);
    const documented = tableKeys('Metric sources');
    expect(sources.filter((s) => !documented.includes(s))).toEqual([]);
  });

  const files = readmes(ROOT);
  it('finds the READMEs', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'scenarios/README.md', 'apps/runner/README.md']),
    );
  });

  it.each(files.map((f) => [relative(ROOT, f) || 'README.md', f] as const))(
    '%s names only paths that exist',
    (_name, file) => {
      const paths = namedPaths(readFileSync(file, 'utf8'));
      const missing = paths.filter(
        (p) => !p.split('/').some((seg) => IGNORED.has(seg)) && !existsFrom(dirname(file), p),
      );
      expect(missing).toEqual([]);
    },
  );
});
