/**
 * `tunelab` — the TuneLab runner agent (started by bin/tunelab.mjs, which calls `main`). Commands, options, environment variables and exit codes
 * are documented in apps/runner/README.md (and by `--help`).
 */
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { formatScenarioIssue, StorageKind } from '@tunelab/contracts';
import { readConfig, type RunnerConfig } from './config.ts';
import { runScenario } from './engine/run-scenario.ts';
import { DEFAULT_CV_THRESHOLD, DEFAULT_MAX_REPETITIONS, MIN_STARTING_REPETITIONS } from './engine/stopping.ts';
import { EngineError, Interrupted, RunFailed, TargetUnreachable, UsageError } from './errors.ts';
import { CliError, EXIT, type ExitCode } from './exit-codes.ts';
import { createProgress } from './progress.ts';
import { renderRunTable } from './report/table.ts';
import { makeRunFile, readRunFile, writeRunFile, type RunFile } from './run-file.ts';
import { listScenarioDirs, loadScenario, ScenarioError } from '@tunelab/scenarios';
import { submitRun, type SubmitOutcome } from './submit/client.ts';
import { flushSpool, listSpool, QUARANTINE_DIR, spoolRun } from './submit/spool.ts';
import { RUNNER_VERSION } from './version.ts';

const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    the run or command failed (every database the run created was dropped)
  2    usage error, invalid scenario folder or invalid run file
  3    the target database server is unreachable
  4    measured and saved, but not stored by the API: it waits in the spool, or the API refused it
  130  interrupted (SIGINT/SIGTERM); every database the run created was dropped

Environment:
  TUNELAB_API_URL, TUNELAB_TOKEN   defaults for --api and --token
  TUNELAB_SPOOL_DIR                runs waiting for the API (default ~/.tunelab/spool)
  TUNELAB_RUNS_DIR                 where run files go without --out (default ~/.tunelab/runs)
  TUNELAB_SCENARIOS_DIR            scenario folders (default: the repository's scenarios/)
  TUNELAB_SUBMIT_RETRIES           retries after the first submit attempt (default 3)`;

const collectParam = (value: string, previous: Record<string, string>) => {
  const eq = value.indexOf('=');
  if (eq < 1) throw new InvalidArgumentError(`expected name=value, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
};
const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
};
const positiveFraction = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('expected a positive number, a fraction (0.03 = 3%)');
  return n;
};

async function loadByKey(config: RunnerConfig, key: string) {
  const dirs = await listScenarioDirs(config.scenariosDir);
  const dir = dirs.find((d) => path.basename(d) === key);
  if (!dir)
    throw new CliError(
      `no scenario "${key}" in ${config.scenariosDir}; known: ${dirs.map((d) => path.basename(d)).join(', ') || '(none)'}`,
      EXIT.USAGE,
    );
  return loadScenario(dir);
}

/** Submits, and on a network failure keeps the run in the spool. Returns the exit code. */
async function deliver(
  run: RunFile,
  config: RunnerConfig,
  api: { url: string; token: string },
  log: (line: string) => void,
): Promise<{ code: number; outcome: SubmitOutcome; spooled?: string }> {
  const outcome = await submitRun(run, {
    apiUrl: api.url,
    token: api.token,
    retries: config.submitRetries,
    baseDelayMs: config.submitBaseDelayMs,
    onRetry: (r) => log(`submit: ${r.reason}; retry ${r.attempt} in ${(r.delayMs / 1000).toFixed(1)} s`),
  });
  if (outcome.status === 'stored') {
    log(`submit: ${outcome.replay ? 'already stored (idempotent replay)' : 'stored'} by ${api.url}`);
    return { code: EXIT.OK, outcome };
  }
  if (outcome.status === 'refused') {
    log(`submit: the API refused the run:\n${outcome.message}`);
    return { code: EXIT.NOT_STORED, outcome };
  }
  const spooled = await spoolRun(config.spoolDir, run);
  log(`submit: ${outcome.message}\nthe run waits in the spool (${spooled}); \`tunelab spool flush\` sends it`);
  return { code: EXIT.NOT_STORED, outcome, spooled };
}

function apiFrom(opts: { api?: string; token?: string }, config: RunnerConfig): { url: string; token: string } | null {
  const url = opts.api ?? config.apiUrl;
  const token = opts.token ?? config.token;
  if (!url && !token) return null;
  if (!url || !token)
    throw new CliError(
      'submitting needs both an API URL (--api / TUNELAB_API_URL) and a token (--token / TUNELAB_TOKEN)',
      EXIT.USAGE,
    );
  return { url, token };
}

type RunCommandOptions = {
  target?: string;
  repetitions?: number;
  param?: Record<string, string>;
  publishedScale?: boolean;
  untilStable?: boolean;
  maxRepetitions?: number;
  cvThreshold?: number;
  api?: string;
  token?: string;
  out?: string;
  json?: boolean;
  storage?: StorageKind;
  runId?: string;
  clusterBin?: string;
  clusterDir?: string;
};

/** What `tunelab run …` asks for: the scenario, its parameter overrides and the run options. */
export type RunRequest = {
  scenario: string;
  target?: string;
  /** `name=value` overrides as typed (a swept parameter may be a list `1,4`). */
  params: Record<string, string>;
  options: {
    repetitions?: number;
    scale: 'default' | 'published';
    untilStable?: { cvThreshold: number; maxRepetitions?: number };
  };
};

function defineRunCommand(program: Command): Command {
  return program
    .command('run')
    .description('run a scenario against a database server, print the results and submit them')
    .argument('<key>', 'scenario key')
    .option(
      '--target <url>',
      'database under test, e.g. postgres://postgres@127.0.0.1:5432/postgres (its protocol picks the driver; not for scenarios that declare a managed target)',
    )
    .option('--repetitions <n>', "repetitions of each variant (default: the scenario's)", positiveInt)
    .option(
      '--param <name=value>',
      'override a scenario parameter (repeatable); a swept parameter takes one value or a list: --param vus=1,4',
      collectParam,
    )
    .option('--published-scale', 'use the published parameter values and repetitions')
    .option(
      '--until-stable',
      `add interleaved rounds (A B A B …) while the timed metric of a compared variant has a coefficient of variation above --cv-threshold; starts from --repetitions (at least ${MIN_STARTING_REPETITIONS})`,
    )
    .option(
      '--max-repetitions <n>',
      `with --until-stable: stop after this many repetitions even if still unstable (default ${DEFAULT_MAX_REPETITIONS}, or the starting count if higher)`,
      positiveInt,
    )
    .option(
      '--cv-threshold <fraction>',
      `with --until-stable: largest acceptable CV, sd/mean (default ${DEFAULT_CV_THRESHOLD} = 3%, the Phoronix Test Suite rule)`,
      positiveFraction,
    )
    .option('--api <url>', 'TuneLab API to submit to (or TUNELAB_API_URL)')
    .option('--token <token>', 'runner token (or TUNELAB_TOKEN)')
    .option('--out <file>', 'where to write the run file (default: TUNELAB_RUNS_DIR/<run id>.json)')
    .option('--json', 'print the run file as JSON on stdout; progress as plain lines on stderr')
    .option(
      '--cluster-bin <dir>',
      'scenarios on a managed cluster: the PostgreSQL server binaries (default: pg_config --bindir, else the highest /usr/lib/postgresql/<major>/bin)',
    )
    .option(
      '--cluster-dir <dir>',
      'scenarios on a managed cluster: where its data directory goes, e.g. on the disk under test (default: the OS temp dir); removed at the end',
    )
    .addOption(
      new Option('--storage <kind>', "storage kind of the server's disk, when it cannot be probed").choices(
        StorageKind.options.filter((k) => k !== 'unknown'),
      ),
    )
    .addOption(new Option('--run-id <uuid>', 'use this run id (tests, resuming)').hideHelp());
}

function runRequestOf(key: string, opts: RunCommandOptions): RunRequest {
  if (!opts.untilStable && (opts.maxRepetitions !== undefined || opts.cvThreshold !== undefined)) {
    throw new CliError(
      `${opts.maxRepetitions !== undefined ? '--max-repetitions' : '--cv-threshold'} only applies with --until-stable`,
      EXIT.USAGE,
    );
  }
  return {
    scenario: key,
    ...(opts.target !== undefined ? { target: opts.target } : {}),
    params: opts.param ?? {},
    options: {
      ...(opts.repetitions !== undefined ? { repetitions: opts.repetitions } : {}),
      scale: opts.publishedScale ? 'published' : 'default',
      ...(opts.untilStable
        ? {
            untilStable: {
              cvThreshold: opts.cvThreshold ?? DEFAULT_CV_THRESHOLD,
              ...(opts.maxRepetitions !== undefined ? { maxRepetitions: opts.maxRepetitions } : {}),
            },
          }
        : {}),
    },
  };
}

/**
 * Parses `run <key> [options]` exactly as `tunelab` does, without running anything (e.g. to
 * check a command printed elsewhere). Throws CommanderError or CliError on what tunelab rejects.
 */
export function parseRunArgs(argv: readonly string[]): RunRequest {
  const program = new Command('tunelab').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let request: RunRequest | undefined;
  defineRunCommand(program)
    .exitOverride()
    .action((key: string, opts: RunCommandOptions) => {
      request = runRequestOf(key, opts);
    });
  program.parse([...argv], { from: 'user' });
  if (!request) throw new CliError('expected: run <key> [options]', EXIT.USAGE);
  return request;
}

export function buildCli(
  config: RunnerConfig,
  io: { out: (s: string) => void; err: (s: string) => void; isTTY: boolean; signalTarget?: NodeJS.EventEmitter },
): { program: Command; exitCode: () => number } {
  let exitCode: number = EXIT.OK;
  const program = new Command('tunelab')
    .description('TuneLab runner: run versioned database-tuning scenarios and submit the results')
    .version(RUNNER_VERSION)
    .addHelpText('after', EXIT_CODES_HELP)
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  program
    .command('scenarios')
    .description('list the scenarios with their versions')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows: { key: string; version: string; title: string; error?: string }[] = [];
      for (const dir of await listScenarioDirs(config.scenariosDir)) {
        try {
          const s = await loadScenario(dir);
          rows.push({ key: s.key, version: s.version, title: s.doc.title });
        } catch (e) {
          rows.push({ key: path.basename(dir), version: '(invalid)', title: '', error: (e as Error).message });
        }
      }
      if (opts.json) io.out(`${JSON.stringify(rows, null, 2)}\n`);
      else
        for (const r of rows)
          io.out(`${r.key.padEnd(28)} ${r.version.slice(0, 12).padEnd(12)}  ${r.title || r.error}\n`);
    });

  program
    .command('validate')
    .description('validate one scenario folder, or all of them')
    .argument('[key]', 'scenario key (folder name); all when omitted')
    .action(async (key?: string) => {
      const dirs = key ? [path.join(config.scenariosDir, key)] : await listScenarioDirs(config.scenariosDir);
      if (key && !(await listScenarioDirs(config.scenariosDir)).includes(dirs[0]!)) {
        throw new CliError(`no scenario "${key}" in ${config.scenariosDir}`, EXIT.USAGE);
      }
      let bad = 0;
      for (const dir of dirs) {
        try {
          const s = await loadScenario(dir);
          io.out(`ok       ${s.key} ${s.version}\n`);
        } catch (e) {
          if (!(e instanceof ScenarioError)) throw e;
          bad++;
          io.out(`invalid  ${path.basename(dir)}\n${e.issues.map((i) => `  ${formatScenarioIssue(i)}`).join('\n')}\n`);
        }
      }
      if (bad) exitCode = EXIT.USAGE;
    });

  defineRunCommand(program).action(async (key: string, opts: RunCommandOptions) => {
    const request = runRequestOf(key, opts);
    const api = apiFrom(opts, config);
    const scenario = await loadByKey(config, key);
    const progress = createProgress({ tty: io.isTTY && !opts.json });
    const controller = new AbortController();
    let signals = 0;
    const onSignal = (sig: string) => {
      signals++;
      io.err(`\n${sig}: stopping and dropping this run's databases…${signals > 1 ? ' (again: exiting now)' : ''}\n`);
      if (signals > 1) process.exit(EXIT.INTERRUPTED);
      controller.abort();
    };
    const target = io.signalTarget ?? process;
    const sigint = () => onSignal('SIGINT');
    const sigterm = () => onSignal('SIGTERM');
    target.on('SIGINT', sigint);
    target.on('SIGTERM', sigterm);
    let result;
    try {
      result = await runScenario({
        scenario,
        ...(request.target !== undefined ? { target: request.target } : {}),
        params: request.params,
        scale: request.options.scale,
        ...(request.options.repetitions ? { repetitions: request.options.repetitions } : {}),
        ...(request.options.untilStable ? { untilStable: request.options.untilStable } : {}),
        ...(opts.storage ? { storage: opts.storage } : {}),
        ...(opts.runId ? { runId: opts.runId } : {}),
        ...(opts.clusterBin !== undefined || opts.clusterDir !== undefined
          ? {
              managed: {
                ...(opts.clusterBin !== undefined ? { clusterBin: opts.clusterBin } : {}),
                ...(opts.clusterDir !== undefined ? { clusterDir: opts.clusterDir } : {}),
              },
            }
          : {}),
        signal: controller.signal,
        onEvent: progress.onEvent,
      });
    } finally {
      progress.stop();
      target.off('SIGINT', sigint);
      target.off('SIGTERM', sigterm);
    }
    // Nothing measured is lost: the run file exists before any network call.
    const run = makeRunFile(result.runId, result.idempotencyKey, result.submission);
    const file = opts.out ? path.resolve(config.cwd, opts.out) : path.join(config.runsDir, `${result.runId}.json`);
    await writeRunFile(file, run);
    if (opts.json) io.out(`${JSON.stringify(run, null, 2)}\n`);
    else io.out(`\n${renderRunTable(scenario.doc, result.submission)}\n\nrun ${result.runId} written to ${file}\n`);
    if (api) exitCode = (await deliver(run, config, api, (l) => io.err(`${l}\n`))).code;
  });

  program
    .command('submit')
    .description('submit a run file to the API (spooled if the API is unreachable)')
    .argument('<run.json>', 'run file written by `tunelab run`')
    .option('--api <url>', 'TuneLab API (or TUNELAB_API_URL)')
    .option('--token <token>', 'runner token (or TUNELAB_TOKEN)')
    .action(async (file: string, opts: { api?: string; token?: string }) => {
      const run = await readRunFile(path.resolve(config.cwd, file));
      const api = apiFrom(opts, config);
      if (!api) throw new CliError('submit needs --api/TUNELAB_API_URL and --token/TUNELAB_TOKEN', EXIT.USAGE);
      exitCode = (await deliver(run, config, api, (l) => io.err(`${l}\n`))).code;
    });

  const spool = program.command('spool').description('runs waiting for the API');
  spool
    .command('list')
    .description('list spooled runs')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { runs: items, corrupt } = await listSpool(config.spoolDir);
      // A file that is not a run is reported, never a reason to hide the good ones.
      for (const c of corrupt)
        io.err(
          `${c.file}: not a run file (${c.reason.split('\n')[0]}); \`tunelab spool flush\` moves it to ${QUARANTINE_DIR}/\n`,
        );
      if (opts.json) {
        io.out(
          `${JSON.stringify(
            items.map((i) => ({
              file: i.file,
              runId: i.run.runId,
              scenario: i.run.submission.scenario.key,
              startedAt: i.run.submission.startedAt,
            })),
            null,
            2,
          )}\n`,
        );
        return;
      }
      if (!items.length) io.out(`the spool (${config.spoolDir}) has no runs\n`);
      for (const i of items)
        io.out(
          `${i.run.runId}  ${i.run.submission.scenario.key.padEnd(28)} ${i.run.submission.startedAt}  ${i.file}\n`,
        );
    });
  spool
    .command('flush')
    .description('send every spooled run; stored runs leave the spool')
    .option('--api <url>', 'TuneLab API (or TUNELAB_API_URL)')
    .option('--token <token>', 'runner token (or TUNELAB_TOKEN)')
    .action(async (opts: { api?: string; token?: string }) => {
      const api = apiFrom(opts, config);
      if (!api) throw new CliError('spool flush needs --api/TUNELAB_API_URL and --token/TUNELAB_TOKEN', EXIT.USAGE);
      const { results, quarantined } = await flushSpool(config.spoolDir, {
        apiUrl: api.url,
        token: api.token,
        retries: config.submitRetries,
        baseDelayMs: config.submitBaseDelayMs,
      });
      for (const q of quarantined)
        io.err(`${q.file}: not a run file (${q.reason.split('\n')[0]}); moved to ${q.movedTo}\n`);
      for (const r of results) {
        const o = r.outcome;
        io.out(
          `${r.runId}  ${o.status === 'stored' ? (o.replay ? 'stored (replay)' : 'stored') : `${o.status}: ${o.message}`}\n`,
        );
      }
      if (!results.length) io.out('nothing to flush\n');
      if (quarantined.length > 0 || results.some((r) => r.outcome.status !== 'stored')) exitCode = EXIT.NOT_STORED;
    });

  return { program, exitCode: () => exitCode };
}

/** The only place where the engine's domain errors become exit codes. */
function exitCodeOf(e: EngineError): ExitCode {
  if (e instanceof UsageError) return EXIT.USAGE;
  if (e instanceof TargetUnreachable) return EXIT.TARGET_UNREACHABLE;
  if (e instanceof Interrupted) return EXIT.INTERRUPTED;
  if (e instanceof RunFailed) return EXIT.RUN_FAILED;
  return EXIT.RUN_FAILED;
}

/** Runs the CLI with argv; resolves to the process exit code. */
export async function main(argv: string[], env?: NodeJS.ProcessEnv): Promise<number> {
  const io = {
    out: (s: string) => void process.stdout.write(s),
    err: (s: string) => void process.stderr.write(s),
    isTTY: Boolean(process.stderr.isTTY),
  };
  let config: RunnerConfig;
  try {
    config = readConfig(env);
  } catch (e) {
    io.err(`tunelab: ${(e as Error).message}\n`);
    return EXIT.USAGE;
  }
  const { program, exitCode } = buildCli(config, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode();
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    if (e instanceof ScenarioError) {
      io.err(`tunelab: invalid scenario:\n${e.issues.map((i) => `  ${formatScenarioIssue(i)}`).join('\n')}\n`);
      return EXIT.USAGE;
    }
    if (e instanceof CliError) {
      io.err(`tunelab: ${e.message}\n`);
      return e.exitCode;
    }
    if (e instanceof EngineError) {
      io.err(`tunelab: ${e.message}\n`);
      return exitCodeOf(e);
    }
    io.err(`tunelab: run failed: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.RUN_FAILED;
  }
}
