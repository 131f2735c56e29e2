/**
 * Operator commands for the API's results database.
 *   npm run admin -- create-runner NAME   mint a runner token (shown once; only its hash is stored)
 *   npm run admin -- revoke-runner NAME   refuse that runner's token from now on
 *   npm run admin -- list-runners
 *   npm run admin -- migrate              apply pending migrations
 * Uses DATABASE_URL when set, otherwise the embedded database in TUNELAB_DATA_DIR (.tunelab/results).
 */
import { openResultsDb, RunnerNameError } from '@tunelab/results-db';
import { loadEnv } from './config.ts';

const USAGE = `usage: tunelab admin <command> [args]

commands:
  create-runner NAME   mint a runner token for NAME (printed once; only its sha256 is stored)
  revoke-runner NAME   revoke NAME's token; its submissions are refused from now on
  list-runners         list runners with created, last seen and revoked times
  migrate              apply pending migrations to the results database

environment:
  DATABASE_URL         PostgreSQL results database (default: embedded PGlite)
  TUNELAB_DATA_DIR     embedded database directory (default .tunelab/results)

exit codes: 0 ok, 1 failure, 2 usage error`;

const [command, ...args] = process.argv.slice(2);
if (!command || command === '--help' || command === '-h' || command === 'help') {
  console.log(USAGE);
  process.exit(command ? 0 : 2);
}
const known = ['create-runner', 'revoke-runner', 'list-runners', 'migrate'];
if (!known.includes(command)) {
  console.error(`tunelab admin: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  process.exit(2);
}
if ((command === 'create-runner' || command === 'revoke-runner') && args.length !== 1) {
  console.error(`tunelab admin ${command}: expects exactly one NAME\n\n${USAGE}`);
  process.exit(2);
}

let env;
try {
  env = loadEnv();
} catch (e) {
  console.error(`tunelab admin: ${(e as Error).message}`);
  process.exit(2);
}
const db = await openResultsDb(env.DATABASE_URL, { dataDir: env.TUNELAB_DATA_DIR });
let code = 0;
try {
  await db.migrate();
  const name = args[0] ?? '';
  switch (command) {
    case 'create-runner': {
      const r = await db.createRunner(name);
      console.log(`runner ${r.name} created; its token (shown only now):\n${r.token}`);
      break;
    }
    case 'revoke-runner': {
      if (await db.revokeRunner(name)) console.log(`runner ${name} revoked`);
      else {
        console.error(`tunelab admin: no active runner named ${name}`);
        code = 1;
      }
      break;
    }
    case 'list-runners': {
      for (const r of await db.listRunners()) {
        console.log(
          `${r.name}\tcreated ${r.createdAt.toISOString()}\tlast seen ${r.lastSeenAt?.toISOString() ?? 'never'}${r.revokedAt ? `\trevoked ${r.revokedAt.toISOString()}` : ''}`,
        );
      }
      break;
    }
    case 'migrate': {
      const m = await db.migrate();
      console.log(
        `migrations: ${m.applied.length} applied, ${m.alreadyApplied.length} already there (${db.description})`,
      );
      break;
    }
  }
} catch (e) {
  console.error(`tunelab admin: ${e instanceof RunnerNameError ? e.message : (e as Error).message}`);
  code = 1;
} finally {
  await db.close();
}
process.exit(code);
