/**
 * What the API benchmarks share: option parsing, the API as its own process, and CPU seconds of
 * a process and of the PostgreSQL backends serving one database (Linux /proc; 0 elsewhere).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { childEnv, loadBenchEnv } from './env.ts';

/**
 * A benchmark's command line and environment, each parsed once: its own `options` plus
 * `--database-url` (the server its throwaway database goes on; default `BENCH_ADMIN_DATABASE_URL`)
 * and `--help`, which prints `usage: <usage>` and exits 0. Strict: an unknown option is an error.
 */
export function parseBenchArgs<const O extends ParseArgsOptionsConfig>(usage: string, options: O) {
  const env = loadBenchEnv();
  const common = {
    'database-url': { type: 'string', default: env.BENCH_ADMIN_DATABASE_URL },
    help: { type: 'boolean', short: 'h', default: false },
  } as const;
  const { values: args } = parseArgs<{ options: O & typeof common; strict: true }>({
    options: { ...options, ...common },
    strict: true,
  });
  // The common options' values (the values of a generic options type cannot be indexed as such).
  const values = args as { help?: boolean; 'database-url'?: string };
  if (values.help) {
    console.log(`usage: ${usage}`);
    process.exit(0);
  }
  // A string here: strict parsing refused `--database-url` without a value.
  return { args, env, adminUrl: String(values['database-url']) };
}

/** The URL of database `name` on the server of `adminUrl` (same credentials and options). */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `--name`'s value as an integer ≥ min, or a sentence and exit 2. */
export function positiveInt(name: string, v: string, min = 1): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer ≥ ${min}, got ${v}`);
    process.exit(2);
  }
  return n;
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ on Linux). */
export const TICKS_PER_SECOND = 100;

/** utime + stime (stat fields 14 and 15) of a /proc/<pid>/stat line. */
const statTicks = (stat: string) => {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
};

/** CPU seconds (user + system) a process has used so far. */
export function processSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU ticks so far per local PostgreSQL backend connected to `database`. Shared server processes
 * (WAL writer, checkpointer) and other databases' backends are left out.
 */
export function postgresTicks(database: string): Map<number, number> {
  const out = new Map<number, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) continue;
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(database)) continue;
      out.set(Number(pid), statTicks(stat));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** `src/server.ts` as its own process with this environment plus `env`; resolves once it listens. */
export async function startApiProcess(
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<{ url: string; child: ChildProcess }> {
  const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', server], {
    env: childEnv({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`the API process exited with ${code} before listening:\n${out}`)));
  });
  return { url, child };
}

/** SIGTERM, then SIGKILL if the process has not exited `within` ms later. */
export function stopProcess(child: ChildProcess, within: number): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), within).unref();
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The progress line every benchmark prints (`@tunelab/env/bench`), here for the API's benchmarks. */
export { progressLines } from '@tunelab/env/bench';
