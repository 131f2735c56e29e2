/**
 * A TypeScript entry point (or a bin that loads one through tsx's `register()`, made a no-op
 * here) as a test starts it in its own `node` process: on one esbuild bundle
 * of the entry and the repository's sources it imports, built once per test process, instead of
 * `node --import tsx ENTRY`, which compiles and resolves hundreds of modules at every start (about
 * 2–3 s of CPU each; the runner's CLI bundle measured 3.06 s → 0.60 s). Packages from
 * node_modules are not bundled: each import of one is rewritten to the absolute path of the file
 * esbuild resolved (what node resolves for it), so they load as they do under tsx, wasm and data
 * files found next to them included. `import.meta.url` in a TypeScript source keeps the URL of
 * that source, so files found relative to it (migrations, scenarios, package.json) are the same.
 *
 * `TUNELAB_TEST_TSX=1` starts entries through tsx instead (to rule the bundle out).
 */
import { rmSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** Left to node when packages are bundled: optional native modules not installed, a UMD build esbuild cannot follow. */
const UNBUNDLABLE = ['jsonc-parser', 'pg-native'];

const plugin = (packages: 'bundle' | 'external'): Plugin => ({
  name: 'tunelab-ts-entry',
  setup(b) {
    // A bin that loads TypeScript through tsx (apps/runner/bin/tunelab.mjs): everything is compiled.
    b.onResolve({ filter: /^tsx\/esm\/api$/ }, () => ({ path: 'tsx-esm-api', namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export function register() {}', loader: 'js' }));
    b.onResolve({ filter: /^[^./]/ }, async (a) => {
      if (packages === 'bundle')
        return UNBUNDLABLE.some((e) => a.path === e || a.path.startsWith(`${e}/`)) ? { external: true } : undefined;
      // Bare imports of packages (not the repository's own workspaces): external, by resolved path.
      if (a.path.startsWith('@tunelab/') || a.pluginData === 'resolving' || a.path.startsWith('node:'))
        return undefined;
      const r = await b.resolve(a.path, {
        kind: a.kind,
        resolveDir: a.resolveDir,
        importer: a.importer,
        pluginData: 'resolving',
      });
      if (r.errors.length > 0 || !r.path) return undefined;
      // A node built-in (`fs`) comes back external under its own name.
      return { path: r.path, external: true };
    });
    b.onLoad({ filter: /\.ts$/ }, async (a) => ({
      contents: (await readFile(a.path, 'utf8')).replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(a.path).href),
      ),
      loader: 'ts',
    }));
  },
});

/**
 * Bundles `entry` into `outfile` (.mjs). `packages: 'external'` (the default) leaves packages from
 * node_modules to node, by resolved path; `'bundle'` bundles them too (one file to load: the
 * runner's CLI, started ~60 times a run; `outfile` must then sit below the entry's workspace so
 * that what is left to node resolves).
 */
export async function bundleEntry(
  entry: string,
  outfile: string,
  { packages = 'external' }: { packages?: 'bundle' | 'external' } = {},
): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    logLevel: 'error',
    // CommonJS in the bundle `require`s node's built-ins (and what is left to node).
    banner: {
      js: "import { createRequire as __tunelabRequire } from 'node:module';\nconst require = __tunelabRequire(import.meta.url);",
    },
    plugins: [plugin(packages)],
  });
}

let dir: Promise<string> | undefined;
const bundles = new Map<string, Promise<string>>();

/** Bundles `entry` into a temporary .mjs file (removed when this process exits); cached per entry. */
function bundleTsEntry(entry: string): Promise<string> {
  let out = bundles.get(entry);
  if (!out) {
    out = (async () => {
      dir ??= mkdtemp(path.join(os.tmpdir(), 'tunelab-ts-entry-')).then((d) => {
        process.once('exit', () => rmSync(d, { recursive: true, force: true }));
        return d;
      });
      const outfile = path.join(await dir, `${path.basename(entry, '.ts')}-${bundles.size}.mjs`);
      await bundleEntry(entry, outfile);
      return outfile;
    })();
    bundles.set(entry, out);
  }
  return out;
}

/** The arguments of `node` that start `entry` (then its own arguments): its bundle, or tsx. */
export async function nodeArgsFor(entry: string): Promise<string[]> {
  if (process.env.TUNELAB_TEST_TSX === '1') return ['--import', 'tsx', entry];
  return [await bundleTsEntry(entry)];
}
