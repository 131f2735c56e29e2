/** `tsx scripts/seed-demo.ts <pglite dir>`: a small demo results database for looking at the site. */
import { openResultsDb } from '@tunelab/results-db';
import { seedDemo } from '../test/seed.ts';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: tsx scripts/seed-demo.ts <pglite data dir>');
  process.exit(2);
}
const db = await openResultsDb(undefined, { dataDir: dir });
try {
  const { runIds } = await seedDemo(db);
  console.log(`seeded ${runIds.length} measured runs and the published articles into ${dir}`);
} finally {
  await db.close();
}
