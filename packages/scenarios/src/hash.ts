import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Hex sha256 of text or bytes: the one hashing helper of the Node-side packages. */
export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

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
