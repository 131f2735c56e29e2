/**
 * `tunelab` — the TuneLab runner agent (started by bin/tunelab.mjs, which calls `main`). Commands, options, environment variables and exit codes
 * are documented in apps/runner/README.md (and by `--help`).
 */
import path from 'node:path';
import cliProgress from 'cli-progress';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { formatScenarioIssue, StorageKind } from '@tunelab/contracts';
import { readConfig, type RunnerConfig } from './config.ts';
import { runScenario } from './engine/run-scenario.ts';
import { DEFAULT_CV_THRESHOLD, DEFAULT_MAX_REPETITIONS, MIN_STARTING_REPETITIONS } from './engine/stopping.ts';
import { EngineError, Interrupted, LeftBehind, RunFailed, TargetUnreachable, UsageError } from './errors.ts';
import { CliError, EXIT, type ExitCode } from './exit-codes.ts';
import { createProgress } from './progress.ts';
import { registerCleanupCommand, SWEEP_BEFORE_RUN_MS, sweepLeftovers } from './cleanup-command.ts';
import { createLedger } from './engine/leftovers.ts';
import { DEFAULT_CLEANUP_RETRY_S, DEFAULT_STALL_TIMEOUT_S } from './engine/stall.ts';
import { renderRunTable } from './report/table.ts';
import { makeRunFile, readRunFile } from './run-file.ts';
import { deliver, keepRunFile } from './app/deliver.ts';
import { listScenarioDirs, loadScenario, ScenarioError } from '@tunelab/scenarios';
import { checkToken } from './submit/client.ts';
import { flushSpool, listSpool, QUARANTINE_DIR } from './submit/spool.ts';
import { RUNNER_VERSION } from './version.ts';
import { postgresTargetFromEnvironment } from './drivers/postgres-environment.ts';
import { parseMajor, SUPPORTED_MAJORS } from './servers/registry.ts';
import { installServer, listServers, removeServer, type InstallProgress } from './servers/store.ts';

/** After the first Ctrl-C the process ends within this long, whatever state the run is in. */
const STOP_WATCHDOG_MS = 9_500;
import { addAgentCommand } from './agent/command.ts';
import { addAdviseCommand } from './advise/command.ts';

const EXIT_CODES_HELP = `
Exit codes:
  0    success
  1    the run or command failed; every database the run created was dropped
  2    usage error, invalid scenario folder or invalid run file
  3    the target database server is unreachable
  4    measured, but not stored by the API (it waits in the spool, the API refused it, or the spool
       could not take it) or, without an API, the run file could not go where asked; the message
       says where the run is
  5    the run stopped (failed or interrupted) and could not clean up, the server being away: the
       message names every database/schema and setting left and the command that removes them;
       \`tunelab cleanup --target URL\` or the next run against that server removes them
  6    the API refused this runner before anything was measured: its token is unknown or revoked,
       or the runner is older than the API's minimum (\`run --api\`, \`agent\`); nothing was created
  130  interrupted (SIGINT/SIGTERM); every database the run created was dropped; the process ends
       within 10 s of the first signal (a second one ends it at once)

Environment:
  TUNELAB_API_URL, TUNELAB_TOKEN   defaults for --api and --token
  TUNELAB_SPOOL_DIR                runs waiting for the API (default ~/.tunelab/spool)
  TUNELAB_RUNS_DIR                 where run files go without --out (default ~/.tunelab/runs)
  TUNELAB_SCENARIOS_DIR            scenario folders (default: the repository's scenarios/)
  TUNELAB_SUBMIT_RETRIES           retries after the first submit attempt (default 3)
  TUNELAB_STALL_TIMEOUT_S          drop a connection to the server under test that answers nothing
                                   for this long, outside the measured block (default ${DEFAULT_STALL_TIMEOUT_S}; 0 = never)
  TUNELAB_CLEANUP_RETRY_S          how long a run's clean-up retries on fresh connections (default ${DEFAULT_CLEANUP_RETRY_S})
  TUNELAB_LEDGER_DIR               records of this machine's runs and managed servers in flight (default
                                   ~/.tunelab/in-flight); \`tunelab cleanup\` removes what killed runs left
  TUNELAB_SERVERS_DIR              managed PostgreSQL servers (default /var/cache/tunelab/servers as root,
                                   else ~/.cache/tunelab/servers)
  TUNELAB_REGISTRY                 the npm registry servers are installed from (else npm_config_registry,
                                   else \`npm config get registry\`); not an http(s) URL: exit 2
  npm_config_cafile                as npm's cafile: the CA certificates that sign the registry's
                                   certificate, replacing Node's (else \`npm config get cafile\`); a file
                                   that cannot be read or holds no PEM certificate: exit 2; a registry
                                   certificate it does not sign: exit 1
  npm_config_https_proxy, npm_config_proxy, npm_config_noproxy, HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                                   (and lowercase https_proxy, http_proxy, no_proxy) the proxy for
                                   registry downloads, as npm chooses it (else \`npm config get
                                   https-proxy proxy noproxy\`); not an http(s) URL: exit 2; a proxy
                                   that does not answer: exit 1 (a password in its URL is never shown)`;

/** Download progress: a bar on a TTY, else a line at every quarter. */
function downloadProgress(io: { err: (s: string) => void; isTTY: boolean }): {
  onProgress: InstallProgress;
  stop(): void;
} {
  if (!io.isTTY) {
    let shown = 0;
    return {
      onProgress(received, total) {
        const quarter = total ? Math.floor((received / total) * 4) : 0;
        if (quarter > shown) {
          shown = quarter;
          io.err(`downloaded ${(received / 1e6).toFixed(1)} of ${((total ?? 0) / 1e6).toFixed(1)} MB\n`);
        }
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'download |{bar}| {percentage}% {mb} MB', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress(received, total) {
      if (!started) bar.start(total ?? received, 0, { mb: '0.0' });
      started = true;
      bar.setTotal(Math.max(total ?? received, received));
      bar.update(received, { mb: (received / 1e6).toFixed(1) });
    },
    stop: () => started && bar.stop(),
  };
}

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
const nonNegativeInt = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError('expected a whole number ≥ 0');
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

/**
 * Before measuring: a token the API refuses ends the command (exit 6, nothing measured); an API
 * that does not answer is only a warning, since the run will wait in the spool.
 */
async function checkApiBeforeRun(api: { url: string; token: string }, say: (line: string) => void): Promise<void> {
  const check = await checkToken(api.url, api.token);
  if (check.status === 'refused')
    throw new CliError(
      `the API at ${api.url} refused this runner's token before anything was measured: ${check.message}`,
      EXIT.API_REFUSED,
    );
  if (check.status === 'unchecked')
    say(
      `warning: could not check the token with the API at ${api.url} (${check.message}); measuring anyway: if the API is still away at the end, the run waits in the spool`,
    );
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
  stallTimeout?: number;
  clusterBin?: string;
  clusterDir?: string;
  server?: string;
  set?: Record<string, string>;
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
    /** `--server MAJOR`. */
    server?: number;
    /** `--set name=value` settings of a managed server. */
    serverSettings?: Record<string, string>;
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
      '--server <major>',
      `run on a throwaway PostgreSQL server of this major (${SUPPORTED_MAJORS.join(', ')}) that the runner manages: installed from the npm registry on first use (tunelab servers), removed at the end`,
    )
    .option(
      '--set <name=value>',
      'a setting of the server the runner manages (--server, or a scenario on a managed cluster), restart-only ones included (repeatable)',
      collectParam,
    )
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
    .option(
      '--stall-timeout <seconds>',
      `drop a connection that answers nothing for this long, outside the measured block (default TUNELAB_STALL_TIMEOUT_S or ${DEFAULT_STALL_TIMEOUT_S}; 0 = never)`,
      nonNegativeInt,
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
      ...(opts.server !== undefined ? { server: parseMajor(opts.server) } : {}),
      ...(opts.set ? { serverSettings: opts.set } : {}),
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
    if (api) await checkApiBeforeRun(api, (line) => io.err(`${line}\n`));
    // Neither --target nor --server: the server psql would connect to, when the environment names one.
    if (
      request.target === undefined &&
      request.options.server === undefined &&
      !scenario.doc.target &&
      scenario.doc.engines.includes('postgresql')
    ) {
      const fromEnv = postgresTargetFromEnvironment();
      if (fromEnv) {
        request.target = fromEnv.url;
        io.err(
          `no --target or --server: running on the server the libpq environment names (${fromEnv.from}): ${fromEnv.url}\n`,
        );
      }
    }
    const progress = createProgress({ tty: io.isTTY && !opts.json });
    const controller = new AbortController();
    let signals = 0;
    let watchdog: NodeJS.Timeout | undefined;
    const onSignal = (sig: string) => {
      signals++;
      io.err(`\n${sig}: stopping and dropping this run's databases…${signals > 1 ? ' (again: exiting now)' : ''}\n`);
      if (signals > 1) process.exit(EXIT.INTERRUPTED);
      // Whatever state the run is in, the process ends within 10 s of the first signal.
      watchdog = setTimeout(() => {
        io.err(
          `tunelab: stopping took longer than ${STOP_WATCHDOG_MS / 1000} s; this run's databases may be left on the server — the next \`tunelab run\` against it or \`tunelab cleanup --target URL\` removes them\n`,
        );
        process.exit(EXIT.LEFT_BEHIND);
      }, STOP_WATCHDOG_MS);
      watchdog.unref();
      controller.abort();
    };
    const target = io.signalTarget ?? process;
    const sigint = () => onSignal('SIGINT');
    const sigterm = () => onSignal('SIGTERM');
    target.on('SIGINT', sigint);
    target.on('SIGTERM', sigterm);
    // What earlier runs of this machine left on this server goes first (engine/leftovers.ts).
    if (request.target !== undefined && !scenario.doc.target) {
      await sweepLeftovers(config, request.target, (line) => io.err(`${line}\n`), SWEEP_BEFORE_RUN_MS).catch(
        () => {}, // a bad or unreachable target is the run's own error, said by runScenario
      );
    }
    const stallSeconds = opts.stallTimeout ?? config.stallTimeoutSeconds;
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
        ...(request.options.server !== undefined ? { server: request.options.server } : {}),
        managed: {
          serversDir: config.serversDir,
          ledgerDir: config.ledgerDir,
          ...(opts.clusterBin !== undefined ? { clusterBin: opts.clusterBin } : {}),
          ...(opts.clusterDir !== undefined ? { clusterDir: opts.clusterDir } : {}),
          ...(request.options.serverSettings ? { settings: request.options.serverSettings } : {}),
        },
        signal: controller.signal,
        onEvent: progress.onEvent,
        stallTimeoutMs: stallSeconds * 1000,
        cleanupRetryMs: config.cleanupRetrySeconds * 1000,
        ledger: createLedger(config.ledgerDir),
      });
    } finally {
      clearTimeout(watchdog);
      progress.stop();
      target.off('SIGINT', sigint);
      target.off('SIGTERM', sigterm);
    }
    // Nothing measured is lost: the run reaches stdout (--json) before anything can fail, and the
    // run file exists (where asked, else in the OS temp dir) before any network call.
    const run = makeRunFile(result.runId, result.idempotencyKey, result.submission);
    if (opts.json) io.out(`${JSON.stringify(run, null, 2)}\n`);
    else io.out(`\n${renderRunTable(scenario, result.submission)}\n\n`);
    const file = opts.out ? path.resolve(config.cwd, opts.out) : path.join(config.runsDir, `${result.runId}.json`);
    const saved = await keepRunFile(file, run, (line) => io.err(`tunelab: ${line}\n`));
    const notWhereAsked = saved.file === null || saved.fallbackReason !== undefined;
    if (saved.file === null) {
      io.err(
        `tunelab: ${opts.json ? 'it is the JSON printed on stdout' : 'here it is — save it and `tunelab submit` it later'}\n`,
      );
      if (!opts.json) io.out(`${JSON.stringify(run, null, 2)}\n`);
    } else if (saved.fallbackReason === undefined && !opts.json)
      io.out(`run ${result.runId} written to ${saved.file}\n`);
    if (api) exitCode = (await deliver(run, config, api, (l) => io.err(`${l}\n`), saved.file)).code;
    else if (notWhereAsked) exitCode = EXIT.NOT_STORED;
    if (result.leftBehind) {
      io.err(`tunelab: measured, but ${result.leftBehind}\n`);
      if (exitCode === EXIT.OK) exitCode = EXIT.LEFT_BEHIND;
    }
  });

  registerCleanupCommand(program, config, io, (code) => (exitCode = code));

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
      exitCode = (await deliver(run, config, api, (l) => io.err(`${l}\n`), path.resolve(config.cwd, file))).code;
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
          `${r.runId}  ${o.status === 'stored' ? (o.replay ? 'stored (replay)' : 'stored') : `${o.status}: ${o.message}`}${r.movedTo ? `; refused for good, moved to ${r.movedTo}` : ''}\n`,
        );
      }
      if (!results.length) io.out('nothing to flush\n');
      if (quarantined.length > 0 || results.some((r) => r.outcome.status !== 'stored')) exitCode = EXIT.NOT_STORED;
    });

  const servers = program
    .command('servers')
    .description(`PostgreSQL servers (majors ${SUPPORTED_MAJORS.join(', ')}) from the npm registry, for --server`);
  servers
    .command('install')
    .description('download the newest build of a major into TUNELAB_SERVERS_DIR and check it runs')
    .argument('<major>', `PostgreSQL major: ${SUPPORTED_MAJORS.join(', ')}`)
    .action(async (raw: string) => {
      const major = parseMajor(raw);
      // Ctrl-C: exit through process.exit so the install's exit hook removes its temp directory.
      const onSignal = () => {
        progress.stop();
        io.err('tunelab: interrupted: nothing was installed; the partial download was removed\n');
        process.exit(EXIT.INTERRUPTED);
      };
      const progress = downloadProgress(io);
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const started = performance.now();
      let server;
      try {
        server = await installServer(config.serversDir, major, {
          onProgress: progress.onProgress,
          say: (text) => io.err(`${text}\n`),
          ledgerDir: config.ledgerDir,
        });
      } finally {
        progress.stop();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      io.out(
        server.alreadyInstalled
          ? `PostgreSQL ${major} is installed and current: ${server.postgresVersion} (${server.packageName}@${server.version}) in ${server.binDir}\n`
          : `installed ${server.postgresVersion} (${server.packageName}@${server.version}) in ${seconds} s: ${server.binDir}\n`,
      );
    });
  servers
    .command('list')
    .description('the installed servers')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const rows = await listServers(config.serversDir);
      if (opts.json) {
        io.out(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (!rows.length)
        io.out(`no servers installed in ${config.serversDir}; \`tunelab servers install <major>\` adds one\n`);
      for (const r of rows)
        io.out(
          `${String(r.major).padEnd(4)} ${r.postgresVersion.padEnd(28)} ${`${r.packageName}@${r.version}`.padEnd(44)} ${r.binDir}\n`,
        );
    });
  servers
    .command('remove')
    .description('remove an installed server (refused, exit 1, while a managed server runs it)')
    .argument('<major>', `PostgreSQL major: ${SUPPORTED_MAJORS.join(', ')}`)
    .action(async (raw: string) => {
      const major = parseMajor(raw);
      if (!(await removeServer(config.serversDir, major, config.ledgerDir)))
        throw new CliError(`PostgreSQL ${major} is not installed in ${config.serversDir}`, EXIT.USAGE);
      io.out(`removed PostgreSQL ${major} from ${config.serversDir}\n`);
    });
  addAgentCommand(program, config, io, (code) => {
    exitCode = code;
  });
  addAdviseCommand(program, config, io, (code) => (exitCode = code));

  return { program, exitCode: () => exitCode };
}

/** The only place where the engine's domain errors become exit codes. */
function exitCodeOf(e: EngineError): ExitCode {
  if (e instanceof LeftBehind) return EXIT.LEFT_BEHIND;
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
    // A file-system error (a full disk, a read-only directory) is said in one sentence.
    if (typeof (e as NodeJS.ErrnoException | undefined)?.code === 'string' && (e as Error).message) {
      io.err(`tunelab: ${(e as Error).message}\n`);
      return EXIT.RUN_FAILED;
    }
    io.err(`tunelab: run failed: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.RUN_FAILED;
  }
}
