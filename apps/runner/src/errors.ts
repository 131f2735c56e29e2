/**
 * Domain errors of the runner engine. The engine throws these; only the CLI (cli.ts) turns them
 * into exit codes. Each message is a sentence meant for the person who typed the command.
 */
export class EngineError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    // Each error is named by its class (a stack trace says `RunFailed: …`).
    this.name = new.target.name;
  }
}

/** Bad options or parameters, or a scenario that cannot run on this target; nothing was created. */
export class UsageError extends EngineError {}

/** The database server under test could not be reached. */
export class TargetUnreachable extends EngineError {}

/** The run started and failed; everything it created on the target was dropped. */
export class RunFailed extends EngineError {}

/** The run was aborted (Ctrl-C, SIGTERM) and cleaned up. */
export class Interrupted extends EngineError {}

/**
 * The run stopped (failed or interrupted) and its clean-up could not reach the server: the
 * message names every database/schema and setting left and the command that removes them.
 */
export class LeftBehind extends EngineError {}

/**
 * A resource envelope was asked for (`--envelope`) and this machine cannot apply it (not root, no
 * cgroup controller, no block device for I/O limits): nothing was run, never an unconstrained run.
 */
export class EnvelopeUnavailable extends EngineError {}
