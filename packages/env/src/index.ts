/**
 * The process environment, for every app, script and benchmark: `parseEnv(schema)` reads it once
 * with zod where a process starts; `childEnv` and `envWithoutTuneLab` are what a child process
 * inherits.
 */
import type { z } from 'zod';

/** The environment did not parse: `message` names every bad variable, one a line. */
export class EnvError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`invalid environment:\n${issues.map((i) => `  ${i.variable}: ${i.message}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

/**
 * Parses `env` with `schema`. One rule for empty strings everywhere: a variable set to '' is
 * unset (its default applies), as `VAR= command` is meant in a shell. Throws `EnvError`.
 */
export function parseEnv<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv = process.env): z.output<T> {
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const r = schema.safeParse(set);
  if (r.success) return r.data;
  throw new EnvError(
    r.error.issues.map((i) => ({ variable: i.path.join('.') || '(environment)', message: i.message })),
  );
}

/** The environment a child process inherits (this process's own), plus `extra`, which wins. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/**
 * This process's environment without DATABASE_URL and every TUNELAB_ variable, plus `extra`: for a
 * child that must be told its results database, API and settings, not pick up the caller's.
 */
export function envWithoutTuneLab(
  extra: Record<string, string> = {},
  env: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(env).filter(([k]) => !/^(DATABASE_URL|TUNELAB_)/.test(k))),
    ...extra,
  };
}
