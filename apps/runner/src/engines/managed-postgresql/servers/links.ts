/**
 * The shared-library links a server build needs (libpq.so.5 → libpq.so.5.17, …), created by the
 * runner itself from the package's `native/pg-symlinks.json`: the package's own postinstall script
 * (`scripts/hydrate-symlinks.js`) is never run, since a registry could send any code there.
 *
 * The file is a JSON array of `{source, target}` paths relative to the package root; the link is
 * created at `target` and points at `source`, its content a path relative to the link's own
 * directory. Every entry is checked before any link is made: no NUL, not absolute, both inside the
 * package (also after resolving the links among their parent directories), a source that is a
 * regular file (never a link), a target that does not exist yet. Any failed check, or a file that
 * is not such an array, refuses the whole build with one sentence. No file: no links.
 */
import { lstat, readFile, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { RunFailed } from '../../../errors.ts';

export const LINKS_FILE = 'native/pg-symlinks.json';

const LinkList = z.array(z.object({ source: z.string(), target: z.string() }));

type Link = { source: string; target: string };

const inside = (root: string, p: string) => {
  const rel = path.relative(root, p);
  return rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel);
};

/** The absolute path of `rel` in the package (its parent directory resolved), or why it cannot be. */
async function placeOf(root: string, rel: string, role: string): Promise<{ why: string } | { abs: string }> {
  if (rel.includes('\0')) return { why: `has a ${role} that holds a NUL` };
  if (path.isAbsolute(rel)) return { why: `has a ${role} that is absolute` };
  const abs = path.resolve(root, rel);
  if (!inside(root, abs)) return { why: `has a ${role} that resolves outside the package` };
  const parent = await realpath(path.dirname(abs)).catch(() => null);
  if (parent === null) return { why: `has a ${role} in a directory the package lacks` };
  if (parent !== root && !inside(root, parent))
    return { why: `has a ${role} that resolves outside the package through a link` };
  return { abs: path.join(parent, path.basename(abs)) };
}

/** Why `link` cannot be made, or where its link goes and what it says. */
async function check(
  root: string,
  link: Link,
  taken: Set<string>,
): Promise<{ why: string } | { at: string; content: string }> {
  const source = await placeOf(root, link.source, 'source');
  if ('why' in source) return source;
  const at = await placeOf(root, link.target, 'target');
  if ('why' in at) return at;
  const sourceStat = await lstat(source.abs).catch(() => null);
  if (!sourceStat?.isFile()) return { why: 'has a source that is not a regular file in the package' };
  if (taken.has(at.abs) || (await lstat(at.abs).catch(() => null)) !== null)
    return { why: 'has a target that already exists' };
  taken.add(at.abs);
  return { at: at.abs, content: path.relative(path.dirname(at.abs), source.abs) };
}

/** Creates the package's links (see the header) in the unpacked package at `dir`; resolves to how many. */
export async function createPackageLinks(dir: string, what: string): Promise<number> {
  const root = await realpath(dir);
  let text: string;
  try {
    text = await readFile(path.join(root, LINKS_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new RunFailed(`${what}: cannot read its ${LINKS_FILE} (${(e as Error).message}); nothing was installed`);
  }
  let links: Link[];
  try {
    links = LinkList.parse(JSON.parse(text));
  } catch {
    throw new RunFailed(
      `${what}: its ${LINKS_FILE} is not a JSON array of {source, target} paths, so its library links cannot be made; nothing was installed`,
    );
  }
  const taken = new Set<string>();
  const planned: { at: string; content: string }[] = [];
  for (const link of links) {
    const verdict = await check(root, link, taken);
    if ('why' in verdict)
      throw new RunFailed(
        `${what}: the link ${JSON.stringify(link.target).slice(0, 120)} → ${JSON.stringify(link.source).slice(0, 120)} in its ${LINKS_FILE} ${verdict.why}; nothing was installed`,
      );
    planned.push(verdict);
  }
  for (const { at, content } of planned) await symlink(content, at);
  return planned.length;
}
