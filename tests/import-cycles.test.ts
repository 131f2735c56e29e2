/**
 * No import cycle anywhere: within each workspace, the relative imports of its source (type-only
 * ones too: a cycle of types is still two modules that cannot be read apart), walked with the
 * TypeScript compiler's parser; across workspaces, their `@tunelab/*` dependencies. Each cycle
 * found is named.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', 'generated', '.astro', '.turbo', 'test-output']);

/** Every workspace folder of the root package.json (`packages/*`, `apps/*`, …). */
function workspaces(): string[] {
  const patterns = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] })
    .workspaces;
  return patterns.flatMap((p) =>
    p.endsWith('/*')
      ? readdirSync(path.join(ROOT, p.slice(0, -2)), { withFileTypes: true })
          .filter((e) => e.isDirectory() && existsSync(path.join(ROOT, p.slice(0, -2), e.name, 'package.json')))
          .map((e) => path.join(ROOT, p.slice(0, -2), e.name))
      : [path.join(ROOT, p)],
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : sourceFiles(full);
    return /\.(ts|mts)$/.test(e.name) && !/\.test\.ts$|\.d\.ts$/.test(e.name) ? [full] : [];
  });
}

/** The relative modules `file` imports or re-exports, as absolute paths. */
function relativeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  source.forEachChild((node) => {
    const spec =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
        ? node.moduleSpecifier.text
        : null;
    if (spec?.startsWith('.')) found.push(path.resolve(path.dirname(file), spec));
  });
  return found;
}

/** Every elementary cycle's first sighting, by depth-first search. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('no import cycle in any workspace', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
  });

  it.each(workspaces().map((w) => [path.relative(ROOT, w), w]))('%s: its modules form no cycle', (_name, dir) => {
    const graph = new Map(sourceFiles(dir).map((f) => [f, relativeImports(f)]));
    const cycles = findCycles(graph).map((c) => c.map((f) => path.relative(ROOT, f)).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('the workspaces’ @tunelab/* dependencies form no cycle', () => {
    const graph = new Map(
      workspaces().map((dir) => {
        const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
          name: string;
          dependencies?: Record<string, string>;
          devDependencies?: Record<string, string>;
        };
        const deps = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((d) =>
          d.startsWith('@tunelab/'),
        );
        return [pkg.name, deps];
      }),
    );
    expect(graph.size).toBeGreaterThanOrEqual(10);
    expect(findCycles(graph).map((c) => c.join(' → '))).toEqual([]);
  });
});
