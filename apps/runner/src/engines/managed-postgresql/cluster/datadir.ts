/**
 * What the data directory holds and where it lives: file and byte counts (what the startup sync
 * walks), the file system type and the kernel (syncfs behaviour depends on both), and dropping the
 * page cache before a start when the runner may.
 */
import { lstat, readdir, writeFile } from 'node:fs/promises';
import { release } from 'node:os';
import path from 'node:path';
import { run } from './process.ts';
import { isRoot } from './process.ts';

export type DataDirCensus = { files: number; bytes: number; directories: number };

/** Counts regular files and their apparent bytes under `dir` (symlinks are not followed). */
export async function censusDataDir(dir: string): Promise<DataDirCensus> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile());
  const directories = entries.filter((e) => e.isDirectory()).length;
  let bytes = 0;
  const CHUNK = 512;
  for (let i = 0; i < files.length; i += CHUNK) {
    const sizes = await Promise.all(
      files.slice(i, i + CHUNK).map((e) =>
        lstat(path.join(e.parentPath, e.name)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    for (const s of sizes) bytes += s;
  }
  return { files: files.length, bytes, directories };
}

/** File system type and device of the file system holding `dir` (findmnt, else stat -f). */
export async function fileSystemOf(dir: string): Promise<{ type: string; source: string | null }> {
  const found = await run('findmnt', ['-n', '-o', 'FSTYPE,SOURCE', '-T', dir], { timeoutMs: 5_000 }).then(
    (r) => r.stdout.trim(),
    () => '',
  );
  if (found) {
    const [type = 'unknown', source = null] = found.split(/\s+/);
    return { type, source };
  }
  const viaStat = await run('stat', ['-f', '-c', '%T', dir], { timeoutMs: 5_000 }).then(
    (r) => r.stdout.trim(),
    () => '',
  );
  return { type: viaStat || 'unknown', source: null };
}

export const kernelRelease = (): string => `${process.platform} ${release()}`;

export type DropCachesOutcome = { dropped: true } | { dropped: false; reason: string };

/**
 * Flushes the file system of `dir` (`sync -f`) and drops the page cache, dentries and inodes
 * (`echo 3 > /proc/sys/vm/drop_caches`), so the next start reads metadata from disk. Needs root
 * (and CAP_SYS_ADMIN in a container); when not permitted, says why instead of failing.
 */
export async function dropPageCache(dir: string, procFile = '/proc/sys/vm/drop_caches'): Promise<DropCachesOutcome> {
  if (process.platform !== 'linux') return { dropped: false, reason: `not Linux (${process.platform})` };
  if (!isRoot()) return { dropped: false, reason: 'dropping the page cache needs root' };
  await run('sync', ['-f', dir], { timeoutMs: 600_000 }).catch(() => run('sync', [], { timeoutMs: 600_000 }));
  try {
    await writeFile(procFile, '3\n');
    return { dropped: true };
  } catch (e) {
    return {
      dropped: false,
      reason: `cannot write ${procFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    };
  }
}
