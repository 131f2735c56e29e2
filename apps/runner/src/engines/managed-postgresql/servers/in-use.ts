/**
 * Whether a server build is in use, from the build itself rather than the ledger: a record can be
 * in another ledger directory, or be gone with a runner killed outright while its server kept
 * running. Every process of this machine whose executable lives under the build directory
 * (/proc/PID/exe; argv[0] of /proc/PID/cmdline where exe cannot be read, e.g. another user's
 * process for a runner that is not root) runs it: a postmaster and its backends.
 */
import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

export type BuildProcess = { pid: number; executable: string; dataDirectory: string | null };

const inside = (file: string, root: string) => file === root || file.startsWith(`${root}${path.sep}`);

/** The executable of `pid`, or null when it cannot be told. */
async function executableOf(pid: number): Promise<string | null> {
  const exe = await readlink(`/proc/${pid}/exe`).catch(() => null);
  if (exe) return exe.replace(/ \(deleted\)$/, '');
  const argv0 = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0')[0] ?? '';
  return path.isAbsolute(argv0) ? argv0 : null;
}

/** The data directory a postmaster was started on (`-D DIR` on its command line), when it says. */
async function dataDirectoryOf(pid: number): Promise<string | null> {
  const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  const i = argv.indexOf('-D');
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : null;
}

/**
 * The processes of this machine that run a binary under `buildDir`, postmasters first (a process
 * whose parent runs the same build is a backend). Empty where /proc cannot be read.
 */
export async function processesRunningBuild(buildDir: string): Promise<BuildProcess[]> {
  const roots = new Set([path.resolve(buildDir)]);
  roots.add(await realpath(buildDir).catch(() => path.resolve(buildDir)));
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n)).map(Number);
  const found = new Map<number, string>();
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const exe = await executableOf(pid);
    if (exe && [...roots].some((r) => inside(exe, r))) found.set(pid, exe);
  }
  const parentOf = async (pid: number) => {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  };
  const out: BuildProcess[] = [];
  for (const [pid, executable] of found) {
    if (found.has(await parentOf(pid))) continue; // a backend of a postmaster listed already
    out.push({ pid, executable, dataDirectory: await dataDirectoryOf(pid) });
  }
  return out.sort((a, b) => a.pid - b.pid);
}
