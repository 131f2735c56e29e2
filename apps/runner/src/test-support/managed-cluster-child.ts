/**
 * Test helper process: creates a managed cluster, starts it and builds tables until it is told to
 * stop. Prints `READY <root> <postmaster pid>` once the fixture is under way. On SIGINT it does what
 * the CLI does (abort → the cluster stops at once → destroy) and exits 130; with `--exit` as its
 * argument it instead calls process.exit(7) mid-fixture, leaving the cleanup to the exit hook.
 */
import pg from 'pg';
import { createManagedCluster, findServerBinaries } from '../engines/managed-postgresql/cluster/index.ts';

const mode = process.argv[2] ?? '--sigint';
const controller = new AbortController();
process.on('SIGINT', () => controller.abort());
const cluster = await createManagedCluster({ binaries: await findServerBinaries(), signal: controller.signal });
try {
  await cluster.start({}, controller.signal);
  const client = new pg.Client(cluster.clientConfig());
  client.on('error', () => {});
  await client.connect();
  await client.query('SET synchronous_commit = off');
  for (let batch = 0; ; batch++) {
    await client.query(
      `DO $$ BEGIN FOR k IN ${batch * 200 + 1}..${batch * 200 + 200} LOOP EXECUTE format('CREATE TABLE t%s (i int)', k); END LOOP; END $$`,
    );
    if (batch === 1) process.stdout.write(`READY ${cluster.root} ${await cluster.postmasterPid()}\n`);
    if (batch === 3 && mode === '--exit') process.exit(7);
  }
} catch {
  await cluster.destroy();
  process.exit(controller.signal.aborted ? 130 : 1);
}
