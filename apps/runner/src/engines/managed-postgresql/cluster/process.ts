/**
 * Running the server binaries. initdb, pg_ctl and postgres refuse to run as root, so when the
 * runner is root they run as an unprivileged OS user through `runuser -u <user> --`: `postgres`
 * where it exists, else `tunelab`, which the runner creates (a system user without a home or a
 * login shell) and says so. `ensureServerOsUser()` decides once per process.
 */
import { execFile, type ExecFileException } from 'node:child_process';

/** The OS user a root runner's server runs as when `postgres` does not exist; created on first use. */
export const CREATED_OS_USER = 'tunelab';
let serverUser = 'postgres';
let ensured: Promise<string> | null = null;

/** The OS user the server binaries run as (when the runner is root). */
export const serverOsUser = (): string => serverUser;

export const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * As root: `postgres` when that OS user exists, else `tunelab`, created here (`useradd --system`)
 * with a message through `say`. Not root: nothing to do.
 */
export function ensureServerOsUser(say: (text: string) => void = () => {}): Promise<string> {
  ensured ??= (async () => {
    if (!isRoot()) return serverUser;
    const exists = (name: string) =>
      run('id', ['-u', name], { timeoutMs: 5_000 }).then(
        () => true,
        () => false,
      );
    if (await exists('postgres')) return (serverUser = 'postgres');
    if (!(await exists(CREATED_OS_USER))) {
      const created = await run(
        'useradd',
        [
          '--system',
          '--user-group',
          '--no-create-home',
          '--home-dir',
          '/nonexistent',
          '--shell',
          '/usr/sbin/nologin',
          CREATED_OS_USER,
        ],
        { timeoutMs: 30_000 },
      ).then(
        () => true,
        async (e: unknown) => {
          // Another runner process (two installs or runs at once) created it meanwhile.
          if (await exists(CREATED_OS_USER)) return false;
          ensured = null;
          throw new Error(
            `running as root, PostgreSQL must run as an unprivileged OS user; there is no "postgres" user and creating "${CREATED_OS_USER}" failed: ${(e as Error).message}`,
          );
        },
      );
      if (created)
        say(
          `created the OS user "${CREATED_OS_USER}" to run PostgreSQL servers (initdb and postgres refuse to run as root)`,
        );
    }
    return (serverUser = CREATED_OS_USER);
  })();
  return ensured;
}

/** argv for a server binary, wrapped in runuser when we are root. */
export function asServerUser(file: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', serverUser, '--', file, ...args]] : [file, args];
}

export type RunResult = { stdout: string; stderr: string };

/** Runs a command with a timeout; rejects with an Error whose message carries stderr. */
export function run(
  file: string,
  args: string[],
  opts: { timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: opts.timeoutMs, cwd: opts.cwd, env: opts.env, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGTERM' },
      (error: ExecFileException | null, stdout, stderr) => {
        if (!error) return resolve({ stdout, stderr });
        const what = `${file} ${args.join(' ')}`;
        const why = error.killed
          ? `timed out after ${opts.timeoutMs} ms`
          : error.code === 'ENOENT'
            ? 'not found'
            : `exit code ${String(error.code)}`;
        const detail = (stderr || stdout || error.message).trim().split('\n').slice(-6).join('\n');
        reject(new Error(`${what}: ${why}${detail ? `\n${detail}` : ''}`));
      },
    );
  });
}

/** Runs a server binary (as the postgres OS user when root). */
export function runServerBinary(
  file: string,
  args: string[],
  opts: { timeoutMs: number; cwd?: string },
): Promise<RunResult> {
  const [f, a] = asServerUser(file, args);
  return run(f, a, opts);
}
