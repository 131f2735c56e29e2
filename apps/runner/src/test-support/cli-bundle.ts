/**
 * The `tunelab` CLI the tests start, built once per test run (vitest's globalSetup): one esbuild
 * bundle of bin/tunelab.mjs with everything it imports, so each CLI process loads one file instead
 * of tsx compiling and resolving hundreds of TypeScript modules (≈5× less CPU a start). The bin's
 * own code runs as is; only `tsx/esm/api`'s `register()` becomes a no-op (everything is compiled).
 * `import.meta.url` in a TypeScript source keeps the URL of that source, so files found relative
 * to it (scenarios/, the package.json of the version) are the same as under tsx.
 * `TUNELAB_TEST_CLI=tsx` starts the real bin through tsx instead.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

export const BIN = fileURLToPath(new URL('../../bin/tunelab.mjs', import.meta.url));

/** Left to node: optional native modules that are not installed, and a UMD build esbuild cannot follow. */
const EXTERNAL = ['jsonc-parser', 'pg-native'];

const plugin: Plugin = {
  name: 'tunelab-test-cli',
  setup(b) {
    b.onResolve({ filter: /^tsx\/esm\/api$/ }, () => ({ path: 'tsx-esm-api', namespace: 'stub' }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export function register() {}', loader: 'js' }));
    b.onResolve({ filter: /^[^./]/ }, (a) =>
      EXTERNAL.some((e) => a.path === e || a.path.startsWith(`${e}/`)) ? { external: true } : undefined,
    );
    b.onLoad({ filter: /\.ts$/ }, async (a) => ({
      contents: (await readFile(a.path, 'utf8')).replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(a.path).href),
      ),
      loader: 'ts',
    }));
  },
};

/** Bundles bin/tunelab.mjs into `outfile` (an .mjs file below apps/runner, so node_modules resolve). */
export async function buildCliBundle(outfile: string): Promise<void> {
  await build({
    entryPoints: [BIN],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node.split('.')[0]}`,
    logLevel: 'error',
    // CommonJS modules in the bundle `require` node's built-ins (and the optional modules above).
    banner: {
      js: "import { createRequire as __tunelabRequire } from 'node:module';\nconst require = __tunelabRequire(import.meta.url);",
    },
    plugins: [plugin],
  });
}
