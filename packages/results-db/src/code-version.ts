/**
 * The versions a kept answer is stamped with, each a hash of sources (their `src` as git holds it:
 * tests and the generated Prisma client left out), read once per process:
 * - the code that computes answers (@tunelab/answers, stats, contracts and results-db): a kept
 *   answer stamped with another (computed before an upgrade changed a rule) is stale, as one
 *   computed from other runs is, and is recomputed instead of being served as current;
 * - the shape of the answers (contracts, whose schemas the responses follow): one stamped with
 *   another is never sent, not even as a stale answer.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES = ['answers', 'stats', 'contracts', 'results-db'];
const SOURCE = /\.(ts|mjs)$/;
const NOT_SOURCE = /\.test\.ts$/;

/** Generated at install (the Prisma client, from the schema): not the answers' code, and not in git. */
const SKIP_DIRS = new Set(['generated', 'node_modules']);

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : sourcesUnder(path);
    return SOURCE.test(e.name) && !NOT_SOURCE.test(e.name) ? [path] : [];
  });
}

const versions = new Map<string, string>();

/**
 * 16 hex digits of the hash of `packages`' sources, or `bundled` where the sources are not beside
 * this module (a bundle: the site's build, which computes its answers itself and keeps none).
 */
function versionOf(packages: readonly string[]): string {
  const key = packages.join(',');
  const known = versions.get(key);
  if (known !== undefined) return known;
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dirs = packages.map((p) => join(root, p, 'src'));
  let version = 'bundled';
  if (dirs.every((d) => existsSync(d))) {
    const hash = createHash('sha256');
    for (const file of dirs.flatMap(sourcesUnder).sort()) {
      hash.update(`${relative(root, file)}\u0000`);
      hash.update(readFileSync(file));
      hash.update('\u0000');
    }
    version = hash.digest('hex').slice(0, 16);
  }
  versions.set(key, version);
  return version;
}

/** The version of the code that computes answers (answers, stats, contracts, results-db). */
export const answersCodeVersion = () => versionOf(PACKAGES);

/**
 * The version of the answers' shape: a hash of @tunelab/contracts' sources, whose schemas the API's
 * responses follow. A kept body of another shape is never sent, not even as a stale answer.
 */
export const answersShapeVersion = () => versionOf(['contracts']);
