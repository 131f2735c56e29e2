/** The process environment, for the tools that start other processes (the demo, the benchmarks). */

/** The environment a child process inherits (this process's own), plus `extra`, which wins. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
