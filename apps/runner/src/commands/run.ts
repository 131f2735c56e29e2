/**
 * `tunelab run <key>`: parses the options, runs the scenario and delivers its run through the one
 * path `tunelab agent` also takes (app/run-and-deliver.ts), prints the table (or the run as JSON)
 * and sets the exit code. Ctrl-C drops the run's databases; the process ends within 10 s.
 */
import os from 'node:os';
import path from 'node:path';
import { Command, Option } from 'commander';
import {
  ENGINE_FACTS,
  SUPPORTED_POSTGRESQL_MAJORS as SUPPORTED_MAJORS,
  type RunNote,
  type StorageKind,
  type StorageTier,
} from '@tunelab/contracts';
import type { LoadedScenario } from '@tunelab/scenarios';
import { checkToken } from '../app/api-client.ts';
import {
  checkRootForEnvelope,
  chooseLikeArticle,
  hostFacts,
  likeArticleClashes,
  measureTierHere,
  planLikeArticle,
  tierCheck,
  type LikeArticleRequest,
} from '../app/like-article.ts';
import { runAndDeliver } from '../app/run-and-deliver.ts';
import { scaleSweepRuns } from '../app/scale-sweep.ts';
import { SWEEP_BEFORE_RUN_MS, sweepLeftovers } from '../app/sweep.ts';
import type { RunnerConfig } from '../config.ts';
import { createLedger } from '../engine/leftovers.ts';
import { DEFAULT_STALL_TIMEOUT_S } from '../engine/stall.ts';
import { DEFAULT_CV_THRESHOLD, DEFAULT_MAX_REPETITIONS, MIN_STARTING_REPETITIONS } from '../engine/stopping.ts';
import type { RunOptions } from '../engine/types.ts';
import { parseServer } from '../engines/managed-postgresql/servers/registry.ts';
import { DRIVERS } from '../engines/index.ts';
import {
  describeEnvelope,
  ENVELOPE_HELP,
  EnvelopeSyntaxError,
  parseEnvelope,
  type Envelope,
} from '../probe/envelope.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { renderRunTable } from '../report/table.ts';
import {
  apiFrom,
  collectParam,
  loadByKey,
  duration,
  nonNegativeInt,
  positiveFraction,
  positiveInt,
  storageOption,
  type CommandContext,
  type Io,
} from './context.ts';
import { createProgress } from './progress.ts';

/** After the first Ctrl-C the process ends within this long, whatever state the run is in. */
const STOP_WATCHDOG_MS = 9_500;

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

type RunCommandOptions = {
  target?: string;
  repetitions?: number;
  param?: Record<string, string>;
  publishedScale?: boolean;
  untilStable?: boolean;
  maxRepetitions?: number;
  cvThreshold?: number;
  timeBudget?: number;
  budget?: number;
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
  scaleSweep?: boolean;
  envelope?: string;
  likeArticle?: boolean;
  likeArticleSize?: string;
  likeArticleMachine?: string;
  throttleTarget?: boolean;
};

/** What `tunelab run …` asks for: the scenario, its parameter overrides and the run options. */
export type RunRequest = {
  scenario: string;
  target?: string;
  /** `name=value` overrides as typed (a swept parameter may be a list `1,4`). */
  params: Record<string, string>;
  /** `--scale-sweep`: one run per point of the scenario's scale. */
  scaleSweep?: true;
  options: {
    repetitions?: number;
    scale: 'default' | 'published';
    untilStable?: { cvThreshold: number; maxRepetitions?: number; budgetSeconds?: number };
    /** `--budget`: the sequential design's time budget, seconds. */
    budgetSeconds?: number;
    /** `--server MAJOR` (or the major of `--server MAJOR.MINOR`). */
    server?: number;
    /** `--server MAJOR.MINOR`: that release, e.g. "17.4". */
    serverRelease?: string;
    /** `--set name=value` settings of a managed server. */
    serverSettings?: Record<string, string>;
    /** `--envelope`: the managed server runs inside a cgroup with these limits. */
    envelope?: Envelope;
    /** `--like-article`: the scale, envelope and settings are chosen from the article's conditions. */
    likeArticle?: LikeArticleRequest;
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
    .option(
      '--repetitions <n>',
      "blocks to run, exactly (a block runs every variant once, in a random order); default: the scenario's sequential design — blocks are added until every declared pair is decided (differs, or equivalent within the scenario's margin) or its time budget is spent, and the progress says which",
      positiveInt,
    )
    .option(
      '--budget <duration>',
      "the sequential design's time budget for measuring, e.g. 90s, 10m, 1h (default: the scenario's decision.budget_seconds); not with --repetitions or --until-stable",
      duration,
    )
    .option(
      '--param <name=value>',
      'override a scenario parameter (repeatable); a swept parameter takes one value or a list: --param vus=1,4',
      collectParam,
    )
    .option('--published-scale', 'use the published parameter values and repetitions')
    .option(
      '--scale-sweep',
      'measure the scenario at every point of its scale (scenario.yaml scale): one run per point, each building its own fixture, or one run when the scale parameter is the swept one; each run is written and submitted on its own (not with --out, --json or --run-id)',
    )
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
    .option(
      '--time-budget <seconds>',
      'with --until-stable: add no round that would take the measuring past this many seconds (judged by the last round)',
      positiveInt,
    )
    .option('--api <url>', 'TuneLab API to submit to (or TUNELAB_API_URL)')
    .option('--token <token>', 'runner token (or TUNELAB_TOKEN)')
    .option('--out <file>', 'where to write the run file (default: TUNELAB_RUNS_DIR/<run id>.json)')
    .option('--json', 'print the run file as JSON on stdout; progress as plain lines on stderr')
    .option(
      '--server <major|release>',
      `run on a throwaway PostgreSQL server that the runner manages: a major (${SUPPORTED_MAJORS.join(', ')}) for its newest build, or one release of it (e.g. 17.4; tunelab servers list --available lists them); installed from the npm registry on first use (tunelab servers), removed at the end`,
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
    .option(
      '--envelope <limits>',
      `run the server the runner manages (--server, or a scenario on a managed cluster) inside a cgroup with these limits, to reproduce an article's conditions on this machine (a local MySQL/MariaDB --target: I/O limits only, moved in for the run): ${ENVELOPE_HELP}; needs root and cgroups (exit 7 where it cannot); the run's class says "emulated"`,
    )
    .option(
      '--like-article',
      "reproduce the article's conditions (scenario.yaml article_conditions: data:memory, size settings and parameters:data, disk tier) at a size this machine runs in minutes: picks the scale parameter, a memory limit, an I/O limit when the article's disk was slower than this one (measured first), the size settings and parameters, and the article's other settings, prints them in one line and runs with them as --param, --envelope and --set would; needs root (exit 7 otherwise) and a server the runner manages — or, where the conditions need no memory limit (innodb-compression-insert), a local MySQL/MariaDB --target, moved into I/O limits for the run; not with --envelope, --published-scale, --scale-sweep or a --param/--set of what it picks",
    )
    .option(
      '--throttle-target',
      "accept that --envelope or --like-article throttles the --target server's own process for the whole run: every client of that MySQL/MariaDB server, not only this run, gets the envelope's I/O limits until the run ends",
    )
    .option(
      '--like-article-size <size>',
      "with --like-article: the data size, e.g. 128MB or 1GB (binary units; default: the scenario's article_conditions.default_size)",
    )
    .option(
      '--like-article-machine <id>',
      "with --like-article: which of the article's machines (a published.json hardware id the scenario lists; default: the first)",
    )
    .addOption(storageOption())
    .option(
      '--stall-timeout <seconds>',
      `drop a connection that answers nothing for this long, outside the measured block (default TUNELAB_STALL_TIMEOUT_S or ${DEFAULT_STALL_TIMEOUT_S}; 0 = never)`,
      nonNegativeInt,
    )
    .addOption(new Option('--run-id <uuid>', 'use this run id (tests, resuming)').hideHelp());
}

function runRequestOf(key: string, opts: RunCommandOptions): RunRequest {
  const stableOnly = [
    opts.maxRepetitions !== undefined && '--max-repetitions',
    opts.cvThreshold !== undefined && '--cv-threshold',
    opts.timeBudget !== undefined && '--time-budget',
  ].filter(Boolean);
  if (!opts.untilStable && stableOnly.length > 0)
    throw new CliError(`${stableOnly[0]} only applies with --until-stable`, EXIT.USAGE);
  if (!opts.likeArticle && (opts.likeArticleSize !== undefined || opts.likeArticleMachine !== undefined))
    throw new CliError(
      `${opts.likeArticleSize !== undefined ? '--like-article-size' : '--like-article-machine'} only applies with --like-article`,
      EXIT.USAGE,
    );
  return {
    scenario: key,
    ...(opts.target !== undefined ? { target: opts.target } : {}),
    params: opts.param ?? {},
    ...(opts.scaleSweep ? { scaleSweep: true as const } : {}),
    options: {
      ...(opts.repetitions !== undefined ? { repetitions: opts.repetitions } : {}),
      ...(opts.budget !== undefined ? { budgetSeconds: opts.budget } : {}),
      ...(opts.server !== undefined ? serverOptionOf(opts.server) : {}),
      ...(opts.set ? { serverSettings: opts.set } : {}),
      ...(opts.envelope !== undefined ? { envelope: envelopeOf(opts.envelope) } : {}),
      ...(opts.likeArticle
        ? {
            likeArticle: {
              ...(opts.likeArticleSize !== undefined ? { size: opts.likeArticleSize } : {}),
              ...(opts.likeArticleMachine !== undefined ? { machine: opts.likeArticleMachine } : {}),
            },
          }
        : {}),
      scale: opts.publishedScale ? 'published' : 'default',
      ...(opts.untilStable
        ? {
            untilStable: {
              cvThreshold: opts.cvThreshold ?? DEFAULT_CV_THRESHOLD,
              ...(opts.maxRepetitions !== undefined ? { maxRepetitions: opts.maxRepetitions } : {}),
              ...(opts.timeBudget !== undefined ? { budgetSeconds: opts.timeBudget } : {}),
            },
          }
        : {}),
    },
  };
}

/** `--server 17` → { server: 17 }; `--server 17.4` → { server: 17, serverRelease: '17.4' }. */
function serverOptionOf(text: string): { server: number; serverRelease?: string } {
  const choice = parseServer(text);
  return { server: choice.major, ...(choice.release ? { serverRelease: choice.release } : {}) };
}

function envelopeOf(text: string): Envelope {
  try {
    return parseEnvelope(text);
  } catch (e) {
    if (e instanceof EnvelopeSyntaxError) throw new CliError(e.message, EXIT.USAGE);
    throw e;
  }
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

/**
 * Neither --target nor --server: the server the environment names for one of the scenario's
 * engines (PostgreSQL: the one psql would connect to), on a server of the user's.
 */
function targetFromEnvironment(request: RunRequest, scenario: LoadedScenario, io: Io): void {
  if (request.target !== undefined || request.options.server !== undefined || scenario.doc.target) return;
  const fromEnv = DRIVERS.filter((d) => d.engines.some((e) => scenario.doc.engines.includes(e)))
    .map((d) => d.targetFromEnvironment?.())
    .find((t) => t);
  if (!fromEnv) return;
  request.target = fromEnv.url;
  io.err(
    `no --target or --server: running on the server ${fromEnv.convention} names (${fromEnv.from}): ${fromEnv.url}\n`,
  );
}

/**
 * SIGINT/SIGTERM abort the run (its databases are dropped); a second one exits at once, and a
 * watchdog ends the process within 10 s of the first. `release()` removes the handlers.
 */
function stopOnSignals(io: Io): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  let signals = 0;
  let watchdog: NodeJS.Timeout | undefined;
  const onSignal = (sig: string) => {
    signals++;
    io.err(`\n${sig}: stopping and dropping this run's databases…${signals > 1 ? ' (again: exiting now)' : ''}\n`);
    if (signals > 1) process.exit(EXIT.INTERRUPTED);
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
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(watchdog);
      target.off('SIGINT', sigint);
      target.off('SIGTERM', sigterm);
    },
  };
}

/**
 * `--like-article`: checks what it can before anything is measured (the scenario states the
 * article's conditions, a managed server, no clash with an option it picks, a data size that
 * keeps the ratios); the function it returns measures this disk's tier, prints the choice and
 * puts it into the request as the `--param`, `--envelope` and `--set` it stands for, and returns
 * the run's `like-article` note.
 */
async function checkLikeArticle(
  request: RunRequest,
  scenario: LoadedScenario,
  opts: RunCommandOptions,
  io: Io,
  config: RunnerConfig,
): Promise<() => Promise<{ note: RunNote; articleTier: StorageTier }>> {
  const o = request.options;
  const host = await hostFacts();
  const plan = planLikeArticle(scenario, o.likeArticle ?? {}, host);
  // A memory limit needs a server the runner starts; conditions without one (InnoDB's buffer pool
  // scaled as a parameter) also run on a local MySQL/MariaDB server of the user's, inside I/O limits.
  if (plan.memoryBytes === null) {
    if (request.target === undefined && o.server === undefined && !scenario.doc.target)
      throw new CliError(
        `--like-article runs the article's conditions on a server inside a cgroup: give --target with a local server${scenario.doc.engines.some((e) => ENGINE_FACTS[e].managedMajors.length > 0) ? ` or --server MAJOR (${SUPPORTED_MAJORS.join(', ')})` : ''}`,
        EXIT.USAGE,
      );
  } else if (request.target !== undefined || (o.server === undefined && !scenario.doc.target))
    throw new CliError(
      `--like-article runs the article's conditions on a server the runner starts inside a cgroup: give --server MAJOR (${SUPPORTED_MAJORS.join(', ')})${request.target !== undefined ? ' instead of --target' : ''}`,
      EXIT.USAGE,
    );
  const clashes = likeArticleClashes(plan, {
    params: request.params,
    ...(o.serverSettings ? { settings: o.serverSettings } : {}),
    envelope: o.envelope !== undefined,
  });
  if (o.scale === 'published') clashes.unshift('--published-scale (--like-article chooses the scale)');
  if (clashes.length) throw new CliError(`--like-article cannot be combined with ${clashes.join('; ')}`, EXIT.USAGE);
  checkRootForEnvelope();
  return async () => {
    const dir = opts.clusterDir !== undefined ? path.resolve(opts.clusterDir) : os.tmpdir();
    if (!config.storageTier) io.err(`tunelab: --like-article: measuring the disk under ${dir} (a few seconds)…\n`);
    const here = await measureTierHere(dir, config, (w) => io.err(`tunelab: warning: ${w}\n`));
    // The article's own parameter values the user replaced with --param are not the article's any more.
    const given = new Set(Object.keys(request.params));
    const choice = chooseLikeArticle(
      { ...plan, params: Object.fromEntries(Object.entries(plan.params).filter(([k]) => !given.has(k))) },
      here.tier,
      host,
    );
    io.err(`tunelab: ${choice.line}\n`);
    // A --param of the user's wins over the article's own values (never over what is scaled: a clash above).
    request.params = { ...choice.params, ...request.params };
    o.envelope = choice.envelope;
    if (Object.keys(choice.settings).length > 0) o.serverSettings = { ...o.serverSettings, ...choice.settings };
    return {
      note: { ...choice.note, text: `${choice.note.text}; this disk: ${here.words}` },
      articleTier: choice.articleTier,
    };
  };
}

/**
 * I/O limits around a MySQL/MariaDB server of the user's (`--target`) throttle the server's one
 * process, so every client of it runs at those limits for the whole run: only with
 * `--throttle-target`, which names that cost (exit 2 before anything runs on the server otherwise).
 */
function checkThrottleConsent(request: RunRequest, opts: RunCommandOptions): void {
  const e = request.options.envelope;
  if (request.target === undefined || !e || opts.throttleTarget) return;
  if (e.memoryBytes !== undefined) return; // refused with its own sentence (engine/plan.ts)
  const io = [e.readIops, e.writeIops, e.readBps, e.writeBps].some((v) => v !== undefined);
  if (!io || !ENGINE_FACTS.mysql.schemes.some((s) => request.target!.startsWith(s))) return;
  throw new CliError(
    `${opts.likeArticle ? '--like-article chose' : '--envelope asks for'} ${describeEnvelope(e)} around the server of --target: the runner would move that server's own process into those limits for the whole run, so every client of it — not only this run — would get them until the run ends; give --throttle-target to accept that (a server no one else uses), or run without the envelope`,
    EXIT.USAGE,
  );
}

/** The engine's options for this request. */
function runOptionsOf(
  scenario: LoadedScenario,
  request: RunRequest,
  opts: RunCommandOptions,
  config: RunnerConfig,
  notes: RunNote[] = [],
): Omit<RunOptions, 'signal' | 'onEvent'> {
  const o = request.options;
  return {
    scenario,
    ...(request.target !== undefined ? { target: request.target } : {}),
    params: request.params,
    scale: o.scale,
    ...(o.repetitions ? { repetitions: o.repetitions } : {}),
    ...(o.untilStable ? { untilStable: o.untilStable } : {}),
    ...(o.budgetSeconds !== undefined ? { budgetSeconds: o.budgetSeconds } : {}),
    ...(opts.storage ? { storage: opts.storage } : {}),
    ...(opts.runId ? { runId: opts.runId } : {}),
    ...(o.server !== undefined ? { server: o.server } : {}),
    managed: {
      serversDir: config.serversDir,
      ledgerDir: config.ledgerDir,
      ...(opts.clusterBin !== undefined ? { clusterBin: opts.clusterBin } : {}),
      ...(opts.clusterDir !== undefined ? { clusterDir: opts.clusterDir } : {}),
      ...(o.serverRelease !== undefined ? { serverRelease: o.serverRelease } : {}),
      ...(o.serverSettings ? { settings: o.serverSettings } : {}),
      ...(o.envelope ? { envelope: o.envelope } : {}),
    },
    stallTimeoutMs: (opts.stallTimeout ?? config.stallTimeoutSeconds) * 1000,
    cleanupRetryMs: config.cleanupRetrySeconds * 1000,
    ledger: createLedger(config.ledgerDir),
    hostLeaseMs: config.hostLeaseSeconds * 1000,
    ...(notes.length ? { notes } : {}),
  };
}

/**
 * `--scale-sweep`: one run per scale point (app/scale-sweep.ts), one after another; stops at the
 * first run that does not end with exit 0 and exits with its code.
 */
async function runScaleSweep(key: string, opts: RunCommandOptions, context: CommandContext): Promise<void> {
  if (opts.likeArticle)
    throw new CliError(
      '--scale-sweep measures the scale points of scenario.yaml; --like-article chooses one scale from the article’s conditions: give one of them',
      EXIT.USAGE,
    );
  const clash = [opts.out && '--out', opts.json && '--json', opts.runId && '--run-id'].filter(Boolean);
  if (clash.length)
    throw new CliError(
      `--scale-sweep writes one run file per scale into TUNELAB_RUNS_DIR; it cannot be combined with ${clash.join(', ')}`,
      EXIT.USAGE,
    );
  const scenario = await loadByKey(context.config, key);
  const runs = scaleSweepRuns(scenario.doc, opts.param ?? {});
  let code: number = EXIT.OK;
  for (const [i, params] of runs.entries()) {
    const scale = scenario.doc.scale!.param;
    context.io.err(`tunelab: scale sweep ${i + 1}/${runs.length}: ${scale}=${params[scale]}\n`);
    await run(key, { ...opts, param: params }, { ...context, setExit: (c) => (code = c) });
    context.setExit(code);
    if (code !== EXIT.OK) return;
  }
}

async function run(key: string, opts: RunCommandOptions, { config, io, setExit }: CommandContext): Promise<void> {
  const request = runRequestOf(key, opts);
  const api = apiFrom(opts, config);
  const scenario = await loadByKey(config, key);
  // A --like-article the scenario or the options cannot take is a usage error before anything else.
  const likeArticle = request.options.likeArticle ? await checkLikeArticle(request, scenario, opts, io, config) : null;
  if (api) await checkApiBeforeRun(api, (line) => io.err(`${line}\n`));
  const chosen = likeArticle ? await likeArticle() : null;
  const notes = chosen ? [chosen.note] : [];
  checkThrottleConsent(request, opts);
  targetFromEnvironment(request, scenario, io);
  const progress = createProgress({ tty: io.isTTY && !opts.json });
  const stop = stopOnSignals(io);
  let running = true;
  const stopped = () => {
    if (!running) return;
    running = false;
    stop.release();
    progress.stop();
  };
  // What earlier runs of this machine left on this server goes first (app/sweep.ts).
  if (request.target !== undefined && !scenario.doc.target)
    await sweepLeftovers(config, request.target, (line) => io.err(`${line}\n`), SWEEP_BEFORE_RUN_MS).catch(
      () => {}, // a bad or unreachable target is the run's own error, said by the run
    );
  // Nothing measured is lost: the run file exists (where asked, else in the OS temp dir) before
  // the table or the JSON is printed and before any network call; with nowhere to write it the
  // run is printed whole (onKept).
  const delivered = await runAndDeliver(
    { ...runOptionsOf(scenario, request, opts, config, notes), signal: stop.signal, onEvent: progress.onEvent },
    {
      config,
      api,
      fileOf: (runId) => (opts.out ? path.resolve(config.cwd, opts.out) : path.join(config.runsDir, `${runId}.json`)),
      say: (line) => {
        stopped();
        io.err(`tunelab: ${line}\n`);
      },
      log: (line) => io.err(`${line}\n`),
      onMeasured: (file, result) => {
        stopped();
        if (opts.json) io.out(`${JSON.stringify(file, null, 2)}\n`);
        else io.out(`\n${renderRunTable(scenario, result.submission)}\n\n`);
        const tier = chosen ? tierCheck(chosen.articleTier, result.submission.hardware.measured) : null;
        if (tier) io.err(`tunelab: ${tier}\n`);
      },
      onKept: (saved, file) => {
        if (saved.file === null) {
          io.err(
            `tunelab: ${opts.json ? 'it is the JSON printed on stdout' : 'here it is — save it and `tunelab submit` it later'}\n`,
          );
          if (!opts.json) io.out(`${JSON.stringify(file, null, 2)}\n`);
        } else if (saved.fallbackReason === undefined && !opts.json)
          io.out(`run ${file.runId} written to ${saved.file}\n`);
      },
    },
  ).finally(stopped);
  setExit(delivered.code);
  if (delivered.result.leftBehind) {
    io.err(`tunelab: measured, but ${delivered.result.leftBehind}\n`);
    if (delivered.code === EXIT.OK) setExit(EXIT.LEFT_BEHIND);
  }
}

/** `tunelab run <key> [options]`. */
export function runCommand(program: Command, context: CommandContext): void {
  defineRunCommand(program).action((key: string, opts: RunCommandOptions) =>
    opts.scaleSweep ? runScaleSweep(key, opts, context) : run(key, opts, context),
  );
}
