/**
 * The one builder of a printed `tunelab run …` line: the answers (measure another scale), the site
 * (repeat a run) and `tunelab advise` (measure your table) all print commands from here, and the
 * runner's test parses what it builds with the runner's own argument parser (its inverse).
 */

/** What a printed `tunelab run` asks for. */
export type RunCommand = {
  scenario: string;
  /** `--param name=value`, in the order given (callers sort when they want a stable order). */
  params?: Readonly<Record<string, string | number | boolean>>;
  /**
   * A managed server (`--server MAJOR`, or `--server MAJOR.MINOR` for one release, e.g. "17.4",
   * with `--set` settings) or a target URL (`--target`).
   */
  server?: { server: number | string; settings?: Readonly<Record<string, string>> } | { target: string };
  /** A fixed design: exactly this many blocks. */
  repetitions?: number;
  /** The sequential design with this time budget (`--budget Ns`). */
  budgetSeconds?: number;
  /** The coefficient-of-variation rule of older runs (`--until-stable …`). */
  untilStable?: { maxRepetitions: number; cvThreshold: number; budgetSeconds?: number };
  publishedScale?: boolean;
  scaleSweep?: boolean;
};

/** A word as a POSIX shell reads it back unchanged: quoted unless it is plainly safe. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_.,:=/+@%-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The words that choose the server: `--server 15 --set name=value` (or `--server 17.4 …`), or `--target URL`. */
export function serverArgs(server: NonNullable<RunCommand['server']>): string {
  const words =
    'server' in server
      ? [
          '--server',
          String(server.server),
          ...Object.entries(server.settings ?? {}).flatMap(([name, value]) => ['--set', `${name}=${value}`]),
        ]
      : ['--target', server.target];
  return words.map(shellWord).join(' ');
}

/** `tunelab run KEY [--param …] [--server N [--set …] | --target URL] [design] [--published-scale] [--scale-sweep]`. */
export function runCommandLine(c: RunCommand): string {
  const params = Object.entries(c.params ?? {}).flatMap(([name, value]) => ['--param', `${name}=${String(value)}`]);
  const design: string[] = [];
  if (c.repetitions !== undefined) design.push('--repetitions', String(c.repetitions));
  if (c.budgetSeconds !== undefined) design.push('--budget', `${c.budgetSeconds}s`);
  if (c.untilStable) {
    design.push('--until-stable', '--max-repetitions', String(c.untilStable.maxRepetitions));
    design.push('--cv-threshold', String(c.untilStable.cvThreshold));
    if (c.untilStable.budgetSeconds !== undefined) design.push('--time-budget', String(c.untilStable.budgetSeconds));
  }
  if (c.publishedScale) design.push('--published-scale');
  if (c.scaleSweep) design.push('--scale-sweep');
  return [
    ...['tunelab', 'run', c.scenario, ...params].map(shellWord),
    ...(c.server ? [serverArgs(c.server)] : []),
    ...design.map(shellWord),
  ].join(' ');
}
