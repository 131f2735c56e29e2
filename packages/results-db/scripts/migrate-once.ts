// Used by migrate.test.ts to race two processes: migrates the database at argv[2] and prints the result.
import { openResultsDb } from '../src/index.ts';

const db = await openResultsDb(process.argv[2]);
try {
  console.log(JSON.stringify(await db.migrate()));
} finally {
  await db.close();
}
