import fp from 'fastify-plugin';
import { openResultsDb, type ResultsDb } from '@tunelab/results-db';

declare module 'fastify' {
  interface FastifyInstance {
    resultsDb: ResultsDb;
  }
}

export type ResultsDbPluginOptions = {
  /** An already-open database (tests, the demo); the caller closes it. */
  resultsDb?: ResultsDb;
  databaseUrl?: string;
  dataDir?: string;
  /** Apply pending migrations when the app starts (default true). */
  migrate?: boolean;
};

/** Opens (or adopts) the results database and closes what it opened when the app closes. */
export default fp<ResultsDbPluginOptions>(
  async (app, opts) => {
    const owned = !opts.resultsDb;
    const db = opts.resultsDb ?? (await openResultsDb(opts.databaseUrl, { dataDir: opts.dataDir }));
    if (opts.migrate !== false) await db.migrate();
    app.decorate('resultsDb', db);
    if (owned) app.addHook('onClose', async () => db.close());
  },
  { name: 'results-db' },
);
