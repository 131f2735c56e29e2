/**
 * No import cycle in the runner (issue 27): walks every relative import of `src/` (type-only ones
 * too, since a cycle of types is still two modules that cannot be read apart) with the TypeScript
 * compiler's parser and fails naming each cycle it finds.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
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

/** Every elementary cycle's first sighting, as a list of paths relative to `src/`, by depth-first search. */
export function findCycles(graph: Map<string, string[]>): string[][] {
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

describe('the runner has no import cycle', () => {
  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
  });

  it('src/ imports form no cycle', () => {
    const graph = new Map(sourceFiles(SRC).map((f) => [f, relativeImports(f)]));
    expect(graph.size).toBeGreaterThan(50);
    const cycles = findCycles(graph).map((c) => c.map((f) => path.relative(SRC, f)).join(' → '));
    expect(cycles).toEqual([]);
  });
});
