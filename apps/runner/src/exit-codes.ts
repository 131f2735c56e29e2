/** Process exit codes of the `tunelab` CLI; documented in apps/runner/README.md. */
export const EXIT = {
  OK: 0,
  /** The run (or a command) failed; everything it created on the target was dropped. */
  RUN_FAILED: 1,
  /** Bad command line, invalid scenario folder or run file. */
  USAGE: 2,
  /** The database under test could not be reached. */
  TARGET_UNREACHABLE: 3,
  /** The run was measured and saved, but the API did not store it: it waits in the spool, or the API refused it. */
  NOT_STORED: 4,
  /** The run stopped and could not clean up (the server went away): what is left is named. */
  LEFT_BEHIND: 5,
  /** The API refused this runner (token unknown or revoked, runner too old) before anything was measured. */
  API_REFUSED: 6,
  /** `--envelope` was given and this machine cannot apply it (not root, no cgroup controller): nothing was run. */
  ENVELOPE_UNAVAILABLE: 7,
  /** Interrupted by SIGINT/SIGTERM after cleaning up (128 + SIGINT). */
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that carries the exit code the CLI should end with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
