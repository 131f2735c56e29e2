/**
 * Operator commands for the API's results database (`npm run admin -- --help`). Uses DATABASE_URL
 * when set, otherwise the embedded database in TUNELAB_DATA_DIR (.tunelab/results). The command
 * bodies live in ./admin/ (one function each); this file only wires them to commander.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { JobState } from '@tunelab/contracts';
import { DatabaseOwnedError, openResultsDb, RunnerNameError, type ResultsDb } from '@tunelab/results-db';
import { loadAdminEnv, type AdminEnv } from './config.ts';
import {
  createOperatorCommand,
  createRunnerCommand,
  listRunnersCommand,
  migrateCommand,
  revokeRunnerCommand,
  setPublicLabelCommand,
} from './admin/runners.ts';
import { cancelJobCommand, listJobsCommand, requestJobCommand, type JobsVia } from './admin/jobs.ts';
import { databaseName, newEmbeddedNotice } from './admin/where.ts';

const HELP_AFTER = `
environment:
  DATABASE_URL             PostgreSQL results database (default: embedded PGlite)
  TUNELAB_DATA_DIR         embedded database directory (default .tunelab/results)
  TUNELAB_API_URL          jobs commands go through this running API (needed when it owns the
                           embedded database) instead of the database
  TUNELAB_OPERATOR_TOKEN   operator token for jobs request/cancel through the API

exit codes: 0 ok, 1 failure, 2 usage error, 4 the embedded database is in use by another
process (e.g. a running API): the message names its pid; stop it and run the command again
(jobs commands can go through that API instead: TUNELAB_API_URL)`;

const io = { out: (l: string) => console.log(l), err: (l: string) => console.error(l) };

const integer = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer ${min}–${max}`);
  return n;
};
const collectParam = (value: string, previous: Record<string, string> = {}) => {
  const eq = value.indexOf('=');
  if (eq < 1) throw new InvalidArgumentError(`expected name=value, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
};

let env: AdminEnv;
try {
  env = loadAdminEnv();
} catch (e) {
  console.error(`tunelab admin: ${(e as Error).message}`);
  process.exit(2);
}
const where = () => ({ databaseUrl: env.DATABASE_URL, dataDir: env.TUNELAB_DATA_DIR });
/** Set when this command is about to create a new embedded database (said after it ran). */
let created: string | null = null;
const openDb = async () => {
  created ??= newEmbeddedNotice(where());
  try {
    return await openResultsDb(env.DATABASE_URL, { dataDir: env.TUNELAB_DATA_DIR });
  } catch (e) {
    if (!(e instanceof DatabaseOwnedError)) throw e;
    console.error(
      `tunelab admin: ${e.message}.\nNothing was changed. Stop it (${e.owner ? `kill ${e.owner.pid}` : 'Ctrl-C in its terminal'}) and run the command again.`,
    );
    process.exit(4);
  }
};
const jobsVia = (): JobsVia =>
  env.TUNELAB_API_URL
    ? { api: { url: env.TUNELAB_API_URL, token: env.TUNELAB_OPERATOR_TOKEN } }
    : {
        db: async () => {
          const db = await openDb();
          await db.migrate();
          return db;
        },
      };

let code = 0;
/**
 * On stderr (stdout stays the command's output): a new embedded database, said plainly; else,
 * after a write that succeeded, which database it went to.
 */
function sayWhere(writes: boolean) {
  if (created) console.error(`tunelab admin: ${created}`);
  else if (writes && code === 0) console.error(`tunelab admin: wrote to ${databaseName(where())}`);
}
/** Opens and migrates the database, runs one command body, closes; then says where (sayWhere). */
async function withDb(fn: (db: ResultsDb) => Promise<number>, writes = true) {
  const db = await openDb();
  code = 1; // until the body answers: a throw wrote nothing to name
  try {
    await db.migrate();
    code = await fn(db);
  } finally {
    await db.close();
    sayWhere(writes);
  }
}
/** A jobs command: through the API (which names nothing here), or on the database (then says where). */
async function jobsCommand(fn: (via: JobsVia) => Promise<number>, writes: boolean) {
  code = 1;
  try {
    code = await fn(jobsVia());
  } finally {
    if (!env.TUNELAB_API_URL) sayWhere(writes);
  }
}
const oneName = (command: string, name: string | undefined) => {
  if (!name) {
    console.error(`tunelab admin ${command}: expects exactly one NAME`);
    process.exit(2);
  }
  return name;
};

const program = new Command('tunelab admin')
  .description('operator commands for the TuneLab results database')
  .addHelpText('after', HELP_AFTER)
  .showHelpAfterError()
  .exitOverride();

program
  .command('create-runner')
  .description(
    'mint a runner token for NAME (printed once; only its sha256 is stored). Public responses never show NAME, which may name an internal host: they show LABEL if given, else no runner at all',
  )
  .argument('[NAME]')
  .option('--public-label <LABEL>', 'how public responses (API reads, the site) name this runner')
  .action((name: string | undefined, flags: { publicLabel?: string }) =>
    withDb((db) => createRunnerCommand(db, oneName('create-runner', name), flags.publicLabel ?? null, io)),
  );
program
  .command('set-public-label')
  .description("set NAME's public label, or without LABEL make it anonymous again")
  .argument('[NAME]')
  .argument('[LABEL]')
  .action((name: string | undefined, label: string | undefined) =>
    withDb((db) => setPublicLabelCommand(db, oneName('set-public-label', name), label ?? null, io)),
  );
program
  .command('create-operator')
  .description('mint an operator token for NAME: requests and cancels fleet jobs')
  .argument('[NAME]')
  .action((name?: string) => withDb((db) => createOperatorCommand(db, oneName('create-operator', name), io)));
program
  .command('revoke-runner')
  .description("revoke NAME's token; its submissions are refused from now on")
  .argument('[NAME]')
  .action((name?: string) => withDb((db) => revokeRunnerCommand(db, oneName('revoke-runner', name), io)));
program
  .command('list-runners')
  .description('list runners and operators with created, last seen and revoked times')
  .action(() => withDb((db) => listRunnersCommand(db, io), false));
program
  .command('migrate')
  .description('apply pending migrations to the results database')
  .action(() => withDb((db) => migrateCommand(db, io)));

const jobs = program.command('jobs').description('fleet jobs: request runs, list them, cancel them');
jobs
  .command('request')
  .description(
    'queue a job: SCENARIO with parameter overrides, for a class, a runner or labels; with --releases one per release',
  )
  .argument('<SCENARIO>')
  .option('--param <name=value>', 'override a scenario parameter (repeatable)', collectParam)
  .option('--repetitions <n>', 'repetitions of each variant', integer(1, 1000))
  .option('--server <major>', 'only agents whose target runs this server major', integer(1, 99))
  .option(
    '--releases <a,b>',
    'one job per PostgreSQL release, e.g. 16.4,17.0,17.6 (tunelab servers list --available --json lists the registry’s)',
  )
  .option('--class <class>', 'only agents of this hardware class, e.g. "8 cores / 32 GB / SSD"')
  .option('--runner <name>', 'only this runner')
  .option('--labels <a,b>', 'only agents having every one of these labels')
  .option('--priority <n>', 'higher runs first (-100…100, default 0)', integer(-100, 100))
  .action((scenario: string, flags: Parameters<typeof requestJobCommand>[2]) =>
    jobsCommand((via) => requestJobCommand(via, scenario, flags, io), true),
  );
jobs
  .command('list')
  .description('jobs, newest first')
  .addOption(new Option('--state <state>', 'only jobs in this state').choices(JobState.options))
  .action((flags: { state?: JobState }) => jobsCommand((via) => listJobsCommand(via, flags.state, io), false));
jobs
  .command('cancel')
  .description('cancel a queued or active job (its agent stops at the next heartbeat)')
  .argument('<ID>')
  .action((id: string) => jobsCommand((via) => cancelJobCommand(via, id, io), true));

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? 0 : 2);
  console.error(`tunelab admin: ${e instanceof RunnerNameError ? e.message : (e as Error).message}`);
  code = 1;
}
process.exit(code);
