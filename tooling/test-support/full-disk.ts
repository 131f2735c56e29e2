import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Mounting a tmpfs needs root (CI and this machine run as root); a test skips without it. */
export const canMountTmpfs = process.getuid?.() === 0;

/**
 * A full disk: a 256 kB tmpfs mounted at `at` (created), with the empty folders `dirs` on it, then
 * filled to the last byte (big chunks, then single bytes, until ENOSPC). `unmount()` removes it.
 */
export async function fullTmpfs(at: string, dirs: readonly string[]): Promise<{ unmount: () => Promise<unknown> }> {
  await mkdir(at, { recursive: true });
  await exec('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tunelab-full-disk', at]);
  for (const d of dirs) await mkdir(path.join(at, d));
  for (const size of [64 * 1024, 4096, 1]) {
    for (let i = 0; ; i++) {
      try {
        await writeFile(path.join(at, `filler-${size}-${i}`), Buffer.alloc(size));
      } catch {
        break;
      }
    }
  }
  return { unmount: () => exec('umount', [at]).catch(() => exec('umount', ['-l', at])) };
}
