/**
 * What every command module gets, and the option parsers commands share. A command is one file
 * exporting a `CommandModule`, listed in COMMANDS (commands/index.ts): it parses its options,
 * calls the app (src/app/), prints, and sets the exit code.
 */
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { StorageKind } from '@tunelab/contracts';
import { listScenarioDirs, loadScenario } from '@tunelab/scenarios';
import type { RunnerConfig } from '../config.ts';
import { CliError, EXIT } from '../exit-codes.ts';

export type Io = {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
  /** Where SIGINT/SIGTERM come from (tests); default `process`. */
  signalTarget?: NodeJS.EventEmitter;
};

export type CommandContext = { config: RunnerConfig; io: Io; setExit: (code: number) => void };

/** Registers one command (with its subcommands) on the program. */
export type CommandModule = (program: Command, context: CommandContext) => void;

export const collectParam = (value: string, previous: Record<string, string>) => {
  const eq = value.indexOf('=');
  if (eq < 1) throw new InvalidArgumentError(`expected name=value, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
};
export const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
};
export const nonNegativeInt = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError('expected a whole number ≥ 0');
  return n;
};
/** `90s`, `10m`, `1h`, `1h30m` or plain seconds (`600`) → whole seconds. */
export const duration = (value: string) => {
  const text = value.trim();
  const plain = /^\d+$/.test(text) ? Number(text) : null;
  const parts = plain === null ? /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text) : null;
  const seconds =
    plain ??
    (parts && text !== '' ? Number(parts[1] ?? 0) * 3600 + Number(parts[2] ?? 0) * 60 + Number(parts[3] ?? 0) : NaN);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400)
    throw new InvalidArgumentError('expected a duration from 1s to 24h, e.g. 90s, 10m, 1h30m, or seconds');
  return seconds;
};
export const positiveFraction = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('expected a positive number, a fraction (0.03 = 3%)');
  return n;
};

/** `--storage <kind>`, for a disk that cannot be probed. */
export const storageOption = () =>
  new Option('--storage <kind>', "storage kind of the server's disk, when it cannot be probed").choices(
    StorageKind.options.filter((k) => k !== 'unknown'),
  );

/** The API to submit to, from the flags or the environment; null when neither is given. */
export function apiFrom(
  opts: { api?: string; token?: string },
  config: RunnerConfig,
): { url: string; token: string } | null {
  const url = opts.api ?? config.apiUrl;
  const token = opts.token ?? config.token;
  if (!url && !token) return null;
  if (!url || !token)
    throw new CliError(
      'submitting needs both an API URL (--api / TUNELAB_API_URL) and a token (--token / TUNELAB_TOKEN)',
      EXIT.USAGE,
    );
  return { url: checkedApiUrl(url, opts.api !== undefined ? '--api' : 'TUNELAB_API_URL'), token };
}

/** The API's URL as given, when it is an http(s) URL the runner can send to; a usage error naming where it came from otherwise. */
export function checkedApiUrl(url: string, from: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // said below
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new CliError(
      `${from} must be the API's http(s) URL, such as http://127.0.0.1:8080, got "${url.replace(/:[^:@/]*@/, ':***@')}"`,
      EXIT.USAGE,
    );
  return url;
}

/** The scenario folder named `key`, loaded; a usage error naming the known ones otherwise. */
export async function loadByKey(config: RunnerConfig, key: string) {
  const dirs = await listScenarioDirs(config.scenariosDir);
  const dir = dirs.find((d) => path.basename(d) === key);
  if (!dir)
    throw new CliError(
      `no scenario "${key}" in ${config.scenariosDir}; known: ${dirs.map((d) => path.basename(d)).join(', ') || '(none)'}`,
      EXIT.USAGE,
    );
  return loadScenario(dir);
}
