/**
 * Running the server binaries. initdb, pg_ctl and postgres refuse to run as root, so when the
 * runner is root they run as the `postgres` OS user through `runuser -u postgres --`.
 */
import { execFile, type ExecFileException } from 'node:child_process';

export const SERVER_OS_USER = 'postgres';

export const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** argv for a server binary, wrapped in runuser when we are root. */
export function asServerUser(file: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', SERVER_OS_USER, '--', file, ...args]] : [file, args];
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
