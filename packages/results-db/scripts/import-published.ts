/**
 * npm run import:published [-- SCENARIOS_DIR]
 * Imports every scenarios/<key>/published.json as published runs (idempotent: a second import
 * stores nothing). Uses DATABASE_URL when set, otherwise the embedded database in
 * TUNELAB_DATA_DIR (.tunelab/results). Exit codes: 0 ok, 1 failure, 2 usage error, 4 the
 * embedded database is in use by another process (a running API): nothing is imported, and the
 * message names that process.
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { DatabaseOwnedError, openResultsDb, type ResultsDb } from '../src/index.ts';
import { loadScriptEnv, type ScriptEnv } from './env.ts';

const args = process.argv.slice(2);
if (args.length > 1 || args[0] === '--help' || args[0] === '-h') {
  console.log(
    "usage: npm run import:published [-- SCENARIOS_DIR]   (default: the repository's scenarios/)\n" +
      'exit codes: 0 ok, 1 failure, 2 usage error, 4 the embedded database is in use by another process',
  );
  process.exit(args[0] === '--help' || args[0] === '-h' ? 0 : 2);
}
let env: ScriptEnv;
try {
  env = loadScriptEnv();
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(2);
}
const dir = args[0] ?? fileURLToPath(new URL('../../../scenarios/', import.meta.url));
if (!existsSync(dir)) {
  console.error(`no scenarios directory at ${dir}`);
  process.exit(2);
}

let db: ResultsDb;
try {
  db = await openResultsDb(env.DATABASE_URL, { dataDir: env.TUNELAB_DATA_DIR });
} catch (err) {
  if (!(err instanceof DatabaseOwnedError)) throw err;
  console.error(
    `${err.message}.\nNothing was imported. Stop it (${err.owner ? `kill ${err.owner.pid}` : 'Ctrl-C in its terminal'}) and run \`npm run import:published\` again; the API serves the imported runs once it is back.`,
  );
  process.exit(4);
}
try {
  await db.migrate();
  const result = await db.importPublished(dir);
  for (const i of result.imported)
    console.log(
      `${i.outcome === 'created' ? 'imported' : 'unchanged'}  ${i.idempotencyKey}  (${i.samples} samples, run ${i.runId})`,
    );
  for (const s of result.skipped) console.log(`skipped   ${s.scenario}: ${s.reason}`);
  console.log(
    `${result.imported.filter((i) => i.outcome === 'created').length} run(s) imported into ${db.description}`,
  );
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
} finally {
  await db.close();
}
