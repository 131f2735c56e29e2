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
 * scenario.yaml as its version reads it: without the top-level `advise:` member — its lines, the
 * comment lines right above it and one blank line before those. The block says which databases
 * `tunelab advise` names the scenario for, not what a run measures, so writing or editing it leaves
 * the runs already stored under the scenario's version as they are. Text without one is returned
 * as it is.
 */
export function scenarioYamlForVersion(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^advise\s*:/.test(l));
  if (start < 0) return text;
  let end = start;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^[ \t]+\S/.test(line) && !/^[ \t]+#/.test(line)) end = i;
    else if (line !== '' && !/^[ \t]/.test(line) && !line.startsWith('#')) break;
  }
  let from = start;
  while (from > 0 && lines[from - 1]!.startsWith('#')) from--;
  if (from > 0 && lines[from - 1]!.trim() === '') from--;
  return [...lines.slice(0, from), ...lines.slice(end + 1)].join('\n');
}

/**
 * Scenario version: sha256 of the canonical folder contents — for each file in byte order of its
 * relative path: the path, a NUL, the byte length, a NUL, the bytes (scenario.yaml's as
 * `scenarioYamlForVersion` gives them). Any other edit, rename, added or removed file gives a new
 * version; file-system metadata never does.
 */
export async function hashScenarioFolder(dir: string): Promise<string> {
  const files = (await listFiles(dir)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const hash = createHash('sha256');
  for (const rel of files) {
    const read = await readFile(path.join(dir, rel));
    const bytes = rel === 'scenario.yaml' ? Buffer.from(scenarioYamlForVersion(read.toString('utf8')), 'utf8') : read;
    hash.update(rel).update('\0').update(String(bytes.length)).update('\0').update(bytes);
  }
  return hash.digest('hex');
}
