/**
 * `tunelab` — the TuneLab runner agent (started by bin/tunelab.mjs, which calls `main`). The
 * commands are modules in ./commands/ (listed in COMMANDS); this file builds the program from them
 * and turns errors into exit codes. Commands, options, environment variables and exit codes are
 * documented in apps/runner/README.md (and by `--help`).
 */
import { Command, CommanderError } from 'commander';
import { formatScenarioIssue } from '@tunelab/contracts';
import { ScenarioError } from '@tunelab/scenarios';
import { restoreHost } from './app/host-restore.ts';
import { COMMANDS } from './commands/index.ts';
import type { Io } from './commands/context.ts';
import { EXIT_CODES_HELP } from './commands/help.ts';
import { readConfig, type RunnerConfig } from './config.ts';
import {
  EngineError,
  EnvelopeUnavailable,
  Interrupted,
  LeftBehind,
  RunFailed,
  TargetUnreachable,
  UsageError,
} from './errors.ts';
import { CliError, EXIT, type ExitCode } from './exit-codes.ts';
import { RUNNER_VERSION } from './version.ts';

/** The `tunelab` program with every command of COMMANDS; `exitCode()` once it has parsed. */
export function buildCli(config: RunnerConfig, io: Io): { program: Command; exitCode: () => number } {
  let exitCode: number = EXIT.OK;
  const program = new Command('tunelab')
    .description('TuneLab runner: run versioned database-tuning scenarios and submit the results')
    .version(RUNNER_VERSION)
    .addHelpText('after', EXIT_CODES_HELP)
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  const context = { config, io, setExit: (code: number) => (exitCode = code) };
  // Before any command: what earlier runs of this machine changed on the host and could not put
  // back (a killed runner's throttle on a server, its cgroups, a changed global setting) is put
  // back (app/host-restore.ts). `cleanup` does it itself and says it on stdout; a `--target`
  // command sweeps its own server with its own credentials.
  program.hook('preAction', async (_program, action) => {
    if (action.name() === 'cleanup') return;
    const target = action.opts<{ target?: unknown }>().target;
    await restoreHost(config, (line) => io.err(`tunelab: ${line}\n`), {
      ...(typeof target === 'string' ? { except: target } : {}),
    });
  });
  for (const register of COMMANDS) register(program, context);
  return { program, exitCode: () => exitCode };
}

/** The only place where the engine's domain errors become exit codes. */
function exitCodeOf(e: EngineError): ExitCode {
  if (e instanceof LeftBehind) return EXIT.LEFT_BEHIND;
  if (e instanceof UsageError) return EXIT.USAGE;
  if (e instanceof TargetUnreachable) return EXIT.TARGET_UNREACHABLE;
  if (e instanceof EnvelopeUnavailable) return EXIT.ENVELOPE_UNAVAILABLE;
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
