// Used by owner.test.ts: opens the embedded database in argv[2], migrates it, stores a runner
// named argv[3] (an acknowledged write), prints "ready", and holds the database until its stdin
// closes (then closes it gracefully) or it is killed.
import { openResultsDb } from '../src/index.ts';

const db = await openResultsDb(undefined, { dataDir: process.argv[2] });
await db.migrate();
if (process.argv[3]) await db.createRunner(process.argv[3]);
console.log('ready');
process.stdin.resume();
process.stdin.on('end', () => {
  void db.close().then(() => process.exit(0));
});
