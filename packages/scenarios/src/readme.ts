import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** The Markdown of `<dir>/README.md` (question, method, what the article found); null when absent. */
export async function readScenarioReadme(dir: string): Promise<string | null> {
  return readFile(path.join(dir, 'README.md'), 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
}
